extension Store {
    /// Compares this replica (first) with another replica of the same data (second).
    ///
    /// Changes are matched by identity (origin and counter) against each side's knowledge
    /// vector, so only changes past the other side's knowledge are looked for: each journal is
    /// read backwards from its head until all of them are found, and never below the position a
    /// valid sync checkpoint between the two says the other side has. Since a record's state
    /// depends only on which of its changes a replica has, only the records those changes touch
    /// are compared, each looked up in the index (a binary search in the image, or the
    /// changes since), and documents are read only for those records.
    ///
    /// ```swift
    /// let comparison = try laptop.compare(with: server, includingFiles: true)
    /// if !comparison.isIdentical { print(comparison.onlyInFirst.count, "changes to push") }
    /// ```
    /// - Parameters:
    ///   - other: The other replica, open.
    ///   - includingFiles: Whether to also compare every record file's bytes (reads every file).
    /// - Throws: ``AuditError/store(_:)`` when either store cannot be read.
    public func compare(with other: Store, includingFiles: Bool = false) throws(AuditError) -> ReplicaComparison {
        var result = ReplicaComparison()
        do {
            let mine = try currentKnowledge()
            let theirs = try other.currentKnowledge()
            let first = try changes(unknownTo: theirs, knowing: mine, lowerBound: knownPosition(in: other))
            let second = try other.changes(unknownTo: mine, knowing: theirs, lowerBound: other.knownPosition(in: self))
            result.onlyInFirst = first.entries
            result.onlyInSecond = second.entries
            result.firstEntriesScanned = first.scanned
            result.secondEntriesScanned = second.scanned
            // A record's state depends only on which of its changes a replica has, so only the
            // records those changes touch can differ.
            var touched = Set(first.entries.map(\.change.key))
            touched.formUnion(second.entries.map(\.change.key))
            // Equal counters with other content (a copied folder): every record the diverged
            // replicas touched may differ, whatever the vectors say.
            let divergence = try currentFrontier().divergences(from: try other.currentFrontier())
            result.divergedReplicas = divergence.map { ChangeIdentity(origin: $0.origin, counter: $0.counter) }
            if !divergence.isEmpty {
                let origins = Set(divergence.map(\.origin))
                touched.formUnion(try keys(changedBy: origins))
                touched.formUnion(try other.keys(changedBy: origins))
            }
            let firstSides = try currentSides(of: touched)
            let secondSides = try other.currentSides(of: touched)
            for key in touched.sorted() {
                let firstSide = firstSides[key] ?? .absent
                let secondSide = secondSides[key] ?? .absent
                if firstSide.document == secondSide.document { continue }
                result.records.append(
                    ReplicaComparison.RecordDifference(
                        key: key, first: firstSide, second: secondSide,
                        changes: FieldChange.changes(from: firstSide.document, to: secondSide.document)))
            }
        } catch {
            throw .store(error)
        }
        if includingFiles {
            result.comparedFiles = true
            result.files = try Self.compareRecordFiles(layout, other.layout)
        }
        return result
    }

    /// The position in this journal through which `other` has every change, from this store's
    /// checkpoint for it, when the checkpoint still matches both journals; 0 otherwise.
    func knownPosition(in other: Store) -> UInt64 {
        guard let checkpoint = try? checkpoint(for: other.replicaID), checkpoint.localPosition > 0,
            (try? entryHash(at: checkpoint.localPosition)) == checkpoint.localHash,
            let peerMark = checkpoint.peerStoreMark, (try? other.entryHash(at: peerMark.position)) == peerMark.hash
        else { return 0 }
        return checkpoint.localPosition
    }

