import Foundation

/// The server's live connections, shared by the accepting thread, every connection's thread
/// and ``HTTPServer/stop()``: it owns the count (so the limit holds), the stopping flag and the
/// sockets that a forced stop shuts down. All state is behind one lock.
final class HTTPConnectionRegistry: @unchecked Sendable {
    /// Identifies a registered connection.
    struct ID: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    /// Why a connection was not registered.
    enum Refusal: Error {
        /// Every slot is busy with a request (none idle to close), or the server is stopping.
        case full
        /// This address already holds its share of the slots.
        case addressFull
    }

    private let lock = NSLock()
    private let capacity: Int
    private let perAddress: Int
    private var sockets: [ID: Socket] = [:]
    private var addresses: [ID: String] = [:]
    private var countsByAddress: [String: Int] = [:]
    /// Connections waiting between requests (kept alive): the first to go when slots run short.
    private var idle: Set<ID> = []
    private var nextID: UInt64 = 0
    private var stopping = false
    private var emptyWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    private var nextWaiter: UInt64 = 0
    private var expiredWaiters: Set<UInt64> = []

    init(capacity: Int, perAddress: Int = .max) {
        self.capacity = capacity
        self.perAddress = perAddress
    }

    /// Registers a connection from `address`. When every slot is taken, an idle kept-alive
    /// connection is closed to make room (its client reconnects when it needs to).
    /// - Parameter capped: whether the per-address cap applies (not to a trusted proxy, which
    ///   carries every client's connections and has limits of its own).
    func add(_ socket: Socket, from address: String = "", capped: Bool = true) -> Result<ID, Refusal> {
        lock.lock()
        defer { lock.unlock() }
        guard !stopping else { return .failure(.full) }
        guard !capped || countsByAddress[address, default: 0] < perAddress else { return .failure(.addressFull) }
        if sockets.count >= capacity {
            // Counted until its thread ends: the new connection is admitted above capacity by
            // at most the idle ones closed for it.
            guard let victim = idle.first, let victimSocket = sockets[victim] else { return .failure(.full) }
            idle.remove(victim)
            victimSocket.shutdown(.readWrite)
        }
        nextID += 1
        let id = ID(value: nextID)
        sockets[id] = socket
        addresses[id] = address
        countsByAddress[address, default: 0] += 1
        return .success(id)
    }

    /// Marks a connection as waiting between requests (closable when slots run short), or not.
    func setIdle(_ id: ID, _ isIdle: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard sockets[id] != nil else { return }
        if isIdle { idle.insert(id) } else { idle.remove(id) }
    }

    /// Forgets a connection; call it just before closing its socket.
    func remove(_ id: ID) {
        lock.lock()
        idle.remove(id)
        if let address = addresses.removeValue(forKey: id) {
            let left = countsByAddress[address, default: 1] - 1
            countsByAddress[address] = left > 0 ? left : nil
        }
        sockets[id] = nil
        let waiters = sockets.isEmpty ? Array(emptyWaiters.values) : []
        if sockets.isEmpty { emptyWaiters.removeAll() }
        lock.unlock()
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// The number of connections waiting between requests.
    var idleCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return idle.count
    }

    /// The number of live connections.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return sockets.count
    }

    /// Whether the server is stopping: connections close after their current response.
    var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    /// Refuses new connections and tells the live ones to finish.
    func beginStopping() {
        lock.lock()
        stopping = true
        lock.unlock()
    }

    /// Shuts every live socket down, failing their blocked reads and writes.
    func shutDownAll() {
        lock.lock()
        let live = Array(sockets.values)
        lock.unlock()
        for socket in live { socket.shutdown(.readWrite) }
    }

    /// Waits until no connection is left, or `timeout` passes.
    /// - Returns: whether every connection closed in time.
    func waitUntilEmpty(timeout: Duration) async -> Bool {
        guard let token = makeWaiterToken() else { return true }
        // A Dispatch timer, not a task: the cooperative pool may be busy with blocking work,
        // and the grace period must end on time regardless.
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        let timer = DispatchWorkItem { [self] in resumeWaiter(token, with: false) }
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: timer)
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            lock.lock()
            if sockets.isEmpty || expiredWaiters.contains(token) {
                let empty = sockets.isEmpty
                expiredWaiters.remove(token)
                lock.unlock()
                continuation.resume(returning: empty)
                return
            }
            emptyWaiters[token] = continuation
            lock.unlock()
        }
    }

    /// A token for a new waiter, or `nil` when there is nothing to wait for.
    private func makeWaiterToken() -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        if sockets.isEmpty { return nil }
        nextWaiter += 1
        return nextWaiter
    }

    private func resumeWaiter(_ token: UInt64, with value: Bool) {
        lock.lock()
        let waiter = emptyWaiters.removeValue(forKey: token)
        if waiter == nil && !sockets.isEmpty { expiredWaiters.insert(token) }
        lock.unlock()
        waiter?.resume(returning: value)
    }
}
