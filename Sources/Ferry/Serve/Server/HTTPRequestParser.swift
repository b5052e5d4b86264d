/// The HTTP/1.1 request parser: a pure state machine. Bytes go in with ``append(_:)``; each
/// call to ``next()`` returns the next thing the connection must do, or throws the
/// ``HTTPRequestError`` to answer with. It does no I/O and keeps any bytes past the end of a
/// request for the next one, so pipelined requests come out in order.
///
/// ```swift
/// var parser = HTTPRequestParser(limits: configuration.parserLimits)
/// parser.append(bytesFromSocket)
/// loop: while true {
///     switch try parser.next() {
///     case .needMoreData: break loop              // read more from the socket
///     case .sendContinue: send("HTTP/1.1 100 Continue\r\n\r\n")
///     case .request(let head, let body): respond(to: head, body)
///     }
/// }
/// ```
///
/// After it throws, the parser is spent: the connection answers and closes.
struct HTTPRequestParser {
    /// The bounds the parser enforces.
    struct Limits: Sendable {
        /// Request line plus header fields, in bytes (`431` beyond).
        var maximumHeaderBytes: Int
        /// Number of header fields (`431` beyond).
        var maximumHeaderCount: Int
        /// Body bytes after de-chunking (`413` beyond).
        var maximumBodyBytes: Int
    }

    /// What the connection must do next.
    enum Action: Equatable {
        /// Read more bytes and call ``HTTPRequestParser/append(_:)``.
        case needMoreData
        /// The client sent `Expect: 100-continue` and waits: send `100 Continue`, then read.
        case sendContinue
        /// A request's head has arrived and a body follows: decide from the head alone whether
        /// to read it, then call ``HTTPRequestParser/admit(maximumBodyBytes:)`` (or answer and close).
        case head(HTTPRequestHead)
        /// A whole request has arrived.
        case request(HTTPRequestHead, body: [UInt8])
    }

    private enum State {
        case head
        case admitting(HTTPRequestHead)
        case fixedBody(HTTPRequestHead, remaining: Int)
        case chunkSize(HTTPRequestHead)
        case chunkData(HTTPRequestHead, remaining: Int)
        case chunkDataEnd(HTTPRequestHead)
        case trailers(HTTPRequestHead, bytes: Int)
        case failed
    }

    static let longestChunkSizeLine = 1024

    let limits: Limits
    private var state: State = .head
    private var buffer: [UInt8] = []
    /// Where unconsumed bytes start in `buffer`.
    private var readIndex = 0
    /// Where the search for the end of a line resumes, so bytes are scanned once.
    private var scanIndex = 0
    private var body: [UInt8] = []
    /// Body bytes of the current request received so far, including any already taken.
    private var bodyCount = 0
    /// The current request's body limit, set when it is admitted.
    private var bodyLimit = 0

    init(limits: Limits) {
        self.limits = limits
    }

    /// Whether no request is under way: nothing buffered and no body awaited. A connection
    /// that times out in this state closes silently; otherwise it answers `408`.
    var isIdle: Bool {
        if case .head = state { return readIndex == buffer.count }
        return false
    }

    /// The memory the request under way holds here: its body collected so far (by capacity),
    /// and bytes read but not yet taken.
    var bodyBytesHeld: Int { body.capacity + max(0, buffer.count - readIndex) }

    /// Lets the body of the request whose head was returned be read, up to `maximumBodyBytes`
    /// (at most the parser's own limit).
    /// - Returns: ``Action/sendContinue`` when the client waits for `100 Continue`, else `nil`.
    /// - Throws: ``HTTPRequestError/bodyTooLarge(limit:)`` when the declared length is over the limit.
    mutating func admit(maximumBodyBytes: Int) throws(HTTPRequestError) -> Action? {
        guard case .admitting(let head) = state else { return nil }
        bodyLimit = min(maximumBodyBytes, limits.maximumBodyBytes)
        body = []
        bodyCount = 0
        switch head.framing {
        case .none:
            state = .head
            return nil
        case .length(let length):
            guard length <= bodyLimit else {
                state = .failed
                throw .bodyTooLarge(limit: bodyLimit)
            }
            // Grown as bytes arrive: what a body holds is counted as it arrives, and a slow
            // client that announces a large body holds little.
            body.reserveCapacity(min(length, 16 << 10))
            state = .fixedBody(head, remaining: length)
            return head.expectsContinue && buffer.count - readIndex < length ? .sendContinue : nil
        case .chunked:
            state = .chunkSize(head)
            return head.expectsContinue && buffer.count == readIndex ? .sendContinue : nil
        }
    }

