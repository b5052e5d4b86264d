import Foundation

/// The bytes of request bodies all connections may hold at once: a request reserves its
/// declared length (or its route's limit, for a chunked body) before its body is read, and
/// gives it back when answered. When the budget is spent, a new body is answered `503` at once,
/// so memory stays bounded whatever clients send.
///
/// ```swift
/// let budget = HTTPBodyBudget(capacity: 256 << 20)
/// guard budget.reserve(length) else { return reject(.serviceUnavailable) }
/// defer { budget.release(length) }
/// ```
final class HTTPBodyBudget: @unchecked Sendable {
    private let lock = NSLock()
    /// The bytes all connections may hold at once.
    let capacity: Int
    private var reserved = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Takes `bytes` from the budget; false (and nothing taken) when they do not fit.
    func reserve(_ bytes: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard bytes <= capacity - reserved else { return false }
        reserved += bytes
        return true
    }

    /// Gives back bytes taken with ``reserve(_:)``.
    func release(_ bytes: Int) {
        lock.lock()
        defer { lock.unlock() }
        reserved = max(0, reserved - bytes)
    }

    /// The bytes reserved now.
    var inUse: Int {
        lock.lock()
        defer { lock.unlock() }
        return reserved
    }
}
