import Foundation

/// The server's live connections, shared by the accepting thread, every connection's thread
/// and ``HTTPServer/stop()``: it owns the count (so the limit holds), the stopping flag and the
/// sockets that a forced stop shuts down. All state is behind one lock.
final class HTTPConnectionRegistry: @unchecked Sendable {
    /// Identifies a registered connection.
    struct ID: Hashable, Sendable {
        fileprivate let value: UInt64
    }

    private let lock = NSLock()
    private let capacity: Int
    private var sockets: [ID: Socket] = [:]
    private var nextID: UInt64 = 0
    private var stopping = false
    private var emptyWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    private var nextWaiter: UInt64 = 0
    private var expiredWaiters: Set<UInt64> = []

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Registers a connection; `nil` when the server is full or stopping.
    func add(_ socket: Socket) -> ID? {
        lock.lock()
        defer { lock.unlock() }
        guard !stopping, sockets.count < capacity else { return nil }
        nextID += 1
        let id = ID(value: nextID)
        sockets[id] = socket
        return id
    }

    /// Forgets a connection; call it just before closing its socket.
    func remove(_ id: ID) {
        lock.lock()
        sockets[id] = nil
        let waiters = sockets.isEmpty ? Array(emptyWaiters.values) : []
        if sockets.isEmpty { emptyWaiters.removeAll() }
        lock.unlock()
        for waiter in waiters { waiter.resume(returning: true) }
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
