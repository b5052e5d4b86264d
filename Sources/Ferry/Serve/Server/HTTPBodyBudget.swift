import Foundation

/// The bytes of request bodies all connections may hold at once, and each client (an address
/// group, a token) of them: a request reserves what it holds as its bytes arrive and as its
/// consumer parses them, never what it announces, and gives it back when answered. A body that
/// would take more than is left, in all or of its clients' shares, is answered `503`, so memory
/// stays bounded whatever clients send, and one client cannot take what the others need.
///
/// ```swift
/// let budget = HTTPBodyBudget(capacity: 256 << 20, perClient: 128 << 20)
/// guard budget.reserve(more, for: ["127.0.0.2", "token:…"]) else { return reject(.serviceUnavailable) }
/// defer { budget.release(held, for: ["127.0.0.2", "token:…"]) }
/// ```
final class HTTPBodyBudget: @unchecked Sendable {
    private let lock = NSLock()
    /// The bytes all connections may hold at once.
    let capacity: Int
    /// The bytes the requests of one client (address group, token) may hold at once.
    let perClient: Int
    private var reserved = 0
    private var reservedByClient: [String: Int] = [:]

    init(capacity: Int, perClient: Int = .max) {
        self.capacity = capacity
        self.perClient = perClient
    }

    /// Takes `bytes` from the budget and from each of `clients`' shares; false (and nothing
    /// taken) when they do not fit.
    func reserve(_ bytes: Int, for clients: [String] = []) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard bytes <= capacity - reserved else { return false }
        for client in clients where bytes > perClient - reservedByClient[client, default: 0] { return false }
        reserved += bytes
        for client in clients { reservedByClient[client, default: 0] += bytes }
        return true
    }

    /// Gives back bytes taken with ``reserve(_:for:)``, with the same `clients`.
    func release(_ bytes: Int, for clients: [String] = []) {
        guard bytes > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        reserved = max(0, reserved - bytes)
        for client in clients {
            let left = reservedByClient[client, default: 0] - bytes
            reservedByClient[client] = left > 0 ? left : nil
        }
    }

    /// The bytes reserved now.
    var inUse: Int {
        lock.lock()
        defer { lock.unlock() }
        return reserved
    }
}
