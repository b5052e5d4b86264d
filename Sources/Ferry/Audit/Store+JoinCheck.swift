/// Checking a snapshot join against the peer store it was taken from.
extension Store {
    /// Checks `join` (one of this store's joins from a store, see ``SnapshotJoins/Join/position``)
    /// against `peer`, the store it joined from.
    ///
    /// Reads the peer's journal up to the join's position once, replaying it as the peer's index
    /// did, then compares the versions current there with the entries this store journaled up
    /// to the end of the join: each must be here with the same digest. Memory grows with the
    /// number of records and versions (an audit, not a hot path). The peer's own chain is
    /// checked by `ferry verify` on the peer.
    public func checkJoin(_ join: SnapshotJoins.Join, against peer: Store) throws(StoreError) -> JoinCheck {
        var check = JoinCheck(join: join)
        guard let position = join.position else {
            check.problems.append("the join is from a hub, not a store: 'ferry verify \(join.location)' checks it")
            return check
        }
        if peer.replicaID != join.source {
            check.problems.append("\(peer.path) is replica \(peer.replicaID), not \(join.source) that the join came from")
            return check
        }
        // The peer's state at the position, replayed.
        var replay = StoreIndex()
        var boundHash: SHA256Digest?
        var peerDigests: [ChangeIdentity: SHA256Digest] = [:]
        try peer.forEachJournalEntry { (entry: JournalEntry) throws(StoreError) -> Bool in
            guard entry.sequence <= position else { return false }
            _ = replay.apply(entry)
            peerDigests[entry.change.identity] = entry.change.digest
            if entry.sequence == position { boundHash = entry.hash }
            return entry.sequence < position
        }
        guard let boundHash else {
            check.problems.append("\(peer.path) has no journal entry \(position): its journal was cut or replaced")
            return check
        }
        if boundHash != join.snapshot {
            check.problems.append(
                "\(peer.path) entry \(position) has hash \(boundHash.hex.prefix(12)), the join was bound to "
                    + "\(join.snapshot.hex.prefix(12)): the peer's history was rewritten since")
            return check
        }
        // What this store journaled up to the end of the join.
        var received: [ChangeIdentity: SHA256Digest] = [:]
        try forEachJournalEntry { (entry: JournalEntry) throws(StoreError) -> Bool in
            guard entry.sequence <= join.sequence else { return false }
            received[entry.change.identity] = entry.change.digest
            return true
        }
        for (key, state) in replay.records {
            check.recordCount += 1
            for version in state.versions {
                check.versionCount += 1
                guard let digest = received[version.identity] else {
                    if check.problems.count < 20 {
                        check.problems.append("\(version.identity) (\(key)) is current in the peer at \(position) but was not received")
                    }
                    continue
                }
                if digest != peerDigests[version.identity], check.problems.count < 20 {
                    check.problems.append("\(version.identity) (\(key)) was received with another digest than the peer's journal has")
                }
            }
        }
        return check
    }
}
