#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which operation, on which path, and the `errno` it returned.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The operation that failed, such as `open` or `fsync`.
    public let operation: String
    /// The path it was applied to, when there was one.
    public let path: String?
    /// The `errno` value.
    public let code: Int32

    public init(_ operation: String, path: String?, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// Captures the current `errno`.
    static func current(_ operation: String, path: String?) -> SystemError {
        SystemError(operation, path: path, code: errno)
    }

    /// The C library's text for the code, e.g. "No such file or directory".
    public var message: String { String(cString: strerror(code)) }

    public var isNotFound: Bool { code == ENOENT }
    public var isAlreadyExists: Bool { code == EEXIST }
    /// Whether a file was larger than the reader accepts (`EFBIG`).
    public var isFileTooLarge: Bool { code == EFBIG }
    public var isNotADirectory: Bool { code == ENOTDIR }
    public var isWouldBlock: Bool { code == EWOULDBLOCK || code == EAGAIN }

    public var description: String {
        if let path { return "\(operation) \(path): \(message)" }
        return "\(operation): \(message)"
    }
}

/// Repeats a system call while it fails with `EINTR`.
@inline(__always)
func retryingOnInterrupt<T: FixedWidthInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}
