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

    /// Runs the sync.
    public func run() async throws(SyncError) -> SyncReport {
        let started = Date()
        let shared = transport as? ReplicaAwarePeer
        shared?.prepare(for: replica)
        let peerInfo = try await transport.open()
        do {
            var report = try await exchange(peerInfo: peerInfo, started: started)
            if let found = peerInfo.handEdits {
                report.committedEdits += found.edits.count
                report.peerProblems = found.problems
            }
            if !options.dryRun { await shared?.exchangeSucceeded() }
            await transport.close()
            report.notes = shared?.notes ?? []
            report.requests = (transport as? RequestCounting)?.requestCount
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
        /// The peer's position read through so far, in its own reading order.
        var pulledThrough: UInt64
        /// Where the peer stands as far as this exchange has read it and written to it: what
        /// the checkpoint records. The mark it opened with once a pull has read everything.
        var peerMark: PeerMark?
        /// Whether the pull read every change the peer holds (a hub may leave out a segment that
        /// has not arrived yet: its mark is then not recorded as read).
        var readEverything = true
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
        let valid = try await validCheckpoint(peerInfo: peerInfo, localHead: localHead)
        let checkpoint = valid?.checkpoint
        let plan = SyncPlanner.plan(local: localHead, peer: peerInfo, checkpoint: checkpoint)
        var result = SyncReport(plan: plan)
        result.peer = peerInfo.replica
        result.direction = options.direction
        result.dryRun = options.dryRun
        result.localLatestModification = localHead.latestModification
        result.peerLatestModification = peerInfo.latestModification
        defer { result.duration = Date().timeIntervalSince(started) }
        if plan == .upToDate && pendingJoin == nil {
            result.conflicts = try conflictedKeys()
            result.duration = Date().timeIntervalSince(started)
            report(SyncProgress(phase: .done, completed: 0, total: 0))
            return result
        }
        // Each side is read on from the checkpoint, or from the start.
        let start = plan == .incremental ? (local: checkpoint?.localPosition ?? 0, peer: valid?.peerStart ?? 0) : (local: 0, peer: 0)
        var exchange = try await compareFrontiers(
            peerInfo: peerInfo, checkpoint: checkpoint, plan: plan, start: start, pendingJoin: pendingJoin, localHead: localHead,
            result: &result)
        if options.direction.pulls {
            try await joinIfOffered(&exchange, result: &result)
            if plan == .fullPull && !options.dryRun {
                try await copyAll(&exchange, result: &result)
            } else {
                try await pullChecked(&exchange, result: &result)
            }
            if exchange.readEverything { exchange.peerMark = peerInfo.mark }
        }
        if !options.dryRun && options.policy != .keepBoth && !exchange.touched.isEmpty {
            report(SyncProgress(phase: .resolving, completed: 0, total: nil))
            result.resolved = try resolveConflicts(among: exchange.touched)
        }
        exchange.peerMark = try await push(exchange, result: &result)
        if options.dryRun {
            result.duration = Date().timeIntervalSince(started)
            return result
        }
        try await saveCheckpoints(exchange)
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
        peerInfo: PeerInfo, checkpoint: SyncCheckpoint?, plan: SyncPlan, start: (local: UInt64, peer: UInt64),
        pendingJoin: SnapshotJoins.Join?, localHead: StoreHead, result: inout SyncReport
    ) async throws(SyncError) -> Exchange {
        let localFrontier: ReplicaFrontier
        do { localFrontier = try replica.currentFrontier() } catch { throw .store(error) }
        let peerFrontier = try await transport.frontier()
        if let (origin, counter) = localFrontier.firstDivergence(from: peerFrontier) {
            throw diverged(origin: origin, counter: counter, peerInfo: peerInfo)
        }
        let sharesHistory = localFrontier.knowledge.sortedCounters.contains { peerFrontier.knowledge[$0.0] > 0 }
        if plan == .reconcile && checkpoint == nil && !sharesHistory && localHead.sequence > 0 && !peerInfo.isEmpty {
            result.merging = (replica.recordCount, try await transport.liveRecordCount())
        }
        return Exchange(
            peerInfo: peerInfo, start: start, pendingJoin: pendingJoin,
            localFrontier: localFrontier, peerFrontier: peerFrontier, pulledThrough: start.peer,
            peerMark: plan == .incremental ? checkpoint?.peerMark : nil)
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
