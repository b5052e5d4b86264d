import Foundation

/// Bringing the peer's changes here: a snapshot first when the peer offers one, then a bulk
/// copy into an empty store or checked pages of changes.
extension SyncEngine {
    /// The snapshot the peer offers, when the store should take it (noted in the report).
    /// - Throws: ``SyncError/historyNotHeld(peer:)`` when the full history was asked for and
    ///   the peer offers only its state.
    func snapshotOffer(_ exchange: Exchange, result: inout SyncReport) async throws(SyncError) -> (SnapshotOffer, any SnapshotSource)? {
        guard let source = transport as? SnapshotSource,
            let offer = try await source.snapshotOffer(for: exchange.localKnowledge, pending: exchange.pendingJoin),
            !(options.history == .full && offer.reason == .join && offer.holdsHistory)
        else { return nil }
        if options.history == .full && (offer.reason == .join || offer.reason == .historyNotHeld) {
            throw .historyNotHeld(peer: transport.peerDescription)
        }
        result.snapshot = offer
        return (offer, source)
    }

    /// Bulk copy into an empty store, two pages in memory at a time: the peer reads the next
    /// page while this store writes the current one (on the other core).
    func copyAll(_ exchange: inout Exchange, result: inout SyncReport) async throws(SyncError) {
        let transport = self.transport
        let pageSize = options.pageSize
        let localKnowledge = exchange.localKnowledge
        @Sendable func fetch(after position: UInt64) async -> Result<ChangeBatch, SyncError> {
            do { return .success(try await transport.changes(after: position, excluding: localKnowledge, limit: pageSize)) } catch {
                return .failure(error)
            }
        }
        let replica = self.replica
        var runs = SealedRuns { replica.requiresSignatures(from: $0) }
        var batch = try await transport.changes(after: exchange.pulledThrough, excluding: localKnowledge, limit: pageSize)
        while true {
            let hasMore = batch.through < batch.head
            let after = batch.through
            async let following: Result<ChangeBatch, SyncError>? = hasMore ? await fetch(after: after) : nil
            let admitted = runs.add(admit(batch.changes, &exchange))
            let received = try replica.receive(admitted, from: transport.peerDescription, maximumSkew: options.maximumClockSkewMilliseconds)
            result.pulled += received.applied
            exchange.pulledThrough = batch.through
            if batch.isPartial { exchange.readEverything = false }
            report(SyncProgress(phase: .pulling, completed: result.pulled, total: exchange.peerInfo.changeCount))
            guard let next = await following else { break }
            batch = try next.get()
        }
        if let unsigned = runs.unsignedRemainder(source: transport.peerDescription) { throw unsigned }
    }

    /// What a pull read and checked before applying any of it.
    struct Incoming {
        var checked: CheckedChanges
        /// Live records here that the changes delete.
        var deletions = Set<RecordKey>()
        /// Records the changes would make conflicted, when asked to predict them, with the
        /// changes to each (what a resolving policy would work with).
        var predicted: [RecordKey: [Change]] = [:]
    }

    /// Reads the peer's changes after the exchange's position, page by page, and checks every
    /// one (clock skew, chains and digests) before any is applied; they are kept in memory
    /// while they fit ``SyncOptions/maximumKeptChangeBytes``, and in a spool file past that
    /// (read again from the peer when no spool file can be made, or none is wanted).
    func readIncoming(_ exchange: inout Exchange, spoolDirectory: String?, predicting: Bool = false) async throws(SyncError) -> Incoming {
        let localKnowledge = exchange.localKnowledge
        var incoming = Incoming(checked: CheckedChanges(budget: options.maximumKeptChangeBytes, spoolDirectory: spoolDirectory))
        var frontier = exchange.localFrontier
        var tails = SealTails()
        while true {
            let batch = try await transport.changes(after: exchange.pulledThrough, excluding: localKnowledge, limit: options.pageSize)
            let admitted = admit(batch.changes, &exchange)
            try checkChains(admitted, frontier: &frontier, receiver: replica.replicaID, peerInfo: exchange.peerInfo)
            tails.add(admitted.filter { $0.counter > localKnowledge[$0.origin] })
            noteLocalDeletions(admitted, into: &incoming.deletions)
            if predicting {
                let conflicted = predictedConflicts(admitted)
                for change in admitted where conflicted.contains(change.key) { incoming.predicted[change.key, default: []].append(change) }
            }
            incoming.checked.add(admitted)
            exchange.pulledThrough = batch.through
            if batch.isPartial { exchange.readEverything = false }
            report(SyncProgress(phase: .pulling, completed: incoming.checked.count, total: nil))
            if batch.through >= batch.head { break }
        }
        // One signature an origin covers the whole pull, checked before anything is applied.
        try replica.checkSignatures(tails.changes, from: transport.peerDescription)
        return incoming
    }

