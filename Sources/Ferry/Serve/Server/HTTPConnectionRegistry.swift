import Foundation

/// The server's live connections, shared by the accepting thread, every connection's thread
/// and ``HTTPServer/stop()``: it owns the counts (so the limits hold: in all, per address group,
/// per token), the stopping flag, the sockets that a forced stop shuts down, and the choice of
/// which connection to close when a newcomer finds every slot taken. All state is behind one lock.
final class HTTPConnectionRegistry: @unchecked Sendable {
    /// Identifies a registered connection.
    struct ID: Hashable, Sendable {
        fileprivate let value: UInt64

        /// An id for tests of the eviction choice.
        init(testValue: UInt64) {
            value = testValue
        }

        fileprivate init(value: UInt64) {
            self.value = value
        }
    }

    /// Why a connection was not registered.
    enum Refusal: Error {
        /// Every slot is busy (none that may be closed for a newcomer), or the server is stopping.
        case full
        /// This address (or IPv6 /64) already holds its share of the slots.
        case addressFull
    }

    /// What the registry knows of one connection.
    private struct Entry {
        var socket: Socket
        var group: HTTPClientGroup
        var token: String?
        var opened: ContinuousClock.Instant
        /// When its client last sent a byte (when it connected, until it does).
        var lastHeard: ContinuousClock.Instant
        /// Between requests, or not yet started one.
        var idle = true
        /// A request of its is being answered: never closed for a newcomer.
        var answering = false
    }

    /// A connection that may be closed to make room, as ``victim(among:now:protection:)`` sees it.
    struct Candidate: Equatable {
        var id: ID
        /// Connections its address group holds.
        var groupCount: Int
        /// Connections its token holds (0 without one).
        var tokenCount: Int
        var opened: ContinuousClock.Instant
        var lastHeard: ContinuousClock.Instant
    }

    private let lock = NSLock()
    private let capacity: Int
    private let perAddress: Int
    private let perToken: Int
    private let protection: Duration
    private var entries: [ID: Entry] = [:]
    private var countsByGroup: [HTTPClientGroup: Int] = [:]
    private var countsByToken: [String: Int] = [:]
    private var nextID: UInt64 = 0
    private var stopping = false
    private var emptyWaiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    private var nextWaiter: UInt64 = 0
    private var expiredWaiters: Set<UInt64> = []

    /// - Parameters:
    ///   - capacity: the most connections at once.
    ///   - perAddress: the most connections one address (or IPv6 /64) holds.
    ///   - perToken: the most connections that present one token.
    ///   - protection: how long a new connection cannot be closed to make room for another.
    init(capacity: Int, perAddress: Int = .max, perToken: Int = .max, protection: Duration = .milliseconds(100)) {
        self.capacity = capacity
        self.perAddress = perAddress
        self.perToken = perToken
        self.protection = protection
    }

    /// Registers a connection from `group`. When every slot is taken, one that is not being
    /// answered is closed to make room: see ``victim(among:now:protection:)``.
    /// - Parameter capped: whether the per-address cap applies (not to a trusted proxy, which
    ///   carries every client's connections and has limits of its own).
    /// - Returns: the new connection's id and, when one was closed for it, the group it was from.
    func add(
        _ socket: Socket, from group: HTTPClientGroup, capped: Bool = true, now: ContinuousClock.Instant = .now
    ) -> Result<(id: ID, evicted: HTTPClientGroup?), Refusal> {
        lock.lock()
        defer { lock.unlock() }
        guard !stopping else { return .failure(.full) }
        guard !capped || countsByGroup[group, default: 0] < perAddress else { return .failure(.addressFull) }
        var evicted: HTTPClientGroup?
        if entries.count >= capacity {
            let candidates = entries.compactMap { id, entry -> Candidate? in
                guard !entry.answering else { return nil }
                return Candidate(
                    id: id, groupCount: countsByGroup[entry.group, default: 0],
                    tokenCount: entry.token.map { countsByToken[$0, default: 0] } ?? 0, opened: entry.opened,
                    lastHeard: entry.lastHeard)
            }
            // Closed, it stays counted until its thread ends: the newcomer is admitted above
            // capacity by at most the connections closed for it.
            let holding = countsByGroup[group, default: 0]
            guard let victim = Self.victim(among: candidates, now: now, protection: protection, newcomerHolds: holding),
                var entry = entries[victim]
            else { return .failure(.full) }
            entry.answering = true  // (closing: not a candidate again)
            entries[victim] = entry
            entry.socket.shutdown(.readWrite)
            evicted = entry.group
        }
        nextID += 1
        let id = ID(value: nextID)
        entries[id] = Entry(socket: socket, group: group, opened: now, lastHeard: now)
        countsByGroup[group, default: 0] += 1
        return .success((id, evicted))
    }

