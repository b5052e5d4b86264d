/// The index's records: the image file on disk (read lazily, see ``IndexFile``), the delta
/// file written on top of it by earlier processes or merges (read lazily too), during a long run
/// of writes this process's spill on top of that, plus the states changed since, in memory.
/// Reads look in memory first, then in the spill, the delta and the image; writes go to
/// memory. It reads like a dictionary from ``RecordKey`` to ``RecordState``.
///
/// The delta is only decoded whole when the whole table is read or saved, so opening a store
/// and syncing it costs the same whether the delta holds ten records or ten thousand.
///
/// Records are never removed: a deleted record keeps its tombstone state.
struct RecordTable: Sequence {
    typealias Element = (key: RecordKey, value: RecordState)

    /// The image the table starts from, if any.
    private(set) var base: IndexFile?
    /// States changed since the image by earlier processes, on disk, looked up like the
    /// image; new image and delta files copy its lines.
    private(set) var delta: IndexFile?
    /// States changed by this process's long run of writes since the delta was written, merged
    /// out of memory into an unnamed file of the delta's form that no other process reads (see
    /// ``Store/mergeLevel(_:)``): merging every 16k changes into the delta, which grows to half
    /// the image, copied the whole delta each time, quadratic in the run's length. Its
    /// replica numbering extends the delta's.
    private(set) var spill: IndexFile?
    /// States changed in memory since the image (and the delta) were read, or, while a
    /// merge runs, since it started.
    private(set) var overlay: [RecordKey: RecordState] = [:]
    /// While a image merge runs on another thread: the states it is merging (the overlay as
    /// it was when it started), shared with it, read-only. ``overlay`` wins over them. Handing
    /// them over rather than copying the overlay saves a copy of the whole table per merge
    /// and the memory of a second table while it runs.
    private(set) var merging: [RecordKey: RecordState]?
    /// File stamps confirmed for records that are otherwise as the image has them; a state
    /// in ``overlay`` wins over them.
    private(set) var confirmed = ConfirmedStamps()
    /// The number of records.
    private(set) var count: Int

    init(base: IndexFile? = nil) {
        self.base = base
        count = base?.header.recordCount ?? 0
    }

    /// A table from a image and the delta written on top of it.
    init(base: IndexFile?, delta: IndexFile, totalCount: Int) {
        self.base = base
        self.delta = delta
        count = totalCount
        // A new image copies the delta's lines as they are, which needs the delta's replica
        // numbering to extend the image's (as Ferry writes it); otherwise decode it now.
        if !delta.header.replicas.starts(with: base?.header.replicas ?? []) { absorbDelta() }
    }

    // MARK: Merges

    /// Hands the states changed in memory to a image merge: returns the table the merge
    /// writes (reading the files through new descriptors, see ``reopened()``), and keeps its
    /// states here as ``merging`` while new changes go to an empty ``overlay``. `nil` when
    /// descriptors could not be made, or a merge already runs.
    mutating func handOverToMerge() -> RecordTable? {
        guard merging == nil, let frozen = reopened() else { return nil }
        merging = overlay
        overlay = [:]
        return frozen
    }

    /// Continues from the image a merge of `frozen` wrote: its states and stamps are in it,
    /// so memory keeps only what changed since.
    mutating func completeMerge(into image: IndexFile, frozen: RecordTable) {
        base = image
        delta = nil
        spill = nil
        merging = nil
        confirmed = confirmed.subtracting(frozen.confirmed)
    }

    /// Continues from the delta a merge of `frozen` wrote on top of the same image: its
    /// states and stamps are in it, so memory keeps only what changed since.
    mutating func completeDeltaMerge(into delta: IndexFile, frozen: RecordTable) {
        self.delta = delta
        spill = nil
        merging = nil
        confirmed = confirmed.subtracting(frozen.confirmed)
    }

    /// Continues from the spill a merge of `frozen` wrote on top of the same delta: its states
    /// are in it, so memory keeps only what changed since. (A spill takes no confirmed stamps.)
    mutating func completeSpillMerge(into spill: IndexFile) {
        self.spill = spill
        merging = nil
    }

    /// Takes back the states handed to a merge that will not be swapped in.
    mutating func abandonMerge() {
        guard let merging else { return }
        self.merging = nil
        overlay = merging.merging(overlay) { _, newer in newer }
    }

    /// The state of `key` changed in memory (since the image and delta were read), if any.
    func stateInMemory(_ key: RecordKey) -> RecordState? {
        overlay[key] ?? merging?[key]
    }

    /// Visits every state changed in memory (``overlay``, then the ``merging`` ones it does
    /// not shadow).
    func forEachStateInMemory(_ body: (RecordKey, RecordState) -> Void) {
        for (key, state) in overlay { body(key, state) }
        guard let merging else { return }
        for (key, state) in merging where overlay[key] == nil { body(key, state) }
    }

