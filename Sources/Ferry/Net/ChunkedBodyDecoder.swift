/// Takes apart a response body sent with `Transfer-Encoding: chunked` as its bytes arrive, in
/// pieces of any size: each call returns the payload the pieces so far complete, and
/// ``isFinished`` says when the last chunk (size `0`) and its trailer fields have come.
/// Chunk sizes are read as the server reads a request's (``HTTPRequestParser``); chunk
/// extensions and trailer fields are dropped.
///
/// ```swift
/// var decoder = ChunkedBodyDecoder()
/// let payload = try decoder.decode(Array("5\r\nhello\r\n0\r\n\r\n".utf8)[...])   // "hello"
/// decoder.isFinished                                                        // true
/// ```
struct ChunkedBodyDecoder {
    private enum State {
        /// Reading a chunk-size line.
        case size
        /// Inside a chunk, with this many payload bytes to go.
        case data(remaining: Int)
        /// The line break that ends a chunk's payload.
        case dataEnd
        /// The trailer fields after the last chunk, up to an empty line.
        case trailers
        case finished
    }

    private var state = State.size
    private var line: [UInt8] = []

    /// Whether the last chunk and the trailer section have arrived: the body is complete.
    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Decodes the next bytes of the body.
    /// - Returns: the payload they complete (possibly empty); bytes after the end are ignored.
    /// - Throws: ``HTTPClientFailure`` when the framing is broken (a chunk size that is not
    ///   hex, a chunk not followed by a line break, a line longer than 1 KiB).
    mutating func decode(_ bytes: ArraySlice<UInt8>) throws(HTTPClientFailure) -> [UInt8] {
        var payload: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .finished:
                return payload
            case .data(let remaining):
                let end = min(index + remaining, bytes.endIndex)
                payload += bytes[index..<end]
                state = end - index == remaining ? .dataEnd : .data(remaining: remaining - (end - index))
                index = end
            case .size, .dataEnd, .trailers:
                let byte = bytes[index]
                index += 1
                guard byte == UInt8(ascii: "\n") else {
                    guard line.count < HTTPRequestParser.longestChunkSizeLine else { throw Self.malformed("a line longer than 1 KiB") }
                    line.append(byte)
                    continue
                }
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                try endLine()
                line.removeAll(keepingCapacity: true)
            }
        }
        return payload
    }

    private mutating func endLine() throws(HTTPClientFailure) {
        switch state {
        case .size:
            let size: Int
            do { size = try HTTPRequestParser.chunkSize(line[...]) } catch {
                throw Self.malformed("a chunk size that is not one (\(String(decoding: line.prefix(40), as: UTF8.self)))")
            }
            state = size == 0 ? .trailers : .data(remaining: size)
        case .dataEnd:
            guard line.isEmpty else { throw Self.malformed("a chunk longer than its size") }
            state = .size
        case .trailers:
            if line.isEmpty { state = .finished }
        case .data, .finished:
            break
        }
    }

    private static func malformed(_ problem: String) -> HTTPClientFailure {
        HTTPClientFailure("a malformed chunked response: \(problem)", isRetryable: false)
    }
}
