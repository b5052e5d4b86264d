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
        transport.prepare(for: replica)
        let peerInfo = try await transport.open()
        do {
            var report = try await exchange(peerInfo: peerInfo, started: started)
            if let found = peerInfo.handEdits {
                report.committedEdits += found.edits.count
                report.peerProblems = found.problems
            }
            if !options.dryRun { await transport.exchangeSucceeded() }
            await transport.close()
            report.notes = transport.notes
            report.requests = transport.requestCount
            return report
        } catch {
            await transport.close()
            throw error
        }
    }

    private func report(_ progress: SyncProgress) {
        options.progress?(progress)
    }

    /// What the steps of one exchange hand on to the next.
    struct Exchange {
        let peerInfo: PeerInfo
        let checkpoint: SyncCheckpoint?
        let plan: SyncPlan
        /// Where each side's changes are read from: the checkpoint's positions, or the start.
        let start: (local: UInt64, peer: UInt64)
        let pendingJoin: StoreBase.Join?
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
        let pendingJoin: StoreBase.Join?
        do { pendingJoin = try replica.pendingJoin() } catch { throw .store(error) }
        if let pendingJoin, pendingJoin.hub != peerInfo.replica {
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
        try await saveCheckpoints(exchange, peerPosition: peerMark.position, peerHash: peerMark.hash)
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
        peerInfo: PeerInfo, checkpoint: SyncCheckpoint?, plan: SyncPlan, pendingJoin: StoreBase.Join?, localHead: StoreHead,
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
            peerInfo: peerInfo, checkpoint: checkpoint, plan: plan, start: start, pendingJoin: pendingJoin,
            localFrontier: localFrontier, peerFrontier: peerFrontier, pulledThrough: start.peer)
    }

    /// A snapshot first, when the peer offers one: the state instead of the history.
    private func joinIfOffered(_ exchange: inout Exchange, result: inout SyncReport) async throws(SyncError) {
        guard let offer = try await transport.snapshotOffer(for: exchange.localKnowledge, pending: exchange.pendingJoin),
            !(options.history == .full && offer.reason == .join && offer.holdsHistory)
        else { return }
        if options.history == .full && (offer.reason == .join || offer.reason == .historyNotHeld) {
            throw .historyNotHeld(peer: transport.peerDescription)
        }
        result.snapshot = offer
        if replica.recordCount > 0 {
            // A re-join deletes what was deleted meanwhile: the same limit as for a pull.
            let knowledge = exchange.localKnowledge
            let pending = exchange.pendingJoin
            try await refuseUnlessDryRun(&result) { () async throws(SyncError) in
                try await checkSnapshotDeletions(offer, knowledge: knowledge, pending: pending)
            }
        }
        guard !options.dryRun else { return }
        try await join(from: offer, pending: exchange.pendingJoin, result: &result, touched: &exchange.touched)
        do { exchange.localFrontier = try replica.currentFrontier() } catch { throw .store(error) }
        // From a store: its journal is read on from the entry the state stands for.
        exchange.pulledThrough = max(exchange.pulledThrough, offer.position ?? 0)
    }

    /// Bulk copy into an empty store, two pages in memory at a time: the peer reads the next
    /// page while this store writes the current one (on the other core).
    private func copyAll(_ exchange: inout Exchange, result: inout SyncReport) async throws(SyncError) {
        let transport = self.transport
        let pageSize = options.pageSize
        let localKnowledge = exchange.localKnowledge
        @Sendable func fetch(after position: UInt64) async -> Result<ChangeBatch, SyncError> {
            do { return .success(try await transport.changes(after: position, excluding: localKnowledge, limit: pageSize)) } catch {
                return .failure(error)
            }
        }
        var batch = try await transport.changes(after: exchange.pulledThrough, excluding: localKnowledge, limit: pageSize)
        while true {
            let hasMore = batch.through < batch.head
            let after = batch.through
            async let following: Result<ChangeBatch, SyncError>? = hasMore ? await fetch(after: after) : nil
            let received = try replica.receive(batch.changes, from: transport.peerDescription, maximumSkew: options.maximumClockSkewMilliseconds)
            result.pulled += received.applied
            exchange.pulledThrough = batch.through
            report(SyncProgress(phase: .pulling, completed: result.pulled, total: Int(exchange.peerInfo.head.sequence)))
            guard let next = await following else { break }
            batch = try next.get()
        }
    }

    /// Every change is checked before any is applied; they are kept in memory for applying
    /// while they fit ``SyncOptions/maximumKeptChangeBytes``, and in a spool file past that
    /// (read again from the peer when no spool file can be made). A dry run counts them and
    /// predicts the conflicts instead.
    private func pullChecked(_ exchange: inout Exchange, result: inout SyncReport) async throws(SyncError) {
        let firstPosition = exchange.pulledThrough
        let localKnowledge = exchange.localKnowledge
        var incoming = CheckedChanges(
            budget: options.maximumKeptChangeBytes, spoolDirectory: options.dryRun ? nil : options.spoolDirectory)
        var frontier = exchange.localFrontier
        var deletions = Set<RecordKey>()
        var predicted = Set<RecordKey>()
        while true {
            let batch = try await transport.changes(after: exchange.pulledThrough, excluding: localKnowledge, limit: options.pageSize)
            try checkSkew(batch.changes)
            try checkChains(batch.changes, frontier: &frontier, receiver: replica.replicaID, peerInfo: exchange.peerInfo)
            noteLocalDeletions(batch.changes, into: &deletions)
            if options.dryRun { predicted.formUnion(predictedConflicts(batch.changes)) }
            incoming.add(batch.changes)
            exchange.pulledThrough = batch.through
            report(SyncProgress(phase: .pulling, completed: incoming.count, total: nil))
            if batch.through >= batch.head { break }
        }
        try await refuseUnlessDryRun(&result) { () throws(SyncError) in try refuseLocalDeletions(deletions) }
        if options.dryRun {
            result.pulled = incoming.count
            result.conflicts = Set(try conflictedKeys()).union(predicted).sorted()
            return
        }
        let transport = self.transport
        var applied = 0
        var touched = exchange.touched
        let readAgain = try await forEachPage(of: incoming, after: firstPosition, from: transport.peerDescription) {
            (position, limit) async throws(SyncError) -> ChangeBatch in
            try await transport.changes(after: position, excluding: localKnowledge, limit: limit)
        } _: { (page) throws(SyncError) in
            let received = try replica.receive(page, from: transport.peerDescription, maximumSkew: options.maximumClockSkewMilliseconds)
            result.pulled += received.applied
            result.committedEdits += received.committedEdits
            applied += page.count
            // Only a resolving policy needs them (a million keys would cost memory for nothing).
            if options.policy != .keepBoth { for change in page { touched.insert(change.key) } }
            report(SyncProgress(phase: .pulling, completed: applied, total: incoming.count))
        }
        exchange.touched = touched
        result.changesReadAgain += readAgain
        result.changesSpooled += incoming.spool?.count ?? 0
    }

    /// Pushes the changes the peer lacks, each checked first (chains, the peer's deletion
    /// guard); a dry run counts them and notes a push the peer would refuse.
    /// - Returns: the peer's journal position and hash the checkpoint may record: past this
    ///   push only when nothing else was appended there in between.
    private func push(_ exchange: Exchange, result: inout SyncReport) async throws(SyncError) -> (position: UInt64, hash: SHA256Digest?) {
        let peerKnowledge = exchange.peerFrontier.knowledge
        var outgoing = CheckedChanges(budget: options.maximumKeptChangeBytes)
        var frontier = exchange.peerFrontier
        var peerDeletions = Set<RecordKey>()
        var readThrough = exchange.start.local
        func readLocal(after position: UInt64, limit: Int) throws(SyncError) -> ChangeBatch {
            do { return try replica.changes(after: position, excluding: peerKnowledge, limit: limit) } catch { throw .store(error) }
        }
        while options.direction.pushes {
            let batch = try readLocal(after: readThrough, limit: options.pageSize)
            try checkChains(batch.changes, frontier: &frontier, receiver: exchange.peerInfo.replica, peerInfo: exchange.peerInfo)
            for change in batch.changes where change.isDelete { peerDeletions.insert(change.key) }
            outgoing.add(batch.changes)
            readThrough = batch.through
            if batch.through >= batch.head { break }
        }
        let start = exchange.start.local
        try await refuseUnlessDryRun(&result) { () async throws(SyncError) in
            try await checkPeerDeletions(peerDeletions, of: outgoing, after: start, read: readLocal)
        }
        var peerPosition = exchange.pulledThrough
        var peerHash: SHA256Digest? = nil
        if options.dryRun {
            result.pushed = outgoing.count
            if !outgoing.isEmpty, await transport.mayWrite() == false {
                result.refusals.append(
                    "\(transport.peerDescription) may not be written with this token: the push of \(outgoing.count) "
                        + "change\(outgoing.count == 1 ? "" : "s") would be refused (403); sync with --pull-only, or use a read-write token")
            }
            return (peerPosition, peerHash)
        }
        var offset = 0
        var contiguous = true
        let readAgain = try await forEachPage(of: outgoing, after: start, from: replica.location, read: readLocal) {
            (page) async throws(SyncError) in
            let pushed = try await transport.push(page, maximumSkew: options.maximumClockSkewMilliseconds)
            result.pushed += pushed.applied
            result.committedEdits += pushed.committedEdits
            // The peer's position may advance past our own pushes only when nothing else
            // was appended there in between (another client of the same server).
            if contiguous && pushed.headBefore == peerPosition {
                peerPosition = pushed.headAfter
                peerHash = pushed.hashAfter
            } else {
                contiguous = false
            }
            offset += page.count
            report(SyncProgress(phase: .pushing, completed: offset, total: outgoing.count))
        }
        result.changesReadAgain += readAgain
        return (peerPosition, peerHash)
    }

    /// Checkpoint, last: everything it covers is durable on both sides. One way only, it
    /// covers on the other side only what that side had at the last full exchange.
    private func saveCheckpoints(_ exchange: Exchange, peerPosition: UInt64, peerHash: SHA256Digest?) async throws(SyncError) {
        let peerInfo = exchange.peerInfo
        var finalLocal = replica.head
        if !options.direction.pushes {
            let hash: SHA256Digest?
            do { hash = try replica.entryHash(at: exchange.start.local) } catch { throw .store(error) }
            finalLocal = StoreHead(sequence: exchange.start.local, hash: hash ?? .zero, latestModification: finalLocal.latestModification)
        }
        var peerHash = peerHash
        if peerHash == nil {
            peerHash = peerPosition == peerInfo.head.sequence ? peerInfo.head.hash : try await transport.entryHash(at: peerPosition)
        }
        let checkpointNow = SyncCheckpoint(
            peer: peerInfo.replica, peerPosition: peerPosition, peerHash: peerHash ?? .zero,
            localPosition: finalLocal.sequence, localHash: finalLocal.hash, time: SystemClock().milliseconds(),
            peerName: peerInfo.name)
        if options.direction.pulls {
            do { try replica.saveCheckpoint(checkpointNow) } catch { throw .store(error) }
        }
        if options.direction.pushes {
            try await transport.saveCheckpoint(
                checkpointNow.reversed(localReplica: replica.replicaID, localName: replica.replicaName),
                localRecordCount: replica.recordCount)
        }
    }

    /// Takes the offered snapshot's record versions, page by page, then its frontier. The join
    /// is noted as pending before the first page is written, so a join stopped half way is
    /// finished by the next sync with the same hub and nothing else syncs meanwhile.
    private func join(
        from offer: SnapshotOffer, pending: StoreBase.Join?, result: inout SyncReport, touched: inout Set<RecordKey>
    ) async throws(SyncError) {
        report(SyncProgress(phase: .pulling, completed: 0, total: offer.changeCount))
        var page = try await transport.snapshotChanges(limit: options.pageSize)
        if pending?.snapshot != offer.id, let identity = transport.hubIdentity {
            let join = StoreBase.Join(
                hub: identity.id, location: identity.location, snapshot: offer.id, started: SystemClock().milliseconds(),
                position: offer.position)
            do { try replica.beginJoin(join) } catch { throw .store(error) }
        }
        var read = 0
        // Two pages in memory at a time, as for a full pull: the peer reads the next page
        // while this store writes the current one.
        let transport = self.transport
        let pageSize = options.pageSize
        @Sendable func fetch() async -> Result<[Change]?, SyncError> {
            do { return .success(try await transport.snapshotChanges(limit: pageSize)) } catch { return .failure(error) }
        }
        while let changes = page {
            async let following = fetch()
            let received = try replica.receiveSnapshot(changes, from: transport.peerDescription, maximumSkew: options.maximumClockSkewMilliseconds)
            result.pulled += received.applied
            result.committedEdits += received.committedEdits
            // Only a resolving policy needs them (a million keys would cost memory for nothing).
            if options.policy != .keepBoth { for change in changes { touched.insert(change.key) } }
            read += changes.count
            report(SyncProgress(phase: .pulling, completed: read, total: offer.changeCount))
            page = try await following.get()
        }
        do { try replica.finishJoin(frontier: offer.frontier, records: offer.recordCount) } catch { throw .store(error) }
    }

    /// The checkpoint for this peer when it still matches both journals.
    private func validCheckpoint(peerInfo: PeerInfo, localHead: StoreHead) async throws(SyncError) -> SyncCheckpoint? {
        let saved: SyncCheckpoint?
        do { saved = try replica.checkpoint(for: peerInfo.replica) } catch { throw .store(error) }
        guard let checkpoint = saved else { return nil }
        let peerMatches: Bool
        if checkpoint.peerPosition > peerInfo.head.sequence {
            peerMatches = false  // restored from an older backup, or truncated
        } else if checkpoint.peerPosition == peerInfo.head.sequence {
            peerMatches = checkpoint.peerHash == peerInfo.head.hash
        } else {
            peerMatches = try await transport.entryHash(at: checkpoint.peerPosition) == checkpoint.peerHash
        }
        let localMatches: Bool
        if checkpoint.localPosition > localHead.sequence {
            localMatches = false
        } else if checkpoint.localPosition == localHead.sequence {
            localMatches = checkpoint.localHash == localHead.hash
        } else {
            do { localMatches = try replica.entryHash(at: checkpoint.localPosition) == checkpoint.localHash } catch {
                throw .store(error)
            }
        }
        return peerMatches && localMatches ? checkpoint : nil
    }

    /// The error for a replica whose changes differ between the two stores, naming the copy
    /// to re-identify when it is one of them.
    private func diverged(origin: ReplicaID, counter: UInt64, peerInfo: PeerInfo) -> SyncError {
        let copy: String? = origin == replica.replicaID ? replica.location : origin == peerInfo.replica ? transport.peerDescription : nil
        return .divergedReplica(origin: origin, counter: counter, local: replica.location, peer: transport.peerDescription, copy: copy)
    }

    /// Checks, before anything is written, that `changes` continue the receiver's chains (see
    /// ``ReplicaFrontier``): `frontier` is what the receiver holds and the pages checked before,
    /// and moves past `changes`. The receiver checks again, but only here can the error name
    /// both sides.
    private func checkChains(
        _ changes: [Change], frontier: inout ReplicaFrontier, receiver: ReplicaID, peerInfo: PeerInfo
    ) throws(SyncError) {
        for change in changes {
            switch frontier.admit(change, ownReplica: receiver) {
            case .next, .alreadyKnown: continue
            case .diverged: throw diverged(origin: change.origin, counter: change.counter, peerInfo: peerInfo)
            case .gap(let expected):
                throw .counterGap(peer: transport.peerDescription, origin: change.origin, expected: expected, found: change.counter)
            }
        }
    }

    /// Runs a safety check; a dry run notes its refusal in the report instead of failing.
    private func refuseUnlessDryRun(_ result: inout SyncReport, _ check: () async throws(SyncError) -> Void) async throws(SyncError) {
        do { try await check() } catch {
            guard options.dryRun, case .massDeletion = error else { throw error }
            result.refusals.append(error.description)
        }
    }

    private func checkSkew(_ changes: [Change]) throws(SyncError) {
        let now = replica.wallClock.milliseconds()
        for change in changes where change.timestamp.physical > now + options.maximumClockSkewMilliseconds {
            throw .clockSkew(
                peer: transport.peerDescription, record: change.key, aheadByMilliseconds: change.timestamp.physical - now,
                limit: options.maximumClockSkewMilliseconds)
        }
    }

    /// Adds the live records here that `incoming` deletes to `deleted` (unless `--force`).
    private func noteLocalDeletions(_ incoming: [Change], into deleted: inout Set<RecordKey>) {
        guard !options.force else { return }
        for change in incoming where change.isDelete {
            if let state = try? replica.state(of: change.key), state.isLive { deleted.insert(change.key) }
        }
    }

    /// Refuses to delete more than the allowed share of this store's records.
    private func refuseLocalDeletions(_ deleted: Set<RecordKey>) throws(SyncError) {
        guard !options.force else { return }
        let total = replica.recordCount
        if !deleted.isEmpty, Double(deleted.count) > Double(total) * options.maximumDeletionShare {
            throw .massDeletion(
                store: replica.location, deleting: deleted.count, of: total, limitPercent: Int(options.maximumDeletionShare * 100))
        }
    }

    /// Reads the offered snapshot once to count the live records here it would delete, and
    /// refuses past the allowed share; then has the peer offer it again from its first page.
    private func checkSnapshotDeletions(_ offer: SnapshotOffer, knowledge: VersionVector, pending: StoreBase.Join?) async throws(SyncError) {
        guard !options.force else { return }
        var deleted = 0
        while let page = try await transport.snapshotChanges(limit: options.pageSize) {
            for change in page where change.isDelete {
                if let state = try? replica.state(of: change.key), state.isLive, !state.holds(change.version) {
                    deleted += 1
                }
            }
        }
        guard try await transport.snapshotOffer(for: knowledge, pending: pending)?.id == offer.id else {
            throw .transport("\(transport.peerDescription) changed its snapshot during the sync; nothing was applied; sync again")
        }
        let total = replica.recordCount
        if deleted > 0, Double(deleted) > Double(total) * options.maximumDeletionShare {
            throw .massDeletion(store: replica.location, deleting: deleted, of: total, limitPercent: Int(options.maximumDeletionShare * 100))
        }
    }

    /// Refuses to delete more than the allowed share of the peer's records: `deleted`, the
    /// records `outgoing` (the checked changes after `position`, read by `read`) deletes.
    private func checkPeerDeletions(
        _ deleted: Set<RecordKey>, of outgoing: CheckedChanges, after position: UInt64,
        read: (UInt64, Int) async throws(SyncError) -> ChangeBatch
    ) async throws(SyncError) {
        guard !options.force else { return }
        var deleted = deleted
        guard !deleted.isEmpty else { return }
        let total = try await transport.liveRecordCount()
        // A peer with no live record loses none (a first push of a store that deleted some).
        guard total > 0 else { return }
        let limit = Double(total) * options.maximumDeletionShare
        guard Double(deleted.count) > limit else { return }
        // A record whose every change is in this push was never at the peer: deleting it there
        // removes nothing (a first push of a store that created and deleted records). Walked
        // only when the deletes could reach the limit.
        var outgoingChanges: [RecordKey: Int] = [:]
        try await forEachPage(of: outgoing, after: position, from: replica.location, read: read) { (page) throws(SyncError) in
            for change in page where deleted.contains(change.key) { outgoingChanges[change.key, default: 0] += 1 }
        }
        deleted = deleted.filter { key in (try? replica.journaledChangeCount(of: key)) != outgoingChanges[key] }
        if Double(deleted.count) > limit {
            throw .massDeletion(
                store: transport.peerDescription, deleting: deleted.count, of: total,
                limitPercent: Int(options.maximumDeletionShare * 100))
        }
    }

    /// Records that would become conflicted by applying `incoming` (for a dry run), besides
    /// those already in conflict.
    private func predictedConflicts(_ incoming: [Change]) -> Set<RecordKey> {
        var keys = Set<RecordKey>()
        for change in incoming {
            guard let state = try? replica.state(of: change.key) else { continue }
            let hash = change.operation.document.map { SHA256.hash($0.canonicalBytes()) } ?? .zero
            for version in state.versions where version.version.compare(to: change.version) == .concurrent {
                if version.isDelete != change.isDelete || version.contentHash != hash { keys.insert(change.key) }
            }
        }
        return keys
    }

    private func conflictedKeys() throws(SyncError) -> [RecordKey] {
        do { return try replica.conflicts().map(\.key) } catch { throw .store(error) }
    }

    /// Applies the lww or merge policy to the conflicted records among `keys`.
    private func resolveConflicts(among keys: Set<RecordKey>) throws(SyncError) -> Int {
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
