/// A store offering its state, instead of its history, to a replica that joins it.
extension Store {
    /// The state this store offers a replica that knows `knowledge`, or `nil` when its
    /// journal serves that replica better.
    ///
    /// - a replica that knows nothing (an empty store) joins from the state (``SnapshotOffer/Reason/join``);
    /// - a replica finishing a join from this store (`pending`) resumes it (``SnapshotOffer/Reason/resume``);
    /// - a replica that lacks changes this store holds only as state, because it joined from a
    ///   snapshot itself, takes the state (``SnapshotOffer/Reason/historyNotHeld``): the journal
    ///   would show it gaps it could not accept.
    ///
    /// The state is taken as of the journal's head, while the caller keeps the store locked or not:
    /// entries never move, so pages read later still give exactly that state.
    /// - Parameter stating: whether the offer carries this store's signed statement of the
    ///   state (``SnapshotOffer/statement``), made by reading every version's digest now (what
    ///   `ferry serve` sends); a reader that reads the pages in order in this process (a folder
    ///   peer) asks for ``statement(of:)`` once it read them all instead, and reads them once.
    public func snapshotOffer(
        for knowledge: VersionVector, pending: SnapshotJoins.Join?, stating: Bool = true
    ) throws(StoreError) -> StoreSnapshot? {
        let base = try self.snapshotJoins()
        return try withReadAccess { () throws(StoreError) -> StoreSnapshot? in
            let frontier = ReplicaFrontier(knowledge: index.knowledge, digests: index.digests)
            let reason: SnapshotOffer.Reason
            if let pending, pending.source == replicaID {
                reason = .resume
            } else {
                let covered = frontier.knowledge.sortedCounters
                guard covered.contains(where: { knowledge[$0.0] < $0.1 }) else { return nil }
                if knowledge.sortedCounters.allSatisfy({ $0.1 == 0 }) {
                    reason = .join
                } else if let base, base.frontier.knowledge.sortedCounters.contains(where: { knowledge[$0.0] < $0.1 }) {
                    reason = .historyNotHeld
                } else if let start = journal.start, start.frontier.knowledge.sortedCounters.contains(where: { knowledge[$0.0] < $0.1 }),
                    JournalArchive.open(start: start, root: layout.root) == nil
                {
                    // Compacted, and the archive is not there: the state instead.
                    reason = .historyNotHeld
                } else {
                    return nil
                }
            }
            var sequences: [UInt64] = []
            var records = 0
            sequences.reserveCapacity(index.records.count)
            let intact = index.records.forEachStateStreaming { state in
                records += 1
                for version in state.versions { sequences.append(version.sequence) }
            }
            if !intact {
                // Rebuilt from the journal by the read access, which then asks again.
                index.records.markDamaged("a record line cannot be read")
                return nil
            }
            sequences.sort()
            let head = index.head
            var offer = SnapshotOffer(
                id: head.hash, frontier: frontier, recordCount: records, changeCount: sequences.count, reason: reason,
                position: head.sequence, holdsHistory: base?.frontier.knowledge.sortedCounters.isEmpty ?? true)
            if stating { offer.statement = try statement(of: offer, versionsAt: sequences) }
            return StoreSnapshot(offer: offer, sequences: sequences)
        }
    }

    /// This store's signed statement of `offer`'s state, whose versions are the entries at
    /// `sequences` (``StateStatement``): their digests read once, each version checked against
    /// its digest as when it is sent, and one signature. `nil` when the store has no key (made
    /// before changes were signed, and not written since): the joiner is told the state is
    /// this store's word.
    private func statement(of offer: SnapshotOffer, versionsAt sequences: [UInt64]) throws(StoreError) -> JSONValue? {
        guard options.signsWork, let key = try existingSigningKey() else { return nil }
        var hasher = SHA256()
        for sequence in sequences {
            let entry: JournalEntry
            do throws(JournalError) { entry = try journal.entry(at: sequence) } catch { throw .journal(error) }
            try checkIntact(entry)
            hasher.update(entry.change.chainOrLegacy.digest.bytes)
        }
        return StateStatement(offer: offer, replica: replicaID, stateDigest: hasher.finalize()).signed(with: key)
    }

    /// This store's signed statement of `snapshot`'s state, once every version was read, page
    /// after page from the first (its digest was made as they were read); `nil` otherwise, or
    /// when the store has no key.
    public func statement(of snapshot: StoreSnapshot) throws(StoreError) -> JSONValue? {
        guard options.signsWork, snapshot.isFinished, snapshot.digested == snapshot.sequences.count, let key = try existingSigningKey() else {
            return nil
        }
        var hasher = snapshot.digestSoFar
        return StateStatement(offer: snapshot.offer, replica: replicaID, stateDigest: hasher.finalize()).signed(with: key)
    }

    /// The next page of `snapshot`'s versions, at most `limit` and about
    /// ``StoreOptions/maximumPageBytes`` of documents, each checked against its digest as any
    /// change this store sends; `nil` once every version was read.
    public func snapshotChanges(_ snapshot: inout StoreSnapshot, limit: Int) throws(StoreError) -> [Change]? {
        guard !snapshot.isFinished else { return nil }
        let end = min(snapshot.sequences.count, snapshot.delivered + max(1, limit))
        let sequences = snapshot.sequences[snapshot.delivered..<end]
        let budget = options.maximumPageBytes
        let changes = try withReadAccess { () throws(StoreError) -> [Change] in
            // The entries are read in order, then checked against their digests on every core
            // (about a third of reading them, on one core before); the first one altered is
            // refused, and an entry that cannot be read only after those before it were checked.
            var entries: [JournalEntry] = []
            entries.reserveCapacity(sequences.count)
            var unreadable: JournalError?
            var bytes = 0
            for sequence in sequences where entries.isEmpty || bytes < budget {
                let entry: JournalEntry
                do throws(JournalError) { entry = try journal.entry(at: sequence) } catch {
                    unreadable = error
                    break
                }
                bytes += entry.change.estimatedPageBytes
                entries.append(entry)
            }
            let read = entries
            let intact = ParallelWork.map(count: read.count, minimumChunk: 256) { index in Self.isIntact(read[index]) }
            if let altered = intact.firstIndex(of: false) { try checkIntact(read[altered]) }
            if let unreadable { throw .journal(unreadable) }
            return read.map { entry in
                var change = entry.change
                if change.chain == nil { change.chain = change.chainOrLegacy }
                return change
            }
        }
        if snapshot.digested == snapshot.delivered {
            for change in changes { snapshot.digestSoFar.update(change.chainOrLegacy.digest.bytes) }
            snapshot.digested += changes.count
        }
        snapshot.delivered += changes.count
        return changes
    }
}
