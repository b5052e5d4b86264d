import Foundation
import Ferry

/// Where a command reads standard input from: the process's descriptor 0, or bytes in tests.
///
/// ```swift
/// let document = try context.stdin.readAll()
/// ```
struct InputReader: Sendable {
    private let readChunk: @Sendable (Int) throws(SystemError) -> [UInt8]

    /// A reader that calls `readChunk(count)` for up to `count` more bytes, empty at the end.
    init(_ readChunk: @escaping @Sendable (Int) throws(SystemError) -> [UInt8]) {
        self.readChunk = readChunk
    }

    /// Reads from an open descriptor.
    static func fileDescriptor(_ descriptor: FileDescriptor) -> InputReader {
        InputReader { count throws(SystemError) in try descriptor.read(upTo: count) }
    }

    /// Reads the given bytes, then reports the end.
    static func bytes(_ bytes: [UInt8]) -> InputReader {
        let source = ByteSource(bytes)
        return InputReader { count in source.next(count) }
    }

    /// Reads the UTF-8 of `text`.
    static func text(_ text: String) -> InputReader { bytes(Array(text.utf8)) }

    /// Input that is empty, as from `/dev/null`.
    static let empty = InputReader { _ in [] }

    /// Up to `count` more bytes; empty at the end of input.
    ///
    /// - Throws: ``SystemError`` when reading fails.
    func read(upTo count: Int) throws(SystemError) -> [UInt8] {
        try readChunk(count)
    }

    /// Everything up to the end of input, at most `limit` bytes.
    ///
    /// - Throws: ``SystemError`` when reading fails, `EFBIG` when the input is longer than `limit`.
    func readAll(limit: Int = Int.max) throws(SystemError) -> [UInt8] {
        var result: [UInt8] = []
        while true {
            let chunk = try readChunk(65_536)
            if chunk.isEmpty { return result }
            guard chunk.count <= limit - result.count else { throw SystemError("read", path: "<stdin>", code: EFBIG) }
            result += chunk
        }
    }
}

/// The bytes behind ``InputReader/bytes(_:)``, consumed from the front under a lock.
private final class ByteSource: @unchecked Sendable {
    private let lock = NSLock()
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func next(_ count: Int) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        let end = min(offset + max(count, 0), bytes.count)
        defer { offset = end }
        return Array(bytes[offset..<end])
    }
}