    /// Applies the checked changes here, page by page (read again from the peer, after
    /// `firstPosition`, when they were neither kept nor spooled).
    func apply(_ incoming: CheckedChanges, after firstPosition: UInt64, _ exchange: inout Exchange, result: inout SyncReport) async throws(SyncError) {
        let transport = self.transport
        let localKnowledge = exchange.localKnowledge
        var applied = 0
        var touched = exchange.touched
        let quarantine = exchange.quarantine
        let replica = self.replica
        var runs = SealedRuns { replica.requiresSignatures(from: $0) }
        let readAgain = try await forEachPage(of: incoming, after: firstPosition, from: transport.peerDescription) {
            (position, limit) async throws(SyncError) -> ChangeBatch in
            var batch = try await transport.changes(after: position, excluding: localKnowledge, limit: limit)
            if !quarantine.isEmpty {
                let kept = batch.changes.indices.filter { !quarantine.holds(batch.changes[$0]) }
                if batch.sequences.count == batch.changes.count { batch.sequences = kept.map { batch.sequences[$0] } }
                batch.changes = kept.map { batch.changes[$0] }
            }
            return batch
        } _: { (page) throws(SyncError) in
            let run = runs.add(page)
            guard !run.isEmpty else { return }
            let received = try replica.receive(run, from: transport.peerDescription, maximumSkew: options.maximumClockSkewMilliseconds)
            result.pulled += received.applied
            result.committedEdits += received.committedEdits
            applied += run.count
            // Only a resolving policy needs them (a million keys would cost memory for nothing).
            if options.policy != .keepBoth { for change in run { touched.insert(change.key) } }
            report(SyncProgress(phase: .pulling, completed: applied, total: incoming.count))
        }
        if let unsigned = runs.unsignedRemainder(source: transport.peerDescription) { throw unsigned }
        exchange.touched = touched
        result.changesReadAgain += readAgain
        result.changesSpooled += incoming.spool?.count ?? 0
    }

    /// Takes the offered snapshot's record versions, page by page, then its frontier. The join
    /// is noted as pending before the first page is written, so a join stopped half way is
    /// finished by the next sync with the same peer and nothing else syncs meanwhile. A store's
    /// state is read whole and proven first (``readProvenState(_:from:keeping:result:)``); a
    /// hub's snapshot was proven by its transport before it was offered.
    func join(
        from offer: SnapshotOffer, of source: any SnapshotSource, knowledge: VersionVector, pending: SnapshotJoins.Join?,
        result: inout SyncReport, touched: inout Set<RecordKey>
    ) async throws(SyncError) {
        report(SyncProgress(phase: .pulling, completed: 0, total: offer.changeCount))
        let proven = offer.position == nil ? nil : try await readProvenState(offer, from: source, keeping: true, result: &result)
        if pending?.snapshot != offer.id, let identity = source.joinSource {
            let join = SnapshotJoins.Join(
                source: identity.id, location: identity.location, snapshot: offer.id, started: SystemClock().milliseconds(),
                position: offer.position, statement: proven?.statement ?? offer.statement)
            do { try replica.beginJoin(join) } catch { throw .store(error) }
        }
        var read = 0
        let peer = transport.peerDescription
        let maximumSkew = options.maximumClockSkewMilliseconds
        let resolving = options.policy != .keepBoth
        func take(_ changes: [Change], result: inout SyncReport, touched: inout Set<RecordKey>) throws(SyncError) {
            let received = try replica.receiveSnapshot(changes, from: peer, maximumSkew: maximumSkew)
            result.pulled += received.applied
            result.committedEdits += received.committedEdits
            // Only a resolving policy needs them (a million keys would cost memory for nothing).
            if resolving { for change in changes { touched.insert(change.key) } }
            read += changes.count
            report(SyncProgress(phase: .pulling, completed: read, total: offer.changeCount))
        }
        if let proven {
            var taken = result
            var keys = touched
            try await forEachProvenPage(of: proven.versions, offer: offer, from: source, knowledge: knowledge, pending: pending) { (page) throws(SyncError) in
                try take(page, result: &taken, touched: &keys)
            }
            result = taken
            touched = keys
        } else {
            // Two pages in memory at a time, as for a full pull: the peer reads the next page
            // while this store writes the current one.
            let pageSize = options.pageSize
            @Sendable func fetch() async -> Result<[Change]?, SyncError> {
                do { return .success(try await source.snapshotChanges(limit: pageSize)) } catch { return .failure(error) }
            }
            var page = try await source.snapshotChanges(limit: options.pageSize)
            while let changes = page {
                async let following = fetch()
                try take(changes, result: &result, touched: &touched)
                page = try await following.get()
            }
        }
        do { try replica.finishJoin(frontier: offer.frontier, records: offer.recordCount) } catch { throw .store(error) }
    }
}
