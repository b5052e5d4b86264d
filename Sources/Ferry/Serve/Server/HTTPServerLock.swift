import Foundation

/// A value behind a lock: the one owner of a piece of state that several threads share.
///
/// ```swift
/// let count = HTTPServerLock(0)
/// count.withLock { $0 += 1 }
/// ```
final class HTTPServerLock<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
