import Foundation

/// What a sync checks before anything is written: the checkpoint still matches both journals,
/// changes continue their chains and are not stamped in the future, and no side loses more
/// than the allowed share of its records.
extension SyncEngine {
    /// The checkpoint for this peer when it still holds on both sides, with the position the
    /// peer reads on from (its ``SyncTransport/resume(from:)`` of the checkpoint's mark).
    func validCheckpoint(peerInfo: PeerInfo, localHead: StoreHead) async throws(SyncError) -> (checkpoint: SyncCheckpoint, peerStart: UInt64)? {
        let saved: SyncCheckpoint?
        do { saved = try replica.checkpoint(for: peerInfo.replica) } catch { throw .store(error) }
        guard let checkpoint = saved else { return nil }
        let peerStart: UInt64?
        if let mark = checkpoint.peerMark {
            peerStart = try await transport.resume(from: mark)
        } else {
            peerStart = 0  // never read the peer (push only): its changes are all read
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
        guard let peerStart, localMatches else { return nil }
        return (checkpoint, peerStart)
    }

    /// The error for a replica whose changes differ between the two stores, naming the copy
    /// to re-identify when it is one of them.
    func diverged(origin: ReplicaID, counter: UInt64, peerInfo: PeerInfo) -> SyncError {
        let copy: String? = origin == replica.replicaID ? replica.location : origin == peerInfo.replica ? transport.peerDescription : nil
        return .divergedReplica(origin: origin, counter: counter, local: replica.location, peer: transport.peerDescription, copy: copy)
    }

    /// Checks, before anything is written, that `changes` continue the receiver's chains (see
    /// ``ReplicaFrontier``): `frontier` is what the receiver holds and the pages checked before,
    /// and moves past `changes`. The receiver checks again, but only here can the error name
    /// both sides.
    func checkChains(
        _ changes: [Change], frontier: inout ReplicaFrontier, receiver: ReplicaID, peerInfo: PeerInfo
    ) throws(SyncError) {
        for change in changes {
            switch frontier.admit(change, ownReplica: receiver) {
            case .next, .alreadyKnown: continue
            case .diverged where change.origin == replica.replicaID && receiver == replica.replicaID:
                throw SealCheck.ownReplicaRefusal(
                    change, among: changes, ownKey: replica.ownPublicKey(), store: replica.location, source: transport.peerDescription)
            case .diverged: throw diverged(origin: change.origin, counter: change.counter, peerInfo: peerInfo)
            case .gap(let expected):
                throw .counterGap(peer: transport.peerDescription, origin: change.origin, expected: expected, found: change.counter)
            }
        }
    }

    /// Refuses to publish changes stamped more than the bound ahead of this clock (made while
    /// a clock ran ahead): a hub has no clock to refuse them by, and every replica that syncs
    /// there would hold them out.
    func checkOutgoingStamps(_ changes: [Change]) throws(SyncError) {
        let now = replica.wallClock.milliseconds()
        let limit = options.maximumClockSkewMilliseconds
        for change in changes where change.timestamp.physical > now + limit {
            throw .stampedAhead(
                store: replica.location, peer: transport.peerDescription, origin: change.origin, record: change.key,
                aheadByMilliseconds: change.timestamp.physical - now, limit: limit)
        }
    }

    /// The changes of a page to apply: those stamped too far ahead, and what follows them from
    /// the same replica, are quarantined (``SkewQuarantine``), and the peer's mark is then not
    /// recorded as read.
    func admit(_ changes: [Change], _ exchange: inout Exchange) -> [Change] {
        let admitted = exchange.quarantine.admit(changes, now: replica.wallClock.milliseconds())
        if admitted.count < changes.count { exchange.readEverything = false }
        return admitted
    }

    /// Adds the live records here that `incoming` would really delete to `deleted` (unless
    /// `--force`): a delete that loses to an edit here deletes nothing.
    func noteLocalDeletions(_ incoming: [Change], into deleted: inout Set<RecordKey>) {
        guard !options.force else { return }
        for change in incoming where change.isDelete {
            if DeletionGuard.deletes(change, stateHere: try? replica.state(of: change.key)) { deleted.insert(change.key) }
        }
    }

    /// Refuses to delete more than the allowed share of this store's records.
    func refuseLocalDeletions(_ deleted: Set<RecordKey>) throws(SyncError) {
        let deletionGuard = DeletionGuard(options: options)
        let total = replica.recordCount
        if deletionGuard.refuses(deleting: deleted.count, of: total) {
            throw deletionGuard.refusal(store: replica.location, deleting: deleted.count, of: total)
        }
    }

    /// Reads the offered snapshot once to count the live records here it would delete, and
    /// refuses past the allowed share; then has the peer offer it again from its first page.
    func checkSnapshotDeletions(
        _ offer: SnapshotOffer, from source: any SnapshotSource, knowledge: VersionVector, pending: SnapshotJoins.Join?
    ) async throws(SyncError) {
        guard !options.force else { return }
        var deleted = 0
        while let page = try await source.snapshotChanges(limit: options.pageSize) {
            for change in page where DeletionGuard.deletes(change, stateHere: try? replica.state(of: change.key)) {
                deleted += 1
            }
        }
        guard try await source.snapshotOffer(for: knowledge, pending: pending)?.id == offer.id else {
            throw .transport("\(transport.peerDescription) changed its snapshot during the sync; nothing was applied; sync again")
        }
        let deletionGuard = DeletionGuard(options: options)
        let total = replica.recordCount
        if deletionGuard.refuses(deleting: deleted, of: total) {
            throw deletionGuard.refusal(store: replica.location, deleting: deleted, of: total)
        }
    }

    /// Refuses to delete more than the allowed share of the peer's records: `deleted`, the
    /// records `outgoing` (the checked changes after `position`, read by `read`) deletes.
    func checkPeerDeletions(
        _ deleted: Set<RecordKey>, of outgoing: CheckedChanges, after position: UInt64,
        read: (UInt64, Int) async throws(SyncError) -> ChangeBatch
    ) async throws(SyncError) {
        let deletionGuard = DeletionGuard(options: options)
        guard !options.force else { return }
        // A record that is live here once this sync pulled and resolved is live at the peer
        // after the push too (it then holds the same versions): a delete that lost to an edit
        // deletes nothing there.
        var deleted = deleted.filter { key in (try? replica.state(of: key))?.isLive != true }
        guard !deleted.isEmpty else { return }
        let total = try await transport.liveRecordCount()
        // A peer with no live record loses none (a first push of a store that deleted some).
        guard total > 0 else { return }
        guard deletionGuard.refuses(deleting: deleted.count, of: total) else { return }
        // A record whose every change is in this push was never at the peer: deleting it there
        // removes nothing (a first push of a store that created and deleted records). Walked
        // only when the deletes could reach the limit.
        var outgoingChanges: [RecordKey: Int] = [:]
        try await forEachPage(of: outgoing, after: position, from: replica.location, read: read) { (page) throws(SyncError) in
            for change in page where deleted.contains(change.key) { outgoingChanges[change.key, default: 0] += 1 }
        }
        deleted = deleted.filter { key in (try? replica.journaledChangeCount(of: key)) != outgoingChanges[key] }
        if deletionGuard.refuses(deleting: deleted.count, of: total) {
            throw deletionGuard.refusal(store: transport.peerDescription, deleting: deleted.count, of: total)
        }
    }

    /// Records that would become conflicted by applying `incoming` (for a dry run), besides
    /// those already in conflict.
    func predictedConflicts(_ incoming: [Change]) -> Set<RecordKey> {
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

    /// Of the conflicts a pull would make (`conflicts`, with the incoming changes to each), those
    /// the policy would settle, exactly as ``SyncReplica/resolveConflicts(among:policy:)`` does:
    /// every one for lww; for merge, a record whose two versions are puts that merge field by
    /// field against their common ancestor. Keep-both settles none.
    func predictedResolutions(_ conflicts: [RecordKey: [Change]]) -> Set<RecordKey> {
        switch options.policy {
        case .keepBoth: return []
        case .lastWriterWins: return Set(conflicts.keys)
        case .merge:
            var merged = Set<RecordKey>()
            for (key, changes) in conflicts {
                // The incoming versions that stay: those no later incoming change descends from.
                let heads = changes.filter { change in !changes.contains { $0.version != change.version && $0.version.dominates(change.version) } }
                guard heads.count == 1, let incoming = heads.first, let theirs = incoming.operation.document,
                    let local = try? replica.versions(of: key), local.count == 1, let ours = local[0].document, !local[0].version.isDelete
                else { continue }
                let ancestor = try? replica.commonAncestor(of: key, local[0].version.version, incoming.version)
                if ThreeWayMerge.merge(ancestor: ancestor ?? nil, ours: ours, theirs: theirs) != nil { merged.insert(key) }
            }
            return merged
        }
    }
}
