extension Store {
    /// Compares this replica (first) with another replica of the same data (second).
    ///
    /// Changes are matched by identity (origin and counter) against each side's knowledge
    /// vector, so only changes past the other side's knowledge are looked for: each journal is
    /// read backwards from its head until all of them are found, and never below the position a
    /// valid sync checkpoint between the two says the other side has. Current content is
    /// compared by the winners' content hashes held in both indexes; documents are read only for
    /// the records that differ.
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
            let mine = try auditView()
            let theirs = try other.auditView()
            let first = try changes(unknownTo: theirs.knowledge, knowing: mine.knowledge, lowerBound: knownPosition(in: other))
            let second = try other.changes(unknownTo: mine.knowledge, knowing: theirs.knowledge, lowerBound: other.knownPosition(in: self))
            result.onlyInFirst = first.entries
            result.onlyInSecond = second.entries
            result.firstEntriesScanned = first.scanned
            result.secondEntriesScanned = second.scanned

            var differing: [RecordKey] = []
            for (key, state) in mine.records {
                let theirState = theirs.records[key]
                if !Self.sameContent(state, theirState) { differing.append(key) }
            }
            for (key, state) in theirs.records where mine.records[key] == nil {
                if !Self.sameContent(nil, state) { differing.append(key) }
            }
            differing.sort()
            let firstDocuments = try winnerDocuments(differing.filter { mine.records[$0]?.isLive == true })
            let secondDocuments = try other.winnerDocuments(differing.filter { theirs.records[$0]?.isLive == true })
            for key in differing {
                let firstSide = Self.side(mine.records[key], document: firstDocuments[key])
                let secondSide = Self.side(theirs.records[key], document: secondDocuments[key])
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

    /// The index's records, knowledge and head at one moment.
    struct AuditView {
        var records: [RecordKey: RecordState]
        var knowledge: VersionVector
        var head: StoreHead
    }

    func auditView() throws(StoreError) -> AuditView {
        try withReadAccess { () throws(StoreError) -> AuditView in
            AuditView(
                records: Dictionary(uniqueKeysWithValues: index.records.map { ($0.key, $0.value) }), knowledge: index.knowledge,
                head: StoreHead(sequence: index.headSequence, hash: index.headHash, latestModification: index.latestModification))
        }
    }

    /// The position in this journal through which `other` has every change, from this store's
    /// checkpoint for it, when the checkpoint still matches both journals; 0 otherwise.
    func knownPosition(in other: Store) -> UInt64 {
        guard let checkpoint = checkpoint(for: other.replicaID), checkpoint.localPosition > 0,
            (try? entryHash(at: checkpoint.localPosition)) == checkpoint.localHash,
            (try? other.entryHash(at: checkpoint.peerPosition)) == checkpoint.peerHash
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

    /// The current documents of live records, read from the journal.
    func winnerDocuments(_ keys: [RecordKey]) throws(StoreError) -> [RecordKey: JSONValue] {
        guard !keys.isEmpty else { return [:] }
        return try withReadAccess { () throws(StoreError) -> [RecordKey: JSONValue] in
            let reader = JournalReader(journal: journal)
            var documents: [RecordKey: JSONValue] = [:]
            for key in keys {
                guard let state = index.records[key], state.isLive else { continue }
                do throws(JournalError) {
                    documents[key] = try reader.entry(at: state.winner.sequence).change.operation.document
                } catch {
                    throw .journal(error)
                }
            }
            return documents
        }
    }

    private static func sameContent(_ first: RecordState?, _ second: RecordState?) -> Bool {
        let firstLive = first?.isLive ?? false
        let secondLive = second?.isLive ?? false
        guard firstLive, secondLive, let first, let second else { return firstLive == secondLive }
        return first.winner.contentHash == second.winner.contentHash
    }

    private static func side(_ state: RecordState?, document: JSONValue?) -> ReplicaComparison.Side {
        guard let state else { return .absent }
        guard state.isLive, let document else { return .deleted }
        return .live(document)
    }

    /// Compares every file under both stores' `records/` byte for byte.
    static func compareRecordFiles(_ first: StoreLayout, _ second: StoreLayout) throws(AuditError) -> [ReplicaComparison.FileDifference] {
        let firstFiles = RecordFileWalker.relativePaths(under: first.records)
        let secondFiles = RecordFileWalker.relativePaths(under: second.records)
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
