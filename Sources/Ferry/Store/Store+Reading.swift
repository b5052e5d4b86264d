extension Store {
    /// The record's current document, or `nil` when there is no live record.
    ///
    /// Returns what the journal says, never an uncommitted hand edit: the record file is used
    /// when it still holds what Ferry wrote, the journal otherwise.
    public func get(entity: EntityName, id: RecordID) throws(StoreError) -> JSONValue? {
        try withReadAccess { () throws(StoreError) -> JSONValue? in
            let key = RecordKey(entity: entity, id: id)
            guard let state = index.records[key], state.isLive else { return nil }
            return try currentDocument(key, state: state)
        }
    }

    /// The winner's document of a live record.
    func currentDocument(_ key: RecordKey, state: RecordState) throws(StoreError) -> JSONValue {
        if let stamp = state.file, let bytes = try? FileSystem.readFile(layout.recordFile(key), limit: options.maximumDocumentBytes * 4),
            SHA256.hash(bytes) == stamp.contentHash, let document = try? JSONParser.parse(bytes, options: options.recordFileParsing)
        {
            return document
        }
        return try document(of: state.winner, documents: [:])
    }

    /// The ids of an entity's live records, sorted by their UTF-8 bytes.
    ///
    /// Holds every id in memory; ``forEachID(of:_:)`` streams them instead.
    public func ids(of entity: EntityName) throws(StoreError) -> [RecordID] {
        var ids: [RecordID] = []
        try forEachID(of: entity) { id in
            ids.append(id)
            return true
        }
        return ids
    }

    /// Calls `body` with the id of each live record of an entity, sorted by their UTF-8 bytes,
    /// reading the index a piece at a time: a million records list in flat memory. Return
    /// `false` from `body` to stop.
    ///
    /// ```swift
    /// try store.forEachID(of: EntityName("User")) { id in
    ///     print(id)
    ///     return true
    /// }
    /// ```
    /// - Throws: ``StoreError/damagedIndex(reason:)`` when the index, found damaged and rebuilt
    ///   part way, lists records before the last id handed out that `body` was not given (run
    ///   again); what `body` throws.
    public func forEachID(of entity: EntityName, _ body: (_ id: RecordID) throws(StoreError) -> Bool) throws(StoreError) {
        try forEachLiveRecord(of: entity, withStates: false) { id, _ throws(StoreError) -> Bool in try body(id) }
    }

    /// The live records of an entity with their documents, sorted by id.
    ///
    /// Holds every document in memory; ``forEachRecord(of:_:)`` streams them instead.
    public func records(of entity: EntityName) throws(StoreError) -> [(id: RecordID, document: JSONValue)] {
        var result: [(id: RecordID, document: JSONValue)] = []
        try forEachRecord(of: entity) { id, document in
            result.append((id, document))
            return true
        }
        return result
    }

    /// Calls `body` with each live record of an entity and its document, sorted by id, one
    /// document in memory at a time, reading the index a piece at a time. Return `false` from
    /// `body` to stop.
    ///
    /// ```swift
    /// try store.forEachRecord(of: EntityName("User")) { id, document in
    ///     print(id, document["name"] ?? .null)
    ///     return true
    /// }
    /// ```
    /// - Throws: what ``forEachID(of:_:)`` throws; ``StoreError`` when a document cannot be read.
    public func forEachRecord(
        of entity: EntityName, _ body: (_ id: RecordID, _ document: JSONValue) throws(StoreError) -> Bool
    ) throws(StoreError) {
        try forEachLiveRecord(of: entity, withStates: true) { id, state throws(StoreError) -> Bool in
            guard let state else { return true }
            return try body(id, try currentDocument(RecordKey(entity: entity, id: id), state: state))
        }
    }

    /// Every entity with live records, with their counts, sorted by name.
    public func entities() throws(StoreError) -> [(entity: EntityName, count: Int)] {
        try withReadAccess { () throws(StoreError) -> [(entity: EntityName, count: Int)] in
            index.liveCounts.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
    }

    /// The index's state of one record (live, deleted or conflicted); `nil` if never written.
    public func state(of key: RecordKey) throws(StoreError) -> RecordState? {
        try withReadAccess { () throws(StoreError) -> RecordState? in index.records[key] }
    }

    /// Journal entries after `sequence` (0 for all), in order, at most `limit`.
    public func journalEntries(after sequence: UInt64 = 0, limit: Int = Int.max) throws(StoreError) -> [JournalEntry] {
        try withReadAccess { () throws(StoreError) -> [JournalEntry] in
            var result: [JournalEntry] = []
            do throws(JournalError) {
                var cursor = try journal.entries(after: min(sequence, journal.headSequence))
                while result.count < limit, let entry = try cursor.next() { result.append(entry) }
            } catch { throw .journal(error) }
            return result
        }
    }

    /// Calls `body` with each journal entry after `sequence`, streaming (one segment in memory).
    /// Return `false` from `body` to stop.
    public func forEachJournalEntry(
        after sequence: UInt64 = 0, _ body: (JournalEntry) throws(StoreError) -> Bool
    ) throws(StoreError) {
        mutex.lock()
        defer { mutex.unlock() }
        var cursor: JournalCursor
        do { cursor = try journal.entries(after: min(sequence, journal.headSequence)) } catch { throw .journal(error) }
        while true {
            let next: JournalEntry?
            do { next = try cursor.next() } catch { throw .journal(error) }
            guard let entry = next else { return }
            if try !body(entry) { return }
        }
    }

    /// The journal entry at `sequence`.
    public func journalEntry(at sequence: UInt64) throws(StoreError) -> JournalEntry {
        try withReadAccess { () throws(StoreError) -> JournalEntry in
            do throws(JournalError) { return try journal.entry(at: sequence) } catch { throw .journal(error) }
        }
    }
}
