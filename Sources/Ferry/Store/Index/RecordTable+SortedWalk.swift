/// Walking one entity's records in sort-key order (`<entity>\t<encoded id>`) without loading
/// the table: the image's lines of that entity, the delta's and the spill's, each read a
/// piece at a time (``IndexLineCursor``), merged with the states changed in memory, sorted.
/// A record in memory wins over the spill's line, which wins over the delta's, which wins over
/// the image's.
extension RecordTable {
    /// A record met by ``forEachRecordInSortOrder(of:_:)``: where its state is.
    enum WalkedRecord {
        /// A line of the image (with the file stamp confirmed since, if any), the delta or
        /// the spill, as it is in `file`, not decoded.
        case line(ArraySlice<UInt8>, file: IndexFile, confirmedStamp: FileStamp?)
        /// A state changed in memory.
        case state(RecordState)

        /// Whether the record is live (its winner is not a delete); a line is not decoded.
        var isLive: Bool {
            switch self {
            case .line(let line, _, _): return IndexRecordLine.lineIsLive(line)
            case .state(let state): return state.isLive
            }
        }

        /// The record's state, decoded from its line if need be; `nil` for a line that cannot
        /// be read (its file is then marked damaged).
        func state() -> RecordState? {
            switch self {
            case .line(let line, let file, let stamp):
                guard var state = file.decodeRecord(line)?.1 else { return nil }
                if let stamp { state.file = stamp }
                return state
            case .state(let state):
                return state
            }
        }

        /// The same record holding only its own bytes, to be kept: a line handed out shares
        /// the cursor's piece of the file, which keeping it would keep whole.
        func detached() -> WalkedRecord {
            guard case .line(let line, let file, let stamp) = self else { return self }
            return .line(ArraySlice(Array(line)), file: file, confirmedStamp: stamp)
        }
    }

    /// Calls `body` with every record of `entity` (live, deleted or conflicted) in sort-key
    /// order, with its encoded id; return `false` from `body` to stop. Memory holds a piece of
    /// each file and the entity's states changed in memory, sorted.
    func forEachRecordInSortOrder<E: Error>(
        of entity: EntityName, _ body: (_ encodedID: ArraySlice<UInt8>, _ record: WalkedRecord) throws(E) -> Bool
    ) throws(E) {
        var inMemory: [(sortKey: [UInt8], state: RecordState)] = []
        forEachStateInMemory { key, state in
            if key.entity == entity { inMemory.append((IndexRecordLine.sortKey(key), state)) }
        }
        inMemory.sort { ByteOrder.precedes($0.sortKey, $1.sortKey) }
        var nextInMemory = 0
        var image = base.map { IndexLineCursor(file: $0, entity: entity) }
        var changed = LayeredLineCursor(upper: spill, lower: delta, entity: entity)
        var imageLine = image?.next()
        var changedLine = changed.next()
        var stamps = confirmed.walk()
        let prefixLength = entity.rawValue.utf8.count + 1
        while true {
            let memoryKey = nextInMemory < inMemory.count ? inMemory[nextInMemory].sortKey[...] : nil
            guard let least = Self.least(Self.least(memoryKey, changedLine?.sortKey), imageLine?.sortKey) else { return }
            let fromMemory = memoryKey.map { ByteOrder.compare($0, least) == 0 } ?? false
            let fromDelta = changedLine.map { ByteOrder.compare($0.sortKey, least) == 0 } ?? false
            let fromImage = imageLine.map { ByteOrder.compare($0.sortKey, least) == 0 } ?? false
            let record: WalkedRecord
            if fromMemory {
                record = .state(inMemory[nextInMemory].state)
            } else if fromDelta, let changedLine {
                record = .line(changedLine.line, file: changedLine.file, confirmedStamp: nil)
            } else if let imageLine, let file = base {
                let stamp = confirmed.isEmpty ? nil : stamps.stamp(forSortKey: imageLine.sortKey)
                record = .line(imageLine.line, file: file, confirmedStamp: stamp)
            } else {
                return
            }
            guard try body(least.dropFirst(prefixLength), record) else { return }
            if fromMemory { nextInMemory += 1 }
            if fromDelta { changedLine = changed.next() }
            if fromImage { imageLine = image?.next() }
        }
    }

    /// The lesser of two sort keys, either of which may be missing.
    private static func least(_ a: ArraySlice<UInt8>?, _ b: ArraySlice<UInt8>?) -> ArraySlice<UInt8>? {
        guard let a else { return b }
        guard let b else { return a }
        return ByteOrder.compare(a, b) <= 0 ? a : b
    }
}
