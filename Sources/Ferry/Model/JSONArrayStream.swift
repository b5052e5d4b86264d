/// Reads a JSON document whose top level is an array one run of elements at a time, holding
/// only a bounded window of its bytes: a 2 GB array is read with a few megabytes.
///
/// The bytes come in chunks from a source (a file, standard input, memory). A light pass over
/// the window finds where each element ends — the first `,` or `]` outside strings and outside
/// any bracket the element opened — and each element is then parsed by ``JSONParser``'s
/// scanner with the full grammar, the depth counting the array around it. What the stream
/// accepts, and every error it reports (reason, line and column), are those of
/// ``JSONParser/parse(_:options:)-([UInt8],_)`` on the whole document: the light pass and the
/// parser agree on every byte up to the first problem, and each element is parsed with the
/// byte that ends it in view. The one difference is size: instead of a limit on the document,
/// each element is held to ``Options/maximumElementBytes``.
///
/// ```swift
/// var stream = JSONArrayStream(source: .file(at: "users.json"))
/// guard try stream.openArray() else { return }  // the top level is not an array
/// while case let elements = try stream.nextElements(upTo: 4_096), !elements.isEmpty {
///     for element in elements { print(element) }
/// }
/// ```
public struct JSONArrayStream {
    /// Limits and the read size.
    public struct Options: Sendable {
        /// The deepest nesting accepted, the array itself counting as one level (as for
        /// ``JSONParser/Options/maximumDepth``).
        public var maximumDepth = 512
        /// The largest element accepted, in bytes (from its first byte to the `,` after it).
        public var maximumElementBytes = 64 << 20
        /// How many bytes are read at a time; the window holds at most this much more than the
        /// element it is reading.
        public var chunkBytes = 1 << 20

        /// Makes options; the defaults read 1 MiB at a time.
        public init(maximumDepth: Int = 512, maximumElementBytes: Int = 64 << 20, chunkBytes: Int = 1 << 20) {
            self.maximumDepth = maximumDepth
            self.maximumElementBytes = maximumElementBytes
            self.chunkBytes = max(1, chunkBytes)
        }
    }

    /// Why reading failed: the text is not the JSON array it should be, or reading it did.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The document is not valid JSON (or an element is too large), at a line and column.
        case invalidJSON(JSONParseError)
        /// Reading the source failed.
        case io(SystemError)

