import Foundation

/// A sync loop that an app starts and stops: what `ferry sync --watch` does, in the library.
/// A round (hand edits journaled, then a sync, as a default `ferry sync`) runs when the store
/// changes, when the peer says it changed, when ``wake()`` is called, and at least every
/// interval; every outcome comes out of ``events``.
///
/// ```swift
/// let live = LiveSync(store: store, peer: try PeerAddress.parse("/Volumes/usb/notes"))
/// live.start()
/// Task {
///     for await event in live.events {
///         if case .failed(let error) = event { status = "\(error)" }
///     }
/// }
/// // … later, when the app goes to the background:
/// await live.stop()
/// ```
///
/// It waits on the kernel, not on a timer: the store's ``StoreWatcher`` (a write, a change
/// received, a hand edit of a record file), the peer's folder when the peer is another store
/// or a hub folder (a cloud drive's late arrival too), and the deadline of the interval. An
/// S3 hub cannot tell anyone of a change, so its heads are listed on a ``PollSchedule``:
/// about a second after activity, twice as long after each quiet round, up to the interval (at
/// the default 30 s, 120 requests an idle hour). A served store or an app backend wakes it
/// through ``wake()`` (its change feed). Where the platform has no inotify, the store's head
/// is looked at every 200 ms instead, and a ``Event/note(_:)`` says so.
///
/// Reasons gather while a round runs and make one round after it, so a burst of writes is a
/// few rounds, not one each. An error is said once until it changes and the loop goes on,
/// trying again after a second, then twice as long each time up to the interval (the peer may
/// come back); a mass-deletion refusal, which only the user can lift, is said every time.
/// Call ``stop()`` when done: until then the loop and its watchers hold the object.
public final class LiveSync: @unchecked Sendable {
    /// How a live sync runs.
    public struct Options: Sendable {
        /// How each round syncs (policy, direction, deletion guard …).
        public var sync = SyncOptions()
        /// The longest time between rounds.
        public var interval: Duration = .seconds(30)
        /// A polled peer's (an S3 hub's) delay after activity, doubled after each quiet round up to ``interval``.
        public var firstPoll: Duration = .seconds(1)
        /// Whether each round journals hand edits of record files first, here and in a peer
        /// store, as a default `ferry sync` does.
        public var commitsHandEdits = true
        /// How a peer store's folder is opened.
        public var storeOptions = StoreOptions()
        /// What a peer reached over the network is reached through (`FerryURLSession`).
        public var httpClient: (any HTTPClient)?
        /// How to reach an S3 hub; `nil` reads the AWS CLI's variables and files.
        public var s3: S3Configuration?
        /// What to sync with an app backend, and as whom.
        public var backend: BackendPeer.Settings?

        public init() {}
    }

    /// The store this loop syncs.
    public let store: Store
    /// The peer it syncs with.
    public let peer: PeerAddress
    /// How it runs.
    public let options: Options
    /// Every round, failure and note, as they happen, until ``stop()``; one consumer.
    public let events: AsyncStream<Event>

    private let continuation: AsyncStream<Event>.Continuation
    private let round: @Sendable () async throws -> SyncReport
    private let signal = LiveWakeSignal()
    private let lock = NSLock()
    private var loop: Task<Void, Never>?
    /// The watchers and the tasks that turn what they say into causes; guarded by `lock`.
    private var storeWatchers: [StoreWatcher] = []
    /// Publishers of what changed by hand, so each round's commit reads them instead of scanning.
    private var monitors: [HandEditMonitor] = []
    private var hubWatcher: HubFolderWatcher?
    private var forwarders: [Task<Void, Never>] = []

    /// A loop that syncs `store` with `peer`, each round as a default sync does: hand edits
    /// journaled first, then ``Store/sync(with:options:)``. Nothing runs before ``start()``.
    /// - Parameters:
    ///   - store: the local store.
    ///   - peer: where to sync (``PeerAddress/parse(_:token:resolvingFolder:)``).
    ///   - options: the sync's options, the interval, and how to reach a remote peer.
    public convenience init(store: Store, peer: PeerAddress, options: Options = Options()) {
        // An app backend is reached through one peer for every round, which signs in once;
        // failing here, each round makes its own and says why it cannot.
        var backend: (any SyncTransport)?
        if case .backend = peer {
            backend = try? peer.makeTransport(options: options.storeOptions, httpClient: options.httpClient, backend: options.backend)
        }
        self.init(store: store, peer: peer, options: options) { [backend] in
            try await Self.defaultRound(store: store, peer: peer, options: options, transport: backend)
        }
    }

