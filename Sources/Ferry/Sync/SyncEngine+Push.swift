import Foundation

/// Sending this store's changes the peer lacks, and the checkpoints written last.
extension SyncEngine {
    /// Pushes the changes the peer lacks, each checked first (chains, the peer's deletion
    /// guard); a dry run counts them and notes a push the peer would refuse.
    /// - Returns: the peer's journal position and hash the checkpoint may record: past this
    ///   push only when nothing else was appended there in between.
    func push(_ exchange: Exchange, result: inout SyncReport) async throws(SyncError) -> (position: UInt64, hash: SHA256Digest?) {
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
            if !outgoing.isEmpty, let check = transport as? WriteCheck, await check.mayWrite() == false {
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
            result.deferred += pushed.deferred
            result.waiting += pushed.deferred + pushed.refused
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
    /// covers on the other side only what that side had at the last full exchange; and so
    /// does a push the peer did not take whole (``ReceiveResult/deferred``): the next sync
    /// reads this store's changes from the same place again, and those the peer holds are left
    /// out by its knowledge.
    func saveCheckpoints(_ exchange: Exchange, peerPosition: UInt64, peerHash: SHA256Digest?, peerTookAll: Bool = true) async throws(SyncError) {
        let peerInfo = exchange.peerInfo
        var finalLocal = replica.head
        if !options.direction.pushes || !peerTookAll {
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
            let reversed = checkpointNow.reversed(localReplica: replica.replicaID, localName: replica.replicaName)
            if let shared = transport as? ReplicaAwarePeer {
                try await shared.saveCheckpoint(reversed, localRecordCount: replica.recordCount)
            } else {
                try await transport.saveCheckpoint(reversed)
            }
        }
    }
}