    /// How many states are in memory (a key both handed to a merge and changed since counts
    /// twice).
    var inMemoryCount: Int { overlay.count + (merging?.count ?? 0) }

    /// The same table reading its files through new descriptors (see
    /// ``IndexFile/reopened()``), so another thread can read it; `nil` if one cannot be made.
    func reopened() -> RecordTable? {
        var copy = self
        if let base {
            guard let reopened = base.reopened() else { return nil }
            copy.base = reopened
        }
        if let delta {
            guard let reopened = delta.reopened() else { return nil }
            copy.delta = reopened
        }
        if let spill {
            guard let reopened = spill.reopened() else { return nil }
            copy.spill = reopened
        }
        return copy
    }

    var isEmpty: Bool { count == 0 }

    /// Why the image, the delta or the spill could not be read, when a lookup found it damaged.
    var damage: String? { spill?.damage ?? delta?.damage ?? base?.damage }

    subscript(key: RecordKey) -> RecordState? {
        get {
            if let state = stateInMemory(key) { return state }
            return stored(key)
        }
        set {
            guard let newValue else { return }
            if stateInMemory(key) == nil && stored(key) == nil { count += 1 }
            overlay[key] = newValue
        }
    }

    /// The state of `key`, like the subscript, for a caller that keeps the answer itself (the
    /// image files do not remember it).
    func state(of key: RecordKey) -> RecordState? {
        if let state = stateInMemory(key) { return state }
        return stored(key, remembering: false)
    }

    /// The state of `key` in the files (the spill, the delta, then the image, with the
    /// stamp confirmed since, if any).
    private func stored(_ key: RecordKey, remembering: Bool = true) -> RecordState? {
        var sortKey: [UInt8]?
        if let spill, let state = spill.lookup(key, sortKey: &sortKey, remembering: remembering) { return state }
        if let delta, let state = delta.lookup(key, sortKey: &sortKey, remembering: remembering) { return state }
        guard var state = base?.lookup(key, sortKey: &sortKey, remembering: remembering) else { return nil }
        if !confirmed.isEmpty, let stamp = confirmed.stamp(forSortKey: sortKey ?? IndexRecordLine.sortKey(key)) {
            state.file = stamp
        }
        return state
    }

    /// Every state changed since the image: the spill's and the delta's, decoded now, under
    /// the in-memory ones.
    var changes: [RecordKey: RecordState] {
        var all = overlay
        if let merging { all.merge(merging) { newer, _ in newer } }
        for file in [spill, delta] {
            file?.forEachRecord { key, state in
                if all[key] == nil { all[key] = state }
            }
        }
        return all
    }

    /// About how many records changed since the image, confirmed stamps included (a key
    /// in both the delta and memory counts twice): enough to decide when to merge them into a
    /// new image.
    var changedCount: Int { inMemoryCount + spilledCount + (delta?.header.recordCount ?? 0) + confirmed.count }

    /// How many records the spill holds.
    var spilledCount: Int { spill?.header.recordCount ?? 0 }

    /// Decodes the delta (and the spill) into memory and drops it: for a delta whose lines a new
    /// file could not copy as they are (its replica numbering does not extend the image's).
    mutating func absorbDelta() {
        guard delta != nil || spill != nil else { return }
        overlay = changes
        merging = nil
        delta = nil
        spill = nil
    }

    /// Every record (base records not changed since, then the changed ones).
    func makeIterator() -> IndexingIterator<[Element]> {
        let changes = self.changes
        var all: [Element] = []
        all.reserveCapacity(count)
        base?.forEachRecord { key, state in
            guard changes[key] == nil else { return }
            var state = state
            if !confirmed.isEmpty, let stamp = confirmed.stamp(forSortKey: IndexRecordLine.sortKey(key)) { state.file = stamp }
            all.append((key, state))
        }
        for (key, state) in changes { all.append((key, state)) }
        return all.makeIterator()
    }

    /// Visits every record for a scan of the record files, cheaply: records unchanged since
    /// the image as raw image lines with their sort keys (`<entity>\t<encoded id>`), to
    /// be decoded only when needed, with the file stamp confirmed since when there is one
    /// (it replaces the line's); records changed since as states.
    func forEachForScan(
        unchanged: (_ sortKey: ArraySlice<UInt8>, _ line: ArraySlice<UInt8>, _ confirmedStamp: FileStamp?) -> Void,
        changed: (RecordKey, RecordState) -> Void
    ) {
        let changes = self.changes
        var stamps = confirmed.walk()
        forEachUnchangedLine(of: nil, streaming: true, changes: changes) { sortKey, line in
            unchanged(sortKey, line, stamps.stamp(forSortKey: sortKey))
        }
        for (key, state) in changes { changed(key, state) }
    }

