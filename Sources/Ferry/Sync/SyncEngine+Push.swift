import Foundation

/// Sending this store's changes the peer lacks, and the checkpoints written last.
extension SyncEngine {
    /// What a push read and checked before sending any of it.
    struct Outgoing {
        var checked: CheckedChanges
        /// Records the changes delete.
        var deletions = Set<RecordKey>()
    }

    /// This store's changes after `position` that the peer (knowing `peerKnowledge`) lacks.
    func readLocal(after position: UInt64, excluding peerKnowledge: VersionVector, limit: Int) throws(SyncError) -> ChangeBatch {
        do { return try replica.changes(after: position, excluding: peerKnowledge, limit: limit) } catch { throw .store(error) }
    }

    /// Reads the changes the peer lacks, each checked first (chains and digests); none when
    /// the sync does not push.
    func readOutgoing(_ exchange: Exchange) throws(SyncError) -> Outgoing {
        let peerKnowledge = exchange.peerFrontier.knowledge
        var outgoing = Outgoing(checked: CheckedChanges(budget: options.maximumKeptChangeBytes))
        var frontier = exchange.peerFrontier
        var readThrough = exchange.start.local
        while options.direction.pushes {
            let batch = try readLocal(after: readThrough, excluding: peerKnowledge, limit: options.pageSize)
            try checkOutgoingStamps(batch.changes)
            try checkChains(batch.changes, frontier: &frontier, receiver: exchange.peerInfo.replica, peerInfo: exchange.peerInfo)
            for change in batch.changes where change.isDelete { outgoing.deletions.insert(change.key) }
            outgoing.checked.add(batch.changes)
            readThrough = batch.through
            if batch.through >= batch.head { break }
        }
        return outgoing
    }

    /// Refuses a push that would delete more than the allowed share of the peer's records.
    func checkPeerDeletions(_ outgoing: Outgoing, _ exchange: Exchange) async throws(SyncError) {
        let peerKnowledge = exchange.peerFrontier.knowledge
        try await checkPeerDeletions(outgoing.deletions, of: outgoing.checked, after: exchange.start.local) {
            (position, limit) throws(SyncError) -> ChangeBatch in try readLocal(after: position, excluding: peerKnowledge, limit: limit)
        }
    }

    /// Pushes the checked changes, page by page, each applied at the peer atomically and
    /// durably.
    /// - Returns: the peer's mark the checkpoint may record: past this push only when nothing
    ///   else was written there in between.
    func send(_ outgoing: Outgoing, _ exchange: Exchange, continuing mark: PeerMark?, result: inout SyncReport) async throws(SyncError) -> PeerMark? {
        let peerKnowledge = exchange.peerFrontier.knowledge
        var peerMark = mark
        var offset = 0
        var contiguous = true
        // Whether an origin signs is decided by this store's knowledge: a key-derived id, a
        // key held, or a signature seen in what is pushed.
        let replica = self.replica
        var runs = SealedRuns { replica.requiresSignatures(from: $0) }
        let readAgain = try await forEachPage(of: outgoing.checked, after: exchange.start.local, from: replica.location) {
            (position, limit) throws(SyncError) -> ChangeBatch in try readLocal(after: position, excluding: peerKnowledge, limit: limit)
        } _: { (page) async throws(SyncError) in
            // Each push ends signed, so the peer can check it on its own.
            let run = runs.add(page)
            guard !run.isEmpty else { return }
            let pushed = try await transport.push(run, maximumSkew: options.maximumClockSkewMilliseconds, continuing: peerMark)
            result.pushed += pushed.applied
            result.committedEdits += pushed.committedEdits
            result.deferred += pushed.deferred
            result.waiting += pushed.deferred + pushed.refused
            // The peer's mark may move past our own pushes only when nothing else was written
            // there in between (another client of the same server).
            if contiguous, let after = pushed.markAfter {
                peerMark = after
            } else {
                contiguous = false
            }
            offset += run.count
            report(SyncProgress(phase: .pushing, completed: offset, total: outgoing.checked.count))
        }
        if let unsigned = runs.unsignedRemainder(source: replica.location) { throw unsigned }
        result.changesReadAgain += readAgain
        return peerMark
    }

    /// Checkpoints, last: everything they cover is durable on both sides. One way only, they
    /// cover on the other side only what that side had at the last full exchange.
    func saveCheckpoints(_ checkpoints: SyncSession.Checkpoints, exchange: Exchange) async throws(SyncError) {
        var finalLocal = StoreMark(replica.head)
        if let position = checkpoints.localPosition {
            let hash: SHA256Digest?
            do { hash = try replica.entryHash(at: position) } catch { throw .store(error) }
            finalLocal = StoreMark(position: position, hash: hash ?? .zero)
        }
        let time = SystemClock().milliseconds()
        // Names first: they are not what the checkpoint covers, and one that fails to save is
        // heard again on the next sync.
        do { try replica.learnReplicaNames(exchange.peerInfo.namesHeard) } catch { throw .store(error) }
        if checkpoints.savesLocal {
            let checkpoint = SyncCheckpoint(
                peer: exchange.peerInfo.replica, peerMark: checkpoints.peerMark, localPosition: finalLocal.position,
                localHash: finalLocal.hash, time: time, peerName: exchange.peerInfo.name)
            do { try replica.saveCheckpoint(checkpoint) } catch { throw .store(error) }
        }
        if checkpoints.savesPeer {
            try await transport.saveCheckpoint(
                PeerCheckpoint(
                    replica: replica.replicaID, replicaName: replica.replicaName, replicaMark: finalLocal,
                    peerMark: checkpoints.peerMark, recordCount: replica.recordCount, time: time, names: replica.knownReplicaNames))
        }
    }
}