    /// A loop whose rounds are `round` (the CLI's, which says more as it goes).
    package init(store: Store, peer: PeerAddress, options: Options, round: @escaping @Sendable () async throws -> SyncReport) {
        self.store = store
        self.peer = peer
        self.options = options
        self.round = round
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(1024))
    }

    /// Starts watching and the first round. Calling it again, or after ``stop()``, does nothing.
    public func start() {
        lock.lock()
        defer { lock.unlock() }
        guard loop == nil, !signal.isClosed else { return }
        startWatchers()
        loop = Task { await self.run() }
    }

    /// Asks for a round now (a realtime event, a server's push, a pull-to-refresh).
    public func wake() {
        signal.raise(.woken)
    }

    /// Stops the loop: a round in progress finishes (a sync may stop anywhere, but its report
    /// stays honest), the watchers' threads end, and ``events`` finishes.
    public func stop() async {
        signal.close()
        let running = lock.withLock { loop }
        await running?.value
        lock.withLock {
            for task in forwarders { task.cancel() }
            forwarders = []
            for watcher in storeWatchers { watcher.stop() }
            for monitor in monitors { monitor.stop() }
            monitors = []
            hubWatcher?.stop()
        }
        continuation.finish()
    }

    /// Whether a watcher's thread still reads (for the tests that check ``stop()`` ends them).
    var isWatching: Bool {
        lock.withLock { storeWatchers.contains { $0.isReading } || hubWatcher?.isReading == true }
    }

    /// Whether `error` is a refusal that only the user can lift, said on every round.
    public static func waitsForTheUser(_ error: any Error) -> Bool {
        if case .massDeletion? = error as? SyncError { return true }
        return false
    }

    private var pollsPeer: Bool {
        if case .s3Hub = peer { return true }
        return false
    }

    private func run() async {
        var causes: Set<Cause> = [.started]
        var lastError: String?
        var quietRounds = 0
        var failures = 0
        let schedule = PollSchedule(first: options.firstPoll, interval: options.interval)
        while !signal.isClosed {
            do {
                LiveTrace.note("round starts (\(causes))")
                defer { LiveTrace.note("round ends") }
                let report = try await round()
                quietRounds = Self.quietRounds(after: quietRounds, changedAnything: report.changedAnything, causes: causes)
                // What an idle round costs: one with nothing to exchange (the first round may
                // read what later ones find cached).
                let idle = pollsPeer && report.plan == .upToDate && !causes.contains(.started)
                let idleCost = idle ? schedule.requestsPerIdleHour(requestsPerRound: report.requests ?? 1) : nil
                continuation.yield(.synced(Round(report: report, causes: causes, afterError: lastError != nil, requestsPerIdleHour: idleCost)))
                lastError = nil
                failures = 0
            } catch {
                let message = "\(error)"
                if message != lastError || Self.waitsForTheUser(error) { continuation.yield(.failed(error)) }
                lastError = message
                quietRounds += 1
                failures += 1
            }
            // After a failure, again soon (what failed may have been passing: a peer written
            // to meanwhile, a network blip), then less often, up to the interval.
            let delay = failures > 0 ? schedule.delay(afterQuietRounds: failures - 1)
                : pollsPeer ? schedule.delay(afterQuietRounds: quietRounds) : options.interval
            causes = await signal.wait(timeout: delay)
        }
    }

    /// The quiet rounds in a row after a round (what ``PollSchedule`` backs off by): none once
    /// something moved; one more after a quiet round, except one woken only by this store's
    /// own writes (the echo of the round before, which moved something), so that the next look
    /// at a polled peer is still a second away.
    static func quietRounds(after quietRounds: Int, changedAnything: Bool, causes: Set<Cause>) -> Int {
        if changedAnything { return 0 }
        return causes == [.storeChanged] ? quietRounds : quietRounds + 1
    }

    /// Starts what tells the loop of a change: the store's watcher, and the peer's where the
    /// kernel can tell. The lock is held.
    private func startWatchers() {
        startMonitor(of: store.path)
        do {
            let watcher = try StoreWatcher(storeAt: store.path)
            storeWatchers.append(watcher)
            forwarders.append(forward(watcher, as: .storeChanged))
        } catch {
            continuation.yield(.note("\(store.path) cannot be watched (\(error)): its journal is looked at every 200 ms, and hand edits are journaled at the interval"))
            forwarders.append(pollHead())
        }
        switch peer {
        case .store(let path):
            startMonitor(of: path)
            do {
                let watcher = try StoreWatcher(storeAt: path)
                storeWatchers.append(watcher)
                forwarders.append(forward(watcher, as: .peerChanged))
            } catch {
                continuation.yield(.note("\(path) cannot be watched (\(error)): its changes come at the interval"))
            }
        case .hubFolder(let path):
            do {
                hubWatcher = try HubFolderWatcher(root: path, ownReplica: store.replicaID) { [signal] in signal.raise(.peerChanged) }
            } catch {
                continuation.yield(.note("\(path) cannot be watched (\(error)): its changes come at the interval"))
            }
        case .s3Hub:
            let schedule = PollSchedule(first: options.firstPoll, interval: options.interval)
            continuation.yield(.note(
                "an S3 hub tells no one of a change: its heads are listed \(Self.text(schedule.first)) after activity, "
                    + "then twice as long each quiet round, up to every \(Self.text(schedule.interval))"))
        case .served:
            // The server's change feed says when its journal grew.
            do {
                let transport = try peer.makeTransport(options: options.storeOptions, httpClient: options.httpClient)
                if let served = transport as? HTTPTransport {
                    forwarders.append(
                        ServedFeedFollower(
                            feed: served.changeFeed, interval: options.interval, wake: { [signal] in signal.raise(.peerChanged) },
                            note: { [continuation] in continuation.yield(.note($0)) }
                        ).start())
                }
            } catch {
                continuation.yield(.note("\(peer) cannot be followed (\(error)): its changes come at the interval"))
            }
        case .backend:
            // An app backend's realtime feed calls `wake()` (the CLI's `RealtimeListener`).
            break
        }
    }

    /// Publishes the hand edits of the store at `path` while the loop runs, so a round's commit
    /// examines only those files (see ``HandEditMonitor``). None when a `ferry watch` already
    /// publishes them, or the kernel cannot tell: the commit then scans, as without a monitor.
    /// The lock is held.
    private func startMonitor(of path: String) {
        do {
            monitors.append(try HandEditMonitor(storeAt: path))
        } catch .alreadyRunning {
            return
        } catch {
            continuation.yield(.note("\(error); each round looks at every record file of \(path) for hand edits"))
        }
    }

    private func forward(_ watcher: StoreWatcher, as cause: Cause) -> Task<Void, Never> {
        Task { [signal] in
            while let changes = await watcher.changes() {
                if !changes.isEmpty { signal.raise(cause) }
            }
        }
    }

    /// Where the store cannot be watched: its head, every 200 ms.
    private func pollHead() -> Task<Void, Never> {
        Task { [signal, store] in
            var last = store.head
            while !Task.isCancelled {
                do { try await Task.sleep(for: .milliseconds(200)) } catch { return }
                let head = store.head
                if head != last { signal.raise(.storeChanged) }
                last = head
            }
        }
    }

    /// One round as a default `ferry sync`: hand edits journaled here (and, by the folder
    /// transport, in a peer store), then the sync, through `transport` or one made for it.
    static func defaultRound(
        store: Store, peer: PeerAddress, options: Options, transport: (any SyncTransport)? = nil
    ) async throws -> SyncReport {
        var committed = 0
        if options.commitsHandEdits && options.sync.direction.pulls { committed = try store.commit().committed.count }
        let handEdits: FolderTransport.HandEdits = options.commitsHandEdits && options.sync.direction.pushes ? .commit : .leave
        let transport = try transport ?? peer.makeTransport(
            options: options.storeOptions, httpClient: options.httpClient, handEdits: handEdits, s3: options.s3, backend: options.backend)
        var report = try await store.sync(with: transport, options: options.sync)
        report.committedEdits += committed
        return report
    }

    /// A duration as people read it: `1 s`, `30 s`, `0.5 s`.
    static func text(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