    /// Adds bytes read from the connection.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        if case .fixedBody(_, let remaining) = state, readIndex == buffer.count {
            // Body bytes go straight to the body, not through the buffer.
            let direct = min(remaining, bytes.count)
            body.append(contentsOf: bytes[..<direct])
            bodyCount += direct
            if case .fixedBody(let head, _) = state { state = .fixedBody(head, remaining: remaining - direct) }
            buffer.append(contentsOf: bytes[direct...])
            return
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds bytes read from the connection.
    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Advances as far as the buffered bytes allow.
    /// - Returns: what the connection must do next.
    /// - Throws: ``HTTPRequestError`` when the request is malformed or over a limit.
    mutating func next() throws(HTTPRequestError) -> Action {
        do throws(HTTPRequestError) {
            return try advance()
        } catch {
            state = .failed
            throw error
        }
    }

    private mutating func advance() throws(HTTPRequestError) -> Action {
        while true {
            switch state {
            case .failed:
                return .needMoreData

            case .head:
                // A TLS ClientHello starts with 0x16; no request line does. Answer at once
                // instead of waiting for a line end that never comes.
                if readIndex < buffer.count && buffer[readIndex] == 0x16 { throw .tlsHandshake }
                guard let end = try findHeadEnd() else { return .needMoreData }
                let head = try HTTPRequestHeadParser(limits: limits).parse(buffer[readIndex..<end])
                consume(upTo: end)
                if case .none = head.framing { return .request(head, body: []) }
                if case .length(let length) = head.framing, length > limits.maximumBodyBytes {
                    throw .bodyTooLarge(limit: limits.maximumBodyBytes)
                }
                state = .admitting(head)
                return .head(head)

            case .admitting:
                return .needMoreData  // waits for admit(maximumBodyBytes:)

            case .fixedBody(let head, let remaining):
                let taken = takeBody(upTo: remaining)
                if taken < remaining {
                    state = .fixedBody(head, remaining: remaining - taken)
                    return .needMoreData
                }
                state = .head
                return .request(head, body: takeCollectedBody())

            case .chunkSize(let head):
                guard let line = nextLine(longest: Self.longestChunkSizeLine) else {
                    if buffer.count - readIndex > Self.longestChunkSizeLine + 2 { throw .malformedChunkedBody }
                    return .needMoreData
                }
                let size = try Self.chunkSize(line)
                if size == 0 {
                    state = .trailers(head, bytes: 0)
                } else {
                    guard size <= bodyLimit - bodyCount else {
                        throw .bodyTooLarge(limit: bodyLimit)
                    }
                    state = .chunkData(head, remaining: size)
                }

            case .chunkData(let head, let remaining):
                let taken = takeBody(upTo: remaining)
                if taken < remaining {
                    state = .chunkData(head, remaining: remaining - taken)
                    return .needMoreData
                }
                state = .chunkDataEnd(head)

            case .chunkDataEnd(let head):
                guard let line = nextLine(longest: 0) else {
                    if buffer.count - readIndex >= 2 { throw .malformedChunkedBody }
                    return .needMoreData
                }
                guard line.isEmpty else { throw .malformedChunkedBody }
                state = .chunkSize(head)

            case .trailers(let head, let bytes):
                // Trailer fields are read and dropped; they count against the header limit.
                let start = readIndex
                guard let line = nextLine(longest: limits.maximumHeaderBytes - bytes) else {
                    if buffer.count - readIndex > limits.maximumHeaderBytes - bytes {
                        throw .headersTooLarge(limit: limits.maximumHeaderBytes)
                    }
                    return .needMoreData
                }
                if line.contains(0) { throw .nulByte }
                if !line.isEmpty {
                    state = .trailers(head, bytes: bytes + readIndex - start)
                    continue
                }
                state = .head
                return .request(head, body: takeCollectedBody())
            }
        }
    }

