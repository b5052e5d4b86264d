/// Joining from a snapshot (see ``SnapshotJoins``): the store journals a snapshot's record versions
/// as they are, then holds the snapshot's frontier as what it knows.
extension Store {
    /// What the store took from hub snapshots; `nil` when it never joined from one.
    /// - Throws: ``StoreError/damagedBase(reason:)`` when `.ferry/base.json` cannot be read.
    public func snapshotJoins() throws(StoreError) -> SnapshotJoins? {
        let bytes: [UInt8]
        do {
            guard FileSystem.exists(layout.snapshotJoins) else { return nil }
            bytes = try FileSystem.readFile(layout.snapshotJoins, limit: 16 << 20)
        } catch { throw .damagedBase(reason: error.message) }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: .init(maximumDepth: 8, maximumByteCount: 16 << 20)) } catch {
            throw .damagedBase(reason: error.description)
        }
        return try SnapshotJoins(json: value)
    }

    /// Writes the base durably: it holds knowledge the journal does not show.
    private func saveSnapshotJoins(_ base: SnapshotJoins) throws(StoreError) {
        do {
            try FileSystem.createDirectories(layout.engine)
            _ = try FileSystem.writeFileAtomically(layout.snapshotJoins, base.jsonValue.prettyBytes(), durable: true)
        } catch { throw .io(error) }
    }

    /// Notes, durably and before any of its records is journaled, that a join from `join`'s
    /// snapshot has started: until ``finishJoin(frontier:records:)``, the store's counters are
    /// not contiguous and it syncs only with that hub.
    public func beginJoin(_ join: SnapshotJoins.Join) throws(StoreError) {
        try withWriteLock { () throws(StoreError) in
            var base = try self.snapshotJoins() ?? SnapshotJoins()
            base.pending = join
            try saveSnapshotJoins(base)
        }
    }

    /// Journals a page of a snapshot's record versions. A version is skipped when the record
    /// already has it or one that descends from it, so a page applied twice (a join resumed
    /// after a crash, or from a newer snapshot) changes nothing; anything else is applied as a
    /// change from the peer would be, conflicts included. Counters need not follow each other.
    public func receiveSnapshot(_ changes: [Change], from peer: String, maximumSkew: UInt64) throws(SyncError) -> ReceiveResult {
        try receive(changes, from: peer, maximumSkew: maximumSkew, asSnapshot: true)
    }

    /// Ends the join: the store now holds every change up to `frontier`, durably noted in
    /// `.ferry/base.json`.
    public func finishJoin(frontier: ReplicaFrontier, records: Int) throws(StoreError) {
        try withWriteLock { () throws(StoreError) in
            var base = try self.snapshotJoins() ?? SnapshotJoins()
            base.frontier = SnapshotJoins.raise(base.frontier, to: frontier)
            if var join = base.pending {
                join.sequence = index.headSequence
                join.records = records
                base.joins.append(join)
            }
            base.pending = nil
            raiseKnowledge(to: base.frontier)
            try saveSnapshotJoins(base)
        }
    }

    /// Raises the index's knowledge to the base's (on open, after the journal is replayed).
    func applyBase() throws(StoreError) {
        // What a compacted journal archived is held too (see ``JournalStart``).
        if let start = journal.start {
            raiseKnowledge(to: start.frontier)
            // Nothing written since the compaction: the replay ended on a kept entry, the
            // journal at the last archived one.
            if index.headSequence < journal.headSequence, journal.headSequence == start.first - 1 {
                index.headSequence = journal.headSequence
                index.headHash = journal.headHash
            }
        }
        guard let joins = try snapshotJoins() else { return }
        raiseKnowledge(to: joins.frontier)
    }

    private func raiseKnowledge(to frontier: ReplicaFrontier) {
        let raised = SnapshotJoins.raise(ReplicaFrontier(knowledge: index.knowledge, digests: index.digests), to: frontier)
        index.knowledge = raised.knowledge
        index.digests = raised.digests
    }

    /// How a snapshot's version is taken: skipped when the record has it or a later one.
    func admitFromSnapshot(_ change: Change, frontier: ReplicaFrontier) -> ReplicaFrontier.Admission {
        let held = frontier.knowledge[change.origin]
        if change.counter == held, let digest = frontier.digests[change.origin], digest != change.digest { return .diverged }
        // Only this store makes changes of its own replica.
        if change.origin == replicaID && change.counter > index.knowledge[replicaID] { return .diverged }
        return index.records[change.key]?.holds(change.version) == true ? .alreadyKnown : .next
    }
}
