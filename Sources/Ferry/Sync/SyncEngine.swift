import Foundation

/// Runs one sync between a store and a peer reached through a ``SyncTransport``: a
/// ``SyncSession`` decides each step (plan, frontiers, snapshot, pull, resolve, push,
/// checkpoints last), and a driver performs it: one that writes, or for a dry run one that
/// reads, checks and counts and writes nothing.
///
/// ```swift
/// let engine = SyncEngine(store: laptop, transport: FolderTransport(path: "/media/usb/data"))
/// let report = try await engine.run()
/// ```
public struct SyncEngine: Sendable {
    /// The replica the sync runs for: a store, or a ``MemoryReplica``.
    public let replica: any SyncReplica
    public let transport: any SyncTransport
    public let options: SyncOptions

    public init(replica: any SyncReplica, transport: any SyncTransport, options: SyncOptions = SyncOptions()) {
        self.replica = replica
        self.transport = transport
        self.options = options
    }

    public init(store: Store, transport: any SyncTransport, options: SyncOptions = SyncOptions()) {
        self.init(replica: store, transport: transport, options: options)
    }

    /// Runs the sync: one exchange, and more rounds while the peer defers records (see
    /// ``runRounds(driver:)``).
    public func run() async throws(SyncError) -> SyncReport {
        let started = Date()
        let shared = transport as? ReplicaAwarePeer
        shared?.prepare(for: replica)
        let driver: any SyncDriver = options.dryRun ? DryRunSyncDriver(engine: self) : LiveSyncDriver(engine: self)
        var report = try await runRounds(driver: driver)
        do { try await driver.succeeded() } catch {
            await transport.close()
            throw error
        }
        await transport.close()
        report.duration = Date().timeIntervalSince(started)
        report.notes = (shared?.notes ?? []) + report.notes
        report.requests = (transport as? RequestCounting)?.requestCount
        return report
    }

    /// Opens the peer and exchanges; while a push met newer versions at the peer
    /// (``PushResult/deferred``: another client wrote those records since they were pulled),
    /// opens it again and exchanges again, so the newer versions come in as conflicts, the
    /// policy resolves them and the result is pushed: at most ``SyncOptions/maximumRounds`` in
    /// all. What is still deferred waits for the next sync, and the report says so. The peer is
    /// opened again for each round without a close in between (it stays locked for the whole
    /// sync), and left open (closed when an exchange fails; one that fails to open is not).
    private func runRounds(driver: any SyncDriver) async throws(SyncError) -> SyncReport {
        var report = try await openAndExchange(driver: driver)
        while !report.deferred.isEmpty && report.rounds < options.maximumRounds && options.direction.pulls {
            report.add(round: try await openAndExchange(driver: driver))
        }
        if !report.deferred.isEmpty {
            let count = report.deferred.count
            report.notes.append(
                "\(count) record\(count == 1 ? "" : "s") changed on \(transport.peerDescription) again while this sync ran; "
                    + "the next sync pushes \(count == 1 ? "it" : "them")")
        }
        return report
    }

    /// Opens the peer and runs one exchange; closes the peer when the exchange fails.
    private func openAndExchange(driver: any SyncDriver) async throws(SyncError) -> SyncReport {
        let peerInfo = try await transport.open()
        do {
            var report = try await exchange(peerInfo: peerInfo, driver: driver)
            if let found = peerInfo.handEdits {
                report.committedEdits += found.edits.count
                report.peerProblems = found.problems
            }
            return report
        } catch {
            await transport.close()
            throw error
        }
    }

    func report(_ progress: SyncProgress) {
        options.progress?(progress)
    }

    /// What the steps of one exchange read and hand on to the next (the session keeps the
    /// decisions: the plan, where each side starts, the peer's mark).
    struct Exchange {
        let peerInfo: PeerInfo
        /// Where each side's changes are read from: the checkpoint's positions, or the start.
        var start = SyncSession.Start(local: 0, peer: 0)
        let pendingJoin: SnapshotJoins.Join?
        var localFrontier = ReplicaFrontier(knowledge: VersionVector(), digests: [:])
        var peerFrontier = ReplicaFrontier(knowledge: VersionVector(), digests: [:])
        /// The peer's position read through so far, in its own reading order.
        var pulledThrough: UInt64 = 0
        /// Whether the pull read every change the peer holds (a hub may leave out a segment
        /// that has not arrived yet: its mark is then not recorded as read).
        var readEverything = true
        /// Records a pull or join wrote, for a resolving policy.
        var touched = Set<RecordKey>()
        /// Records the pull would leave conflicted once the policy settled what it can (a dry
        /// run's prediction).
        var predictedConflicts = Set<RecordKey>()
        /// The peer's changes kept out for their stamps.
        var quarantine: SkewQuarantine

        var localKnowledge: VersionVector { localFrontier.knowledge }
    }