    /// This journal's entries whose change is past `knowledge`, in journal order, read backwards
    /// from the head until as many were found as the vectors say exist (or `lowerBound`).
    func changes(
        unknownTo knowledge: VersionVector, knowing own: VersionVector, lowerBound: UInt64
    ) throws(StoreError) -> (entries: [JournalEntry], scanned: Int) {
        var expected: UInt64 = 0
        for (origin, counter) in own.counters where counter > knowledge[origin] {
            expected += counter - knowledge[origin]
        }
        guard expected > 0 else { return ([], 0) }
        return try withReadAccess { () throws(StoreError) -> (entries: [JournalEntry], scanned: Int) in
            let reader = JournalReader(journal: journal)
            var found: [JournalEntry] = []
            var scanned = 0
            do throws(JournalError) {
                try reader.forEachEntryBackwards { entry in
                    guard entry.sequence > lowerBound else { return false }
                    scanned += 1
                    if entry.change.counter > knowledge[entry.change.origin] {
                        found.append(entry)
                        if UInt64(found.count) >= expected { return false }
                    }
                    return true
                }
            } catch {
                throw .journal(error)
            }
            return (found.reversed(), scanned)
        }
    }

    /// Every record that a change of one of `origins` touched in this journal (a full read).
    func keys(changedBy origins: Set<ReplicaID>) throws(StoreError) -> Set<RecordKey> {
        try withReadAccess { () throws(StoreError) -> Set<RecordKey> in
            var keys = Set<RecordKey>()
            do throws(JournalError) {
                try JournalReader(journal: journal).forEachEntryBackwards { entry in
                    if origins.contains(entry.change.origin) { keys.insert(entry.change.key) }
                    return true
                }
            } catch { throw .journal(error) }
            return keys
        }
    }

    /// What this replica shows for each of `keys`: each looked up in the index, and the
    /// winner's document read from the journal for the live ones.
    func currentSides(of keys: Set<RecordKey>) throws(StoreError) -> [RecordKey: ReplicaComparison.Side] {
        guard !keys.isEmpty else { return [:] }
        return try withReadAccess { () throws(StoreError) -> [RecordKey: ReplicaComparison.Side] in
            let reader = JournalReader(journal: journal, cacheLimit: 16)
            var sides: [RecordKey: ReplicaComparison.Side] = [:]
            // Newest first, so neighbouring records share the segments read.
            let states = keys.compactMap { key in index.records[key].map { (key: key, state: $0) } }
            for (key, state) in states.sorted(by: { $0.state.winner.sequence > $1.state.winner.sequence }) {
                guard state.isLive else {
                    sides[key] = .deleted
                    continue
                }
                do throws(JournalError) {
                    let document = try reader.entry(at: state.winner.sequence).change.operation.document
                    sides[key] = document.map { .live($0) } ?? .deleted
                } catch {
                    throw .journal(error)
                }
            }
            return sides
        }
    }

    /// Compares every file under both stores' `records/` byte for byte, but those each store's
    /// ``IgnoreRules`` pass over (an editor's swap file is no difference).
    static func compareRecordFiles(_ first: StoreLayout, _ second: StoreLayout) throws(AuditError) -> [ReplicaComparison.FileDifference] {
        func files(_ layout: StoreLayout) throws(AuditError) -> [String] {
            let rules: IgnoreRules
            do { rules = try IgnoreRules.load(storeRoot: layout.root) } catch { throw .store(error) }
            return RecordFileWalker.relativePaths(under: layout.records).filter { !rules.ignores("records/" + $0) }
        }
        let firstFiles = try files(first)
        let secondFiles = try files(second)
        var differences: [ReplicaComparison.FileDifference] = []
        let secondSet = Set(secondFiles)
        let firstSet = Set(firstFiles)
        for path in firstFiles {
            guard secondSet.contains(path) else {
                differences.append(.init(path: "records/" + path, kind: .onlyInFirst))
                continue
            }
            let a = try? FileSystem.readFile(first.records + "/" + path)
            let b = try? FileSystem.readFile(second.records + "/" + path)
            if a != b { differences.append(.init(path: "records/" + path, kind: .contentDiffers)) }
        }
        for path in secondFiles where !firstSet.contains(path) {
            differences.append(.init(path: "records/" + path, kind: .onlyInSecond))
        }
        return differences.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }
}
