/// The index's records: the snapshot file on disk (read lazily, see ``SnapshotFile``) plus the
/// states changed since it was written, in memory. Reads look in memory first; writes go to
/// memory. It reads like a dictionary from ``RecordKey`` to ``RecordState``.
///
/// Records are never removed: a deleted record keeps its tombstone state.
struct RecordTable: Sequence {
    typealias Element = (key: RecordKey, value: RecordState)

    /// The snapshot the table starts from, if any.
    private(set) var base: SnapshotFile?
    /// States changed since the snapshot.
    private(set) var overlay: [RecordKey: RecordState] = [:]
    /// The number of records.
    private(set) var count: Int

    init(base: SnapshotFile? = nil) {
        self.base = base
        count = base?.header.recordCount ?? 0
    }

    /// A table from a snapshot and the delta written on top of it.
    init(base: SnapshotFile?, delta: [(RecordKey, RecordState)], totalCount: Int) {
        self.base = base
        for (key, state) in delta { overlay[key] = state }
        count = totalCount
    }

    var isEmpty: Bool { count == 0 }

    /// Why the snapshot could not be read, when a lookup found it damaged.
    var damage: String? { base?.damage }

    subscript(key: RecordKey) -> RecordState? {
        get { overlay[key] ?? base?.lookup(key) }
        set {
            guard let newValue else { return }
            if overlay[key] == nil && base?.lookup(key) == nil { count += 1 }
            overlay[key] = newValue
        }
    }

    /// Every record (base records not changed since, then the changed ones).
    func makeIterator() -> IndexingIterator<[Element]> {
        var all: [Element] = []
        all.reserveCapacity(count)
        base?.forEachRecord { key, state in
            if overlay[key] == nil { all.append((key, state)) }
        }
        for (key, state) in overlay { all.append((key, state)) }
        return all.makeIterator()
    }

    /// Visits every record for a scan of the record files, cheaply: records unchanged since
    /// the snapshot as raw snapshot lines with their sort keys (`<entity>\t<encoded id>`), to
    /// be decoded only when needed; records changed since as states.
    func forEachForScan(
        unchanged: (_ sortKey: ArraySlice<UInt8>, _ line: ArraySlice<UInt8>) -> Void,
        changed: (RecordKey, RecordState) -> Void
    ) {
        forEachUnchangedLine(of: nil, streaming: true, unchanged)
        for (key, state) in overlay { changed(key, state) }
    }

    /// The snapshot's raw lines (of one entity, or all) whose records have not changed since
    /// it was written. Streaming reads the file in pieces instead of loading it for lookups.
    private func forEachUnchangedLine(
        of entity: EntityName?, streaming: Bool, _ body: (_ sortKey: ArraySlice<UInt8>, _ line: ArraySlice<UInt8>) -> Void
    ) {
        guard let base else { return }
        let prefix: [UInt8] = entity.map { Array($0.rawValue.utf8) + [9] } ?? []
        let overridden = Set(overlay.keys.lazy.filter { entity == nil || $0.entity == entity }.map(SnapshotFile.sortKey))
        let visit: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Void = { sortKey, line in
            guard sortKey.starts(with: prefix) else { return }
            if !overridden.isEmpty && overridden.contains(Array(sortKey)) { return }
            body(sortKey, line)
        }
        if streaming { base.forEachRawLineStreaming(visit) } else { base.forEachRawLine(visit) }
    }

    /// The ids of an entity's live records, unsorted. Records unchanged since the snapshot are
    /// read from raw lines: only the id is decoded.
    func liveIDs(of entity: EntityName) -> [RecordID] {
        var ids: [RecordID] = []
        forEachLiveRecord(of: entity, withHash: false) { id, _ in ids.append(id) }
        return ids
    }

    /// The live records of an entity with their winners' content hashes, unsorted, read like
    /// ``liveIDs(of:)``.
    func liveWinnerHashes(of entity: EntityName) -> [(id: RecordID, hash: SHA256Digest)] {
        var result: [(id: RecordID, hash: SHA256Digest)] = []
        forEachLiveRecord(of: entity, withHash: true) { id, hash in result.append((id, hash)) }
        return result
    }

    private func forEachLiveRecord(of entity: EntityName, withHash: Bool, _ body: (RecordID, SHA256Digest) -> Void) {
        let prefixLength = entity.rawValue.utf8.count + 1
        forEachUnchangedLine(of: entity, streaming: false) { sortKey, line in
            guard SnapshotFile.lineIsLive(line), let id = RecordFileName.decode(bytes: sortKey.dropFirst(prefixLength)) else { return }
            guard withHash else { return body(id, .zero) }
            guard let hash = SnapshotFile.winnerHash(ofLine: line) else {
                base?.markDamaged("malformed versions of \(entity.rawValue)/\(id.rawValue)")
                return
            }
            body(id, hash)
        }
        for (key, state) in overlay where key.entity == entity && state.isLive { body(key.id, state.winner.contentHash) }
    }

    /// Replaces the state of a record the table already has (no lookup to count it).
    mutating func replaceExisting(_ key: RecordKey, with state: RecordState) {
        overlay[key] = state
    }

    /// Marks the snapshot damaged (a consistency check failed), so the store rebuilds it.
    mutating func markDamaged(_ reason: String) {
        base?.markDamaged(reason)
    }

    /// Decodes a line handed out by ``forEachForScan(unchanged:changed:)``.
    func decode(line: ArraySlice<UInt8>) -> (RecordKey, RecordState)? {
        base?.decodeRecord(line)
    }

    /// The keys of every record.
    var keys: [RecordKey] { map(\.key) }
}
