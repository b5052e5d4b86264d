/// The changed records a image or delta being written takes in sort order: the states and
/// stamps from memory (sorted) and the lines of the spill and of the old delta, read a piece at
/// a time. On the same key a state in memory wins over the spill's line, which wins over the
/// delta's, which wins over a confirmed stamp (a stamp confirms the image's line, which the
/// others replaced).
struct PendingLines {
    /// A changed record to write: an entry from memory, or a line of a file to copy.
    enum Item {
        case change(StoreIndex.ChangedRecord)
        case fileLine(ArraySlice<UInt8>)
    }

    private let changed: [(sortKey: [UInt8], change: StoreIndex.ChangedRecord)]
    private var next = 0
    private var cursor: LayeredLineCursor
    private var fileLine: (sortKey: ArraySlice<UInt8>, line: ArraySlice<UInt8>)?

    /// - Parameters:
    ///   - spill: The table's spill, when the file written takes it in.
    ///   - delta: The table's delta, when the file written takes it in.
    init(changed: [(sortKey: [UInt8], change: StoreIndex.ChangedRecord)], spill: IndexFile?, delta: IndexFile?) {
        self.changed = changed
        cursor = LayeredLineCursor(upper: spill, lower: delta)
        advanceFiles()
    }

    /// How many lines `changed` and the files make together: a key in several makes one.
    /// Reads the files once, without decoding them.
    static func count(_ changed: [(sortKey: [UInt8], change: StoreIndex.ChangedRecord)], spill: IndexFile?, delta: IndexFile?) -> Int {
        guard spill != nil || delta != nil else { return changed.count }
        var cursor = LayeredLineCursor(upper: spill, lower: delta)
        var lines = changed.count
        var next = 0
        while let (sortKey, _, _) = cursor.next() {
            while next < changed.count && ByteOrder.precedes(changed[next].sortKey[...], sortKey) { next += 1 }
            if next < changed.count && ByteOrder.compare(changed[next].sortKey[...], sortKey) == 0 { continue }
            lines += 1
        }
        return lines
    }

    private mutating func advanceFiles() {
        fileLine = cursor.next().map { ($0.sortKey, $0.line) }
    }

    /// Hands `body` every pending record whose key precedes `limit` or equals it, in order
    /// (every one left when `limit` is `nil`); returns whether one had `limit` as its key.
    mutating func emit(through limit: ArraySlice<UInt8>?, _ body: (Item) -> Void) -> Bool {
        while true {
            let fromMemory = next < changed.count ? changed[next].sortKey[...] : nil
            let fromFiles = fileLine?.sortKey
            let least: ArraySlice<UInt8>
            switch (fromMemory, fromFiles) {
            case (nil, nil): return false
            case (let key?, nil), (nil, let key?): least = key
            case (let a?, let b?): least = ByteOrder.compare(a, b) <= 0 ? a : b
            }
            let order = limit.map { ByteOrder.compare(least, $0) } ?? -1
            if order > 0 { return false }
            let memoryHasIt = fromMemory.map { ByteOrder.compare($0, least) == 0 } ?? false
            let filesHaveIt = fromFiles.map { ByteOrder.compare($0, least) == 0 } ?? false
            if memoryHasIt, filesHaveIt, let line = fileLine?.line, case .confirmedStamp = changed[next].change {
                body(.fileLine(line))
            } else if memoryHasIt {
                body(.change(changed[next].change))
            } else if let line = fileLine?.line {
                body(.fileLine(line))
            }
            if memoryHasIt { next += 1 }
            if filesHaveIt { advanceFiles() }
            if order == 0 { return true }
        }
    }

    /// Marks the spill or the delta damaged when it held fewer or more lines than its header
    /// says (after every line was taken), so the merge is not swapped in.
    func checkFilesWereReadWhole() {
        guard fileLine == nil else { return }
        cursor.checkFilesWereReadWhole()
    }
}
