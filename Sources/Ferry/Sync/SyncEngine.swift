import Foundation

/// Runs one sync between a store and a peer reached through a ``SyncTransport``: plans,
/// pulls, resolves by policy, pushes, and writes the checkpoint last.
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
    /// ``runRounds(started:)``).
    public func run() async throws(SyncError) -> SyncReport {
        let started = Date()
        let shared = transport as? ReplicaAwarePeer
        shared?.prepare(for: replica)
        var report = try await runRounds(started: started)
        do {
            if !options.dryRun { try await shared?.exchangeSucceeded() }
        } catch {
            await transport.close()
            throw error
        }
        await transport.close()
        report.notes = (shared?.notes ?? []) + report.notes
        report.requests = (transport as? RequestCounting)?.requestCount
        return report
    }

    /// Opens the peer and exchanges; while a push met newer versions at the peer
    /// (``ReceiveResult/deferred``: another client wrote those records since they were
    /// pulled), opens it again and exchanges again, so the newer versions come in as conflicts,
    /// the policy resolves them and the result is pushed: at most ``SyncOptions/maximumRounds``
    /// in all. What is still deferred waits for the next sync, and the report says so. The
    /// peer is opened again for each round without a close in between (it stays locked for the
    /// whole sync), and left open (closed when an exchange fails; one that fails to open is not).
    private func runRounds(started: Date) async throws(SyncError) -> SyncReport {
        var report = try await openAndExchange(started: started)
        while !report.deferred.isEmpty && report.rounds < options.maximumRounds && options.direction.pulls && !options.dryRun {
            let next = try await openAndExchange(started: started)
            report.add(round: next)
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
    private func openAndExchange(started: Date) async throws(SyncError) -> SyncReport {
        let peerInfo = try await transport.open()
        do {
            var report = try await exchange(peerInfo: peerInfo, started: started)
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

    /// What the steps of one exchange hand on to the next.
    struct Exchange {
        let peerInfo: PeerInfo
        /// Where each side's changes are read from: the checkpoint's positions, or the start.
        let start: (local: UInt64, peer: UInt64)
        let pendingJoin: SnapshotJoins.Join?
        var localFrontier: ReplicaFrontier
        let peerFrontier: ReplicaFrontier
        /// The peer's journal position read through so far.
        var pulledThrough: UInt64
        /// Records a pull or join wrote, for a resolving policy.
        var touched = Set<RecordKey>()

        var localKnowledge: VersionVector { localFrontier.knowledge }
    }

    /// The steps of one exchange, in order: check the peer, plan, compare frontiers, join from
    /// a snapshot, pull, resolve, push, and write the checkpoints last.
    private func exchange(peerInfo: PeerInfo, started: Date) async throws(SyncError) -> SyncReport {
        try checkIdentity(of: peerInfo)
        do { try replica.beginExchange() } catch { throw .store(error) }
        defer { replica.endExchange() }
        let pendingJoin: SnapshotJoins.Join?
        do { pendingJoin = try replica.pendingJoin() } catch { throw .store(error) }
        if let pendingJoin, pendingJoin.source != peerInfo.replica {
            throw .joinInProgress(store: replica.location, hub: pendingJoin.location)
        }
        report(SyncProgress(phase: .planning, completed: 0, total: nil))

        let localHead = replica.head
        let checkpoint = try await validCheckpoint(peerInfo: peerInfo, localHead: localHead)
        let plan = SyncPlanner.plan(local: localHead, peer: peerInfo.head, checkpoint: checkpoint)
        var result = SyncReport(plan: plan)
        result.peer = peerInfo.replica
        result.direction = options.direction
        result.dryRun = options.dryRun
        result.localLatestModification = localHead.latestModification
        result.peerLatestModification = peerInfo.head.latestModification
        defer { result.duration = Date().timeIntervalSince(started) }
        if plan == .upToDate && pendingJoin == nil {
            result.conflicts = try conflictedKeys()
            result.duration = Date().timeIntervalSince(started)
            report(SyncProgress(phase: .done, completed: 0, total: 0))
            return result
        }
        var exchange = try await compareFrontiers(
            peerInfo: peerInfo, checkpoint: checkpoint, plan: plan, pendingJoin: pendingJoin, localHead: localHead, result: &result)
        if options.direction.pulls {
            try await joinIfOffered(&exchange, result: &result)
            if plan == .fullPull && !options.dryRun {
                try await copyAll(&exchange, result: &result)
            } else {
                try await pullChecked(&exchange, result: &result)
            }
        }
        if !options.dryRun && options.policy != .keepBoth && !exchange.touched.isEmpty {
            report(SyncProgress(phase: .resolving, completed: 0, total: nil))
            result.resolved = try resolveConflicts(among: exchange.touched)
        }
        let peerMark = try await push(exchange, result: &result)
        if options.dryRun {
            result.duration = Date().timeIntervalSince(started)
            return result
        }
        try await saveCheckpoints(exchange, peerPosition: peerMark.position, peerHash: peerMark.hash, peerTookAll: result.waiting.isEmpty)
        result.conflicts = try conflictedKeys()
        result.duration = Date().timeIntervalSince(started)
        report(SyncProgress(phase: .done, completed: result.pulled + result.pushed, total: nil))
        return result
    }

    /// Refuses a peer that is this store (or a copy of it), or of another format.
    private func checkIdentity(of peerInfo: PeerInfo) throws(SyncError) {
        if peerInfo.replica == replica.replicaID {
            if let theirs = peerInfo.instance, let ours = replica.instance, theirs != ours {
                throw .copiedStore(local: replica.location, peer: transport.peerDescription)
            }
            throw .samePeer(path: transport.peerDescription)
        }
        guard peerInfo.format == StoreManifest.currentFormat else {
            throw .store(.unsupportedFormat(peerInfo.format, path: transport.peerDescription))
        }
    }

    /// Both frontiers first: a change both sides believe the other has, held with different
    /// content, is a copied store that no exchange of changes would reveal.
    private func compareFrontiers(
        peerInfo: PeerInfo, checkpoint: SyncCheckpoint?, plan: SyncPlan, pendingJoin: SnapshotJoins.Join?, localHead: StoreHead,
        result: inout SyncReport
    ) async throws(SyncError) -> Exchange {
        let start = SyncPlanner.startPositions(for: plan, checkpoint: checkpoint)
        let localFrontier: ReplicaFrontier
        do { localFrontier = try replica.currentFrontier() } catch { throw .store(error) }
        let peerFrontier = try await transport.frontier()
        if let (origin, counter) = localFrontier.firstDivergence(from: peerFrontier) {
            throw diverged(origin: origin, counter: counter, peerInfo: peerInfo)
        }
        let sharesHistory = localFrontier.knowledge.sortedCounters.contains { peerFrontier.knowledge[$0.0] > 0 }
        if plan == .reconcile && checkpoint == nil && !sharesHistory && localHead.sequence > 0 && peerInfo.head.sequence > 0 {
            result.merging = (replica.recordCount, try await transport.liveRecordCount())
        }
        return Exchange(
            peerInfo: peerInfo, start: start, pendingJoin: pendingJoin,
            localFrontier: localFrontier, peerFrontier: peerFrontier, pulledThrough: start.peer)
    }

    /// The records in conflict here now.
    func conflictedKeys() throws(SyncError) -> [RecordKey] {
        do { return try replica.conflicts().map(\.key) } catch { throw .store(error) }
    }

    /// Applies the lww or merge policy to the conflicted records among `keys`.
    func resolveConflicts(among keys: Set<RecordKey>) throws(SyncError) -> Int {
        do { return try replica.resolveConflicts(among: keys, policy: options.policy) } catch { throw .store(error) }
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