    /// One exchange: the session says what to do, the driver does it, until the session is done.
    private func exchange(peerInfo: PeerInfo, driver: any SyncDriver) async throws(SyncError) -> SyncReport {
        var session = SyncSession(
            replica: replica.replicaID, instance: replica.instance, location: replica.location,
            peerDescription: transport.peerDescription, direction: options.direction, policy: options.policy)
        try session.check(peerInfo)
        do { try replica.beginExchange() } catch { throw .store(error) }
        defer { replica.endExchange() }
        let local = try await localState(for: peerInfo)
        var action = try session.handle(.opened(peerInfo, local: local))
        report(SyncProgress(phase: .planning, completed: 0, total: nil))
        var result = SyncReport(plan: session.plan ?? .reconcile)
        result.peer = peerInfo.replica
        result.direction = options.direction
        result.dryRun = options.dryRun
        result.localLatestModification = local.head.latestModification
        result.peerLatestModification = peerInfo.latestModification
        var exchange = Exchange(
            peerInfo: peerInfo, pendingJoin: local.pendingJoin, quarantine: SkewQuarantine(limit: options.maximumClockSkewMilliseconds))
        while true {
            let event: SyncSession.Event
            switch action {
            case .compareFrontiers(let start):
                exchange.start = start
                exchange.pulledThrough = start.peer
                try await compareFrontiers(&exchange, plan: result.plan, checkpoint: local.checkpoint, localHead: local.head, result: &result)
                event = .frontiersCompared
            case .join:
                try await driver.join(&exchange, result: &result)
                event = .joined
            case .pull(let copyingAll):
                try await driver.pull(&exchange, copyingAll: copyingAll, result: &result)
                result.notes += exchange.quarantine.notes(peer: transport.peerDescription)
                event = .pulled(readEverything: exchange.readEverything, wroteRecords: !exchange.touched.isEmpty)
            case .resolve:
                try driver.resolve(exchange, result: &result)
                event = .resolved
            case .push(let mark):
                let after = try await driver.push(exchange, continuing: mark, result: &result)
                event = .pushed(mark: after, tookAll: result.waiting.isEmpty)
            case .saveCheckpoints(let checkpoints):
                try await driver.saveCheckpoints(checkpoints, exchange: exchange)
                event = .checkpointsSaved
            case .finish:
                try await driver.finish(exchange, result: &result)
                return result
            }
            action = try session.handle(event)
        }
    }

    /// This store's head, pending join and checkpoint for the peer (when it still holds).
    private func localState(for peerInfo: PeerInfo) async throws(SyncError) -> SyncSession.LocalState {
        let pendingJoin: SnapshotJoins.Join?
        do { pendingJoin = try replica.pendingJoin() } catch { throw .store(error) }
        let head = replica.head
        let valid = try await validCheckpoint(peerInfo: peerInfo, localHead: head)
        return SyncSession.LocalState(head: head, pendingJoin: pendingJoin, checkpoint: valid?.checkpoint, peerStart: valid?.peerStart ?? 0)
    }

    /// Both frontiers first: a change both sides believe the other has, held with different
    /// content, is a copied store that no exchange of changes would reveal.
    private func compareFrontiers(
        _ exchange: inout Exchange, plan: SyncPlan, checkpoint: SyncCheckpoint?, localHead: StoreHead, result: inout SyncReport
    ) async throws(SyncError) {
        do { exchange.localFrontier = try replica.currentFrontier() } catch { throw .store(error) }
        exchange.peerFrontier = try await transport.frontier()
        if let (origin, counter) = exchange.localFrontier.firstDivergence(from: exchange.peerFrontier) {
            throw diverged(origin: origin, counter: counter, peerInfo: exchange.peerInfo)
        }
        let peerKnowledge = exchange.peerFrontier.knowledge
        let sharesHistory = exchange.localFrontier.knowledge.sortedCounters.contains { peerKnowledge[$0.0] > 0 }
        if plan == .reconcile && checkpoint == nil && !sharesHistory && localHead.sequence > 0 && !exchange.peerInfo.isEmpty {
            result.merging = (replica.recordCount, try await transport.liveRecordCount())
        }
    }

    /// The records in conflict here now.
    func conflictedKeys() throws(SyncError) -> [RecordKey] {
        do { return try replica.conflicts().map(\.key) } catch { throw .store(error) }
    }
}

extension Store {
    /// Syncs this store with a peer through `transport`.
    ///
    /// ```swift
    /// let report = try await store.sync(with: FolderTransport(path: "/media/usb/data"), policy: .keepBoth)
    /// print(report.plan, report.pulled, report.pushed, report.conflicts.count)
    /// ```
    public func sync(with transport: any SyncTransport, policy: ConflictPolicy = .keepBoth) async throws(SyncError) -> SyncReport {
        var options = SyncOptions(policy: policy)
        options.policy = policy
        return try await SyncEngine(store: self, transport: transport, options: options).run()
    }

    /// Syncs with options (dry run, force, progress).
    public func sync(with transport: any SyncTransport, options: SyncOptions) async throws(SyncError) -> SyncReport {
        try await SyncEngine(store: self, transport: transport, options: options).run()
    }
}