    /// The connection to close for a newcomer when every slot is taken: from the address group
    /// that holds the most connections (then the token that does), the one that has sent nothing
    /// for longest. A connection younger than `protection` is safe from a newcomer whose own
    /// group holds about as many (`newcomerHolds`, before it): so a client's brand-new
    /// connection is never closed for an attacker's, while a client with one or two
    /// connections can still displace an attacker that reconnects faster than `protection`. And
    /// a newcomer never closes a connection of a group that holds fewer than its own: an
    /// attacker holding 25 slots cannot take a client's only one, even an old one.
    /// `nil` when none may be closed.
    static func victim(
        among candidates: [Candidate], now: ContinuousClock.Instant, protection: Duration, newcomerHolds: Int? = nil
    ) -> ID? {
        candidates
            .filter { candidate in
                let old = candidate.opened.duration(to: now) >= protection
                guard let holds = newcomerHolds else { return old }
                return candidate.groupCount >= holds && (old || (candidate.groupCount - 1) / 2 > holds)
            }
            .min { a, b in
                if a.groupCount != b.groupCount { return a.groupCount > b.groupCount }
                if a.tokenCount != b.tokenCount { return a.tokenCount > b.tokenCount }
                return a.lastHeard < b.lastHeard
            }?.id
    }

    /// Notes that the client of `id` sent bytes.
    func heard(_ id: ID, at now: ContinuousClock.Instant = .now) {
        lock.lock()
        defer { lock.unlock() }
        entries[id]?.lastHeard = now
    }

    /// Marks a connection as waiting between requests, or not.
    func setIdle(_ id: ID, _ isIdle: Bool) {
        lock.lock()
        defer { lock.unlock() }
        entries[id]?.idle = isIdle
    }

    /// Marks a connection as being answered (never closed for a newcomer then), or not.
    func setAnswering(_ id: ID, _ answering: Bool) {
        lock.lock()
        defer { lock.unlock() }
        entries[id]?.answering = answering
    }

    /// Counts the connection against `token` (a key for the bearer token its request presents);
    /// false, and nothing counted, when that token already holds its share of the slots.
    func present(_ id: ID, token: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard var entry = entries[id] else { return false }
        if entry.token == token { return true }
        guard countsByToken[token, default: 0] < perToken else { return false }
        if let old = entry.token { decrement(&countsByToken, old) }
        entry.token = token
        entries[id] = entry
        countsByToken[token, default: 0] += 1
        return true
    }

    private func decrement<Key: Hashable>(_ counts: inout [Key: Int], _ key: Key) {
        let left = counts[key, default: 1] - 1
        counts[key] = left > 0 ? left : nil
    }

    /// Forgets a connection; call it just before closing its socket.
    func remove(_ id: ID) {
        lock.lock()
        if let entry = entries.removeValue(forKey: id) {
            decrement(&countsByGroup, entry.group)
            if let token = entry.token { decrement(&countsByToken, token) }
        }
        let waiters = entries.isEmpty ? Array(emptyWaiters.values) : []
        if entries.isEmpty { emptyWaiters.removeAll() }
        lock.unlock()
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// The number of connections waiting between requests.
    var idleCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.values.filter { $0.idle && !$0.answering }.count
    }

    /// The number of connections whose request is being answered.
    var answeringCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.values.filter(\.answering).count
    }

    /// The number of live connections.
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
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
        let live = entries.values.map(\.socket)
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
            if entries.isEmpty || expiredWaiters.contains(token) {
                let empty = entries.isEmpty
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
        if entries.isEmpty { return nil }
        nextWaiter += 1
        return nextWaiter
    }

    private func resumeWaiter(_ token: UInt64, with value: Bool) {
        lock.lock()
        let waiter = emptyWaiters.removeValue(forKey: token)
        if waiter == nil && !entries.isEmpty { expiredWaiters.insert(token) }
        lock.unlock()
        waiter?.resume(returning: value)
    }
}