    // MARK: - Buffer

    /// Finds the end of the head (just past its empty line), skipping empty lines before the
    /// request line. Throws when the head grows past the limit.
    private mutating func findHeadEnd() throws(HTTPRequestError) -> Int? {
        var lineStart = max(readIndex, lineStartHint)
        var index = max(scanIndex, readIndex)
        while index < buffer.count {
            if buffer[index] == UInt8(ascii: "\n") {
                let length = index - lineStart
                let empty = length == 0 || (length == 1 && buffer[lineStart] == UInt8(ascii: "\r"))
                if empty && lineStart == readIndex {
                    consume(upTo: index + 1)  // an empty line before the request line
                    lineStart = readIndex
                    index = readIndex
                    continue
                }
                if empty {
                    if index + 1 - readIndex > limits.maximumHeaderBytes {
                        throw .headersTooLarge(limit: limits.maximumHeaderBytes)
                    }
                    return index + 1
                }
                lineStart = index + 1
            }
            index += 1
        }
        scanIndex = index
        lineStartHint = lineStart
        if buffer.count - readIndex > limits.maximumHeaderBytes {
            throw .headersTooLarge(limit: limits.maximumHeaderBytes)
        }
        return nil
    }
    private var lineStartHint = 0

    /// The next line without its CRLF (or LF), or `nil` if it has not fully arrived.
    private mutating func nextLine(longest: Int) -> ArraySlice<UInt8>? {
        var index = max(scanIndex, readIndex)
        while index < buffer.count {
            if buffer[index] == UInt8(ascii: "\n") {
                var end = index
                if end > readIndex && buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = buffer[readIndex..<end]
                consume(upTo: index + 1)
                return line
            }
            index += 1
            if index - readIndex > longest + 2 { break }
        }
        scanIndex = index
        return nil
    }

    /// Moves up to `count` buffered bytes into the body; returns how many.
    private mutating func takeBody(upTo count: Int) -> Int {
        let taken = min(count, buffer.count - readIndex)
        if taken > 0 {
            body.append(contentsOf: buffer[readIndex..<readIndex + taken])
            bodyCount += taken
            consume(upTo: readIndex + taken)
        }
        return taken
    }

    /// Takes the body bytes received so far, for a connection that reads the body as it
    /// arrives; the request, when complete, carries only the bytes received after.
    mutating func takeReceivedBody() -> [UInt8] {
        takeCollectedBody()
    }

    private mutating func takeCollectedBody() -> [UInt8] {
        let collected = body
        body = []
        return collected
    }

    /// Marks bytes up to `end` as consumed, reclaiming the buffer's space now and then.
    private mutating func consume(upTo end: Int) {
        readIndex = end
        scanIndex = end
        lineStartHint = end
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            readIndex = 0
            scanIndex = 0
            lineStartHint = 0
        } else if readIndex >= 1 << 16 && readIndex * 2 >= buffer.count {
            buffer.removeFirst(readIndex)
            readIndex = 0
            scanIndex = 0
            lineStartHint = 0
        }
    }

    /// Parses `1a2b` or `1a2b;name=value` (chunk extensions are ignored); the change feed's
    /// client (``ChunkedBodyDecoder``) reads chunk sizes with it too.
    static func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPRequestError) -> Int {
        var size = 0
        var digits = 0
        for byte in line {
            let value: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int(byte - UInt8(ascii: "A")) + 10
            case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"):
                guard digits > 0 else { throw .malformedChunkedBody }
                return size
            default:
                throw .malformedChunkedBody
            }
            digits += 1
            guard digits <= 15 else { throw .malformedChunkedBody }
            size = size << 4 | value
        }
        guard digits > 0 else { throw .malformedChunkedBody }
        return size
    }
}