        /// The parse error's or the system error's text.
        public var description: String {
            switch self {
            case .invalidJSON(let error): return error.description
            case .io(let error): return error.description
            }
        }
    }

    /// Where the bytes come from: a function that returns up to `count` more bytes, and an
    /// empty array at the end.
    public struct Source {
        let read: (Int) throws(SystemError) -> [UInt8]

        /// A source that calls `read(count)` for up to `count` more bytes, empty at the end.
        public init(_ read: @escaping (Int) throws(SystemError) -> [UInt8]) {
            self.read = read
        }

        /// The bytes of an array in memory, handed out in pieces as asked.
        public static func bytes(_ bytes: [UInt8]) -> Source {
            var offset = 0
            return Source { count in
                let end = min(bytes.count, offset + count)
                defer { offset = end }
                return Array(bytes[offset..<end])
            }
        }

        /// An open file descriptor, read from its current position; the caller closes it.
        public static func fileDescriptor(_ file: FileDescriptor) -> Source {
            Source { count throws(SystemError) in try file.read(upTo: count) }
        }
    }

    /// Where the pass stands in the document's top level.
    enum Phase {
        /// Before the first value.
        case start
        /// After `[` or `,` (at ``position``, remembered for a trailing comma): an element or,
        /// after `[`, the `]` is next.
        case beforeElement(afterComma: Bool)
        /// After the `]` that closes the array (whitespace and the end of input must follow).
        case closed
        /// Everything was read and checked.
        case finished
    }

    /// The light pass inside an element, kept when the window ends in the middle of one.
    struct Cut {
        var offset: Int
        var depth = 0
        var inString = false
        var escaped = false
    }

    public let options: Options
    private let source: Source
    // The window's state is internal (not private) for the path reader in
    // `JSONArrayStream+Path.swift`.
    /// The window: bytes read and not yet dropped.
    var buffer: [UInt8] = []
    /// The first byte of ``buffer`` not yet consumed.
    var position = 0
    var sourceIsExhausted = false
    var phase = Phase.start
    /// The objects around the array when it was opened at a path (``openArray(at:)``),
    /// outermost first; their members after the array are read once it closes.
    var enclosingObjects: [EnclosingObject] = []
    /// The light pass of the element starting at ``position``, when a window ended inside it.
    private var pendingCut: Cut?
    /// The line and column of `buffer[0]`, for errors.
    private var lineAtBufferStart = 1
    private var columnAtBufferStart = 1
    /// The most bytes the window ever held.
    public private(set) var highWaterBytes = 0
    /// The elements returned so far.
    public private(set) var elementCount = 0
    /// The bytes read from the source so far (for progress).
    public private(set) var bytesRead = 0
    /// The bytes of the source up to the end of the last element returned (or whatever was
    /// consumed after it): ``bytesRead`` less what the window holds unconsumed.
    public var bytesConsumed: Int { bytesRead - (buffer.count - position) }

    /// Makes a stream over `source`; nothing is read until ``openArray()``.
    public init(source: Source, options: Options = Options()) {
        self.source = source
        self.options = options
    }

    // MARK: Reading

    /// Reads up to the first value: `true` when it is an array (whose elements
    /// ``nextElements(upTo:)`` then returns), `false` when it is something else, which is left
    /// unread.
    /// - Throws: ``Failure/invalidJSON(_:)`` for a byte order mark or a document that is empty
    ///   or only whitespace; ``Failure/io(_:)``.
    public mutating func openArray() throws(Failure) -> Bool {
        guard case .start = phase else { return true }
        try openDocument()
        guard buffer[position] == UInt8(ascii: "[") else { return false }
        position += 1
        phase = .beforeElement(afterComma: false)
        return true
    }

    /// Reads up to the first byte of the document's value.
    /// - Throws: ``Failure/invalidJSON(_:)`` for a byte order mark or a document that is empty
    ///   or only whitespace; ``Failure/io(_:)``.
    mutating func openDocument() throws(Failure) {
        try fill(toAtLeast: 3)
        if buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
            throw failure("a byte order mark (BOM) is not allowed; JSON text must start with a value", at: 0)
        }
        try skipWhitespace()
        guard position < buffer.count else {
            let isEmpty = lineAtBufferStart == 1 && columnAtBufferStart == 1 && buffer.isEmpty
            throw failure(isEmpty ? "the document is empty" : "the document contains only whitespace", at: position)
        }
    }

    /// The next elements of the array, at most `maximumCount` and as many as the window holds
    /// (at least one, reading further when the window ends inside it); empty once the array
    /// has closed and the rest of the document was checked to be whitespace.
    /// - Throws: ``Failure/invalidJSON(_:)`` naming the first problem in the document's order,
    ///   at its line and column in the whole document; ``Failure/io(_:)``.
    public mutating func nextElements(upTo maximumCount: Int = .max) throws(Failure) -> [JSONValue] {
        if case .start = phase, try !openArray() {
            throw failure("expected an array", at: position)
        }
        position -= dropBytes(before: position)
        try fill(toAtLeast: options.chunkBytes)
        var slices: [Range<Int>] = []
        scan: while slices.count < max(1, maximumCount) {
            switch phase {
            case .start, .finished:
                break scan
            case .closed:
                guard slices.isEmpty else { break scan }
                try closeEnclosingObjects()
                try checkTrailingBytes()
                phase = .finished
            case .beforeElement(let afterComma):
                var comma = position
                if afterComma { position += 1 }
                // Reading on drops the bytes before the comma, so only while no slice is cut.
                guard let shift = try skipWhitespace(keepingFrom: comma, mayRead: slices.isEmpty) else {
                    position = comma
                    break scan
                }
                comma -= shift
                if position < buffer.count, buffer[position] == UInt8(ascii: "]") {
                    if afterComma {
                        // A problem inside an element cut before the comma comes first.
                        let trailingComma = failure("trailing comma is not allowed", at: comma)
                        _ = try parse(slices)
                        throw trailingComma
                    }
                    position += 1
                    phase = .closed
                    continue scan
                }
                let start = position
                let found: (end: Int, isDelimited: Bool)?
                do { found = try cutElement(from: start, mayRead: slices.isEmpty) } catch {
                    _ = try parse(slices)  // the elements before this one first
                    throw error
                }
                guard let cut = found else {
                    // The window ends inside this element: the ones before it go first.
                    position = comma
                    break scan
                }
                slices.append(start..<cut.end)
                guard cut.isDelimited else {
                    phase = .finished  // the document ended inside the element: its parse fails
                    break scan
                }
                if buffer[cut.end - 1] == UInt8(ascii: "]") {
                    position = cut.end
                    phase = .closed
                } else {
                    position = cut.end - 1
                    phase = .beforeElement(afterComma: true)
                }
            }
        }
        let elements = try parse(slices)
        elementCount += elements.count
        return elements
    }

    // MARK: The light pass

    /// Finds the end of the element starting at `start`: the index after the `,` or `]` that
    /// ends it (delimited), or `buffer.count` when the document ends first. `nil` when the
    /// window ends inside it and `mayRead` is false.
    private mutating func cutElement(from start: Int, mayRead: Bool) throws(Failure) -> (end: Int, isDelimited: Bool)? {
        var cut = Cut(offset: start)
        if let pending = pendingCut {
            cut = pending
            cut.offset += start
        }
        pendingCut = nil
        while true {
            if let end = advance(&cut) { return (end, true) }
            guard cut.offset - start <= options.maximumElementBytes else {
                throw failure("array element \(elementCount) is larger than the limit of \(options.maximumElementBytes) bytes", at: start)
            }
            if sourceIsExhausted { return (buffer.count, false) }
            guard mayRead else {
                cut.offset -= start  // kept relative to the element's start: the window moves
                pendingCut = cut
                return nil
            }
            try readChunk(upTo: options.chunkBytes)
        }
    }

    /// Moves `cut` over the bytes of the window: the end of the element (after the `,` or the
    /// `closer` of its container), or `nil` at the end of the window.
    func advance(_ cut: inout Cut, closer: UInt8 = UInt8(ascii: "]")) -> Int? {
        let count = buffer.count
        return buffer.withUnsafeBufferPointer { bytes -> Int? in
            var offset = cut.offset
            defer { cut.offset = offset }
            while offset < count {
                let byte = bytes[offset]
                offset += 1
                if cut.inString {
                    if cut.escaped {
                        cut.escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        cut.escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        cut.inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): cut.inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"): cut.depth += 1
                case UInt8(ascii: ","):
                    if cut.depth == 0 { return offset }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if cut.depth == 0 && byte == closer { return offset }
                    // Never below zero: a stray closer is the parser's to report.
                    cut.depth = max(0, cut.depth - 1)
                default: break
                }
            }
            return nil
        }
    }

    /// Parses the cut elements, on every core when there are many; the first failure in
    /// the document's order is thrown.
    private func parse(_ slices: [Range<Int>]) throws(Failure) -> [JSONValue] {
        if slices.isEmpty { return [] }
        let depth = options.maximumDepth
        let enclosing = enclosingObjects.count
        let results = buffer.withUnsafeBufferPointer { bytes -> [Result<JSONValue, JSONParseError>] in
            nonisolated(unsafe) let bytes = bytes
            return ParallelWork.map(count: slices.count, minimumChunk: 256) { index in
                var scanner = JSONScanner(
                    input: UnsafeBufferPointer(rebasing: bytes[slices[index]]), maximumDepth: depth,
                    enclosingDepth: 1 + enclosing)
                return Result { () throws(JSONParseError) in try scanner.parseArrayElement() }
            }
        }
        var elements: [JSONValue] = []
        elements.reserveCapacity(slices.count)
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let value): elements.append(value)
            case .failure(let error): throw .invalidJSON(relocated(error, from: slices[index].lowerBound))
            }
        }
        return elements
    }

    /// After the closing `]`: only whitespace may follow.
    mutating func checkTrailingBytes() throws(Failure) {
        while true {
            try skipWhitespace()
            guard position < buffer.count else { return }
            try fill(toAtLeast: position + 2)
            if position + 1 < buffer.count, buffer[position] == UInt8(ascii: "/"),
                buffer[position + 1] == UInt8(ascii: "/") || buffer[position + 1] == UInt8(ascii: "*")
            {
                throw failure("comments are not allowed", at: position)
            }
            throw failure("unexpected data after the JSON value", at: position)
        }
    }

    // MARK: The window

    /// Skips whitespace, reading on as needed when `mayRead` (dropping the bytes before `keep`,
    /// or before ``position``); returns how far the window moved, or `nil` when it ended and
    /// `mayRead` is false.
    @discardableResult
    mutating func skipWhitespace(keepingFrom keep: Int? = nil, mayRead: Bool = true) throws(Failure) -> Int? {
        var moved = 0
        while true {
            while position < buffer.count {
                switch buffer[position] {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): position += 1
                default: return moved
                }
            }
            if sourceIsExhausted { return moved }
            guard mayRead else { return nil }
            let shift = dropBytes(before: keep.map { min($0 - moved, position) } ?? position)
            position -= shift
            moved += shift
            try readChunk(upTo: options.chunkBytes)
        }
    }

    /// Reads until the window holds `count` bytes or the source ends.
    mutating func fill(toAtLeast count: Int) throws(Failure) {
        while buffer.count < count, !sourceIsExhausted { try readChunk(upTo: count - buffer.count) }
    }

    /// Appends up to `count` bytes from the source.
    mutating func readChunk(upTo count: Int) throws(Failure) {
        let chunk: [UInt8]
        do { chunk = try source.read(max(1, count)) } catch { throw .io(error) }
        if chunk.isEmpty {
            sourceIsExhausted = true
            return
        }
        buffer.append(contentsOf: chunk)
        bytesRead += chunk.count
        highWaterBytes = max(highWaterBytes, buffer.count)
    }

    /// Removes `buffer[..<end]`, keeping the line and column of the new first byte; returns
    /// how many bytes went.
    @discardableResult
    mutating func dropBytes(before end: Int) -> Int {
        guard end > 0 else { return 0 }
        (lineAtBufferStart, columnAtBufferStart) = lineAndColumn(at: end)
        buffer.removeSubrange(0..<end)
        return end
    }

    // MARK: Positions

    /// The line and column of `buffer[offset]` in the whole document.
    func lineAndColumn(at offset: Int) -> (line: Int, column: Int) {
        var line = lineAtBufferStart
        var column = columnAtBufferStart
        buffer.withUnsafeBufferPointer { bytes in
            for index in 0..<min(offset, bytes.count) {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
        }
        return (line, column)
    }

    /// An error at `buffer[offset]`.
    func failure(_ reason: String, at offset: Int) -> Failure {
        let (line, column) = lineAndColumn(at: offset)
        return .invalidJSON(JSONParseError(line: line, column: column, reason: reason))
    }

    /// `error`, found in an element starting at `buffer[start]`, at its place in the document.
    func relocated(_ error: JSONParseError, from start: Int) -> JSONParseError {
        let (line, column) = lineAndColumn(at: start)
        if error.line == 1 { return JSONParseError(line: line, column: column + error.column - 1, reason: error.reason) }
        return JSONParseError(line: line + error.line - 1, column: error.column, reason: error.reason)
    }
}