    /// The image's raw lines (of one entity, or all) whose records have not changed since
    /// it was written. Streaming reads the file in pieces instead of loading it for lookups.
    private func forEachUnchangedLine(
        of entity: EntityName?, streaming: Bool, changes: [RecordKey: RecordState],
        _ body: (_ sortKey: ArraySlice<UInt8>, _ line: ArraySlice<UInt8>) -> Void
    ) {
        guard let base else { return }
        let prefix: [UInt8] = entity.map { Array($0.rawValue.utf8) + [9] } ?? []
        // The lines come in sort order: walk the changed keys, sorted too, alongside them.
        let overridden = changes.keys.lazy.filter { entity == nil || $0.entity == entity }.map(IndexRecordLine.sortKey)
            .sorted { ByteOrder.precedes($0, $1) }
        var next = 0
        func visit(_ sortKey: ArraySlice<UInt8>, _ line: ArraySlice<UInt8>) {
            guard sortKey.starts(with: prefix) else { return }
            while next < overridden.count && ByteOrder.precedes(overridden[next], sortKey) { next += 1 }
            if next < overridden.count && ByteOrder.compare(overridden[next], sortKey) == 0 { return }
            body(sortKey, line)
        }
        if let entity, !base.isLoaded {
            // One entity's lines, read in pieces from where a search on disk finds the first:
            // loading a million-record image for one entity held all 250 MB of it.
            var cursor = IndexLineCursor(file: base, entity: entity)
            while let (sortKey, line) = cursor.next() { visit(sortKey, line) }
        } else if streaming {
            base.forEachRawLineStreaming(visit)
        } else {
            base.forEachRawLine(visit)
        }
    }

    /// The ids of an entity's live records, unsorted. Records unchanged since the image are
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
        let changes = self.changes
        forEachUnchangedLine(of: entity, streaming: false, changes: changes) { sortKey, line in
            guard IndexRecordLine.lineIsLive(line), let id = RecordFileName.decode(bytes: sortKey.dropFirst(prefixLength)) else { return }
            guard withHash else { return body(id, .zero) }
            guard let hash = IndexRecordLine.winnerHash(ofLine: line) else {
                base?.markDamaged("malformed versions of \(entity.rawValue)/\(id.rawValue)")
                return
            }
            body(id, hash)
        }
        for (key, state) in changes where key.entity == entity && state.isLive { body(key.id, state.winner.contentHash) }
    }

    /// Makes room in memory for `count` more records, before a batch sets them: a table grown
    /// one doubling at a time moves every record it holds at each step.
    mutating func reserveCapacity(adding count: Int) {
        overlay.reserveCapacity(overlay.count + count)
    }

    /// Sets the state of a record whose presence the caller knows (no lookup to count it).
    mutating func set(_ key: RecordKey, _ state: RecordState, isNew: Bool) {
        if isNew { count += 1 }
        overlay[key] = state
    }

    /// Sets what Ferry last wrote to a record's file, in place; nothing when the table has no
    /// such record. A batch stamps every file it wrote, and the record is in memory by then:
    /// one lookup instead of the three of `table[key]?.file = stamp`.
    mutating func setFile(_ stamp: FileStamp?, of key: RecordKey) {
        if let position = overlay.index(forKey: key) {
            overlay.values[position].file = stamp
        } else if var state = merging?[key] ?? stored(key) {
            state.file = stamp
            overlay[key] = state
        }
    }

    /// Replaces the state of a record the table already has (no lookup to count it).
    mutating func replaceExisting(_ key: RecordKey, with state: RecordState) {
        overlay[key] = state
    }

    /// Records file stamps confirmed for records unchanged since the image, sorted by sort
    /// key (see ``ConfirmedStamps``); a record's state in memory still wins over its stamp.
    mutating func confirm(_ stamps: [ConfirmedStamps.Entry]) {
        confirmed.add(stamps)
    }

    /// Marks the image damaged (a consistency check failed), so the store rebuilds it.
    mutating func markDamaged(_ reason: String) {
        base?.markDamaged(reason)
    }

    /// Decodes a line handed out by ``forEachForScan(unchanged:changed:)``.
    func decode(line: ArraySlice<UInt8>) -> (RecordKey, RecordState)? {
        base?.decodeRecord(line)
    }

    /// Calls `body` with every record's state, those unchanged since the image read from it
    /// a line at a time and decoded one by one, so the table is never held whole.
    /// - Returns: `false`, having stopped, when a image line cannot be read.
    func forEachStateStreaming(_ body: (RecordState) -> Void) -> Bool {
        var intact = true
        forEachForScan(
            unchanged: { _, line, _ in
                guard intact else { return }
                guard let (_, state) = decode(line: line) else {
                    intact = false
                    return
                }
                body(state)
            },
            changed: { _, state in if intact { body(state) } })
        return intact
    }

    /// The keys of every record.
    var keys: [RecordKey] { map(\.key) }
}
