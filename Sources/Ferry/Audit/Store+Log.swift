extension Store {
    /// The journal's changes matching `query`, newest first.
    ///
    /// ```swift
    /// for item in try store.log(LogQuery(id: try RecordID("lamp"), limit: 10)) {
    ///     print(item.entry.sequence, item.entry.change.operation.name, item.changes ?? [])
    /// }
    /// ```
    /// - Parameters:
    ///   - query: The filters and limit.
    ///   - fieldChanges: Whether to diff each put against the record's previous entry (one
    ///     extra read per put).
    /// - Returns: The matching entries, newest first.
    /// - Throws: ``AuditError/store(_:)`` when the journal cannot be read.
    public func log(_ query: LogQuery, fieldChanges: Bool = true) throws(AuditError) -> [LogEntry] {
        var result: [LogEntry] = []
        try log(query, fieldChanges: fieldChanges) { item in
            result.append(item)
            return true
        }
        return result
    }

    /// Streams the changes matching `query`, newest first, to `body`; return `false` to stop.
    ///
    /// With ``LogQuery/id`` set, each matching record's `pseq` chain is walked back from its
    /// last sequence in the index (without an entity, the id is looked up in every entity the
    /// image's sorted lines and the changes since list), one read per version, so the cost
    /// does not grow with the journal or the store. Otherwise the journal is read backwards,
    /// one segment at a time.
    public func log(
        _ query: LogQuery, fieldChanges: Bool = true, _ body: (LogEntry) -> Bool
    ) throws(AuditError) {
        do {
            try withReadAccess { () throws(StoreError) in
                // For one id, each record's chain starts from its last sequence.
                let chainHeads = query.id.map { id in
                    lastSequences(of: id, entity: query.entity).sorted { $0.key < $1.key }.map(\.value)
                }
                let reader = JournalReader(journal: journal)
                var emitted = 0
                let limit = query.limit ?? Int.max
                guard limit > 0 else { return }
                var memo: [UInt64: JournalEntry] = [:]
                func entry(at sequence: UInt64) throws(JournalError) -> JournalEntry {
                    if let found = memo[sequence] { return found }
                    let found = try reader.entry(at: sequence)
                    if memo.count > 256 { memo.removeAll(keepingCapacity: true) }
                    memo[sequence] = found
                    return found
                }
                func emit(_ journalEntry: JournalEntry) throws(JournalError) -> Bool {
                    guard query.matches(journalEntry) else { return true }
                    var item = LogEntry(entry: journalEntry, changes: nil, createsRecord: false)
                    if fieldChanges {
                        let previous = journalEntry.previousSequenceOfRecord
                        var before: JSONValue?
                        var archived = false
                        if previous > 0 {
                            do throws(JournalError) { before = try entry(at: previous).change.operation.document } catch {
                                // The previous version was archived by `ferry compact`: no diff.
                                guard case .archived = error else { throw error }
                                archived = true
                            }
                        }
                        item.createsRecord = before == nil && !archived
                        if archived {
                            item.changes = nil
                        } else if let document = journalEntry.change.operation.document {
                            item.changes = FieldChange.changes(from: before, to: document)
                        } else {
                            item.changes = []
                        }
                    }
                    emitted += 1
                    return body(item) && emitted < limit
                }
                do throws(JournalError) {
                    if var heads = chainHeads {
                        // Each record's chain, newest first; merged by sequence.
                        while let position = heads.indices.max(by: { heads[$0] < heads[$1] }), heads[position] > 0 {
                            let found: JournalEntry
                            do throws(JournalError) { found = try entry(at: heads[position]) } catch {
                                // Older history was moved to the archive by `ferry compact`.
                                guard case .archived = error else { throw error }
                                heads[position] = 0
                                continue
                            }
                            heads[position] = found.previousSequenceOfRecord
                            guard found.previousSequenceOfRecord < found.sequence else {
                                throw JournalError.malformedEntry(
                                    segment: "journal", line: Int(found.sequence), reason: "pseq does not point back")
                            }
                            if try !emit(found) { return }
                        }
                    } else {
                        try reader.forEachEntryBackwards { (found) throws(JournalError) -> Bool in try emit(found) }
                    }
                } catch {
                    throw StoreError.journal(error)
                }
            }
        } catch {
            throw .store(error)
        }
    }
}

extension Store {
    /// The last journal sequence of each record with `id` (in `entity` when given). Call it
    /// holding read access.
    ///
    /// Without an entity, the id is looked up in every entity that has records: the
    /// image's, read from its sorted lines without decoding a record, and those of records
    /// changed since (the delta file and this session, both in the table's overlay). Only when
    /// the image cannot be read that way are all records listed.
    func lastSequences(of id: RecordID, entity: EntityName?) -> [RecordKey: UInt64] {
        var found: [RecordKey: UInt64] = [:]
        guard let entities = entity.map({ [$0] }) ?? entitiesWithRecords() else {
            for (key, state) in index.records where key.id == id { found[key] = state.lastSequence }
            return found
        }
        for entity in entities {
            let key = RecordKey(entity: entity, id: id)
            if let state = index.records[key] { found[key] = state.lastSequence }
        }
        return found
    }

    /// Every entity with a record (live or deleted), or `nil` when the image's lines cannot
    /// be read.
    private func entitiesWithRecords() -> [EntityName]? {
        var entities = Set(index.records.changes.keys.map(\.entity))
        if let base = index.records.base {
            let header = base.header
            guard let listed = IndexRecordLookup.entities(inImageAt: base.path, head: header.head, recordCount: header.recordCount)
            else { return nil }
            entities.formUnion(listed)
        }
        return entities.sorted()
    }
}
