/// The record lines of two index files read together in sort order, as one file: where both
/// hold a record, the upper file's line (the newer state) hides the lower's. The upper file is
/// a store's spill (see ``RecordTable/spill``) and the lower its delta, each read a piece at a
/// time by a ``IndexLineCursor``.
struct LayeredLineCursor {
    private var upper: IndexLineCursor?
    private var lower: IndexLineCursor?
    private var upperLine: (sortKey: ArraySlice<UInt8>, line: ArraySlice<UInt8>)?
    private var lowerLine: (sortKey: ArraySlice<UInt8>, line: ArraySlice<UInt8>)?
    /// How many lines were read from each file, hidden ones included.
    private(set) var upperLinesRead = 0
    private(set) var lowerLinesRead = 0

    init(upper: IndexLineCursor?, lower: IndexLineCursor?) {
        self.upper = upper
        self.lower = lower
        advanceUpper()
        advanceLower()
    }

    /// Every record line of `upper` over those of `lower`.
    init(upper: IndexFile?, lower: IndexFile?) {
        self.init(upper: upper.map { IndexLineCursor(file: $0) }, lower: lower.map { IndexLineCursor(file: $0) })
    }

    /// The record lines of one entity of `upper` over those of `lower`.
    init(upper: IndexFile?, lower: IndexFile?, entity: EntityName) {
        self.init(
            upper: upper.map { IndexLineCursor(file: $0, entity: entity) }, lower: lower.map { IndexLineCursor(file: $0, entity: entity) })
    }

    /// The next record's line, its sort key and the file it is in (which numbers its
    /// replicas); `nil` after the last.
    mutating func next() -> (sortKey: ArraySlice<UInt8>, line: ArraySlice<UInt8>, file: IndexFile)? {
        let fromUpper: Bool
        switch (upperLine, lowerLine) {
        case (nil, nil):
            return nil
        case (_?, nil):
            fromUpper = true
        case (nil, _?):
            fromUpper = false
        case (let top?, let bottom?):
            let order = ByteOrder.compare(top.sortKey, bottom.sortKey)
            if order == 0 { advanceLower() }
            fromUpper = order <= 0
        }
        guard let taken = fromUpper ? upperLine : lowerLine, let file = (fromUpper ? upper : lower)?.file else { return nil }
        if fromUpper { advanceUpper() } else { advanceLower() }
        return (taken.sortKey, taken.line, file)
    }

    private mutating func advanceUpper() {
        upperLine = upper?.next()
        if upperLine != nil { upperLinesRead += 1 }
    }

    private mutating func advanceLower() {
        lowerLine = lower?.next()
        if lowerLine != nil { lowerLinesRead += 1 }
    }

    /// Marks a file damaged when it held fewer or more lines than its header says (after every
    /// line was taken, and only for cursors over whole files).
    func checkFilesWereReadWhole() {
        if upperLine == nil, let file = upper?.file, upperLinesRead != file.header.recordCount {
            file.markDamaged("\(file.path): expected \(file.header.recordCount) records, found \(upperLinesRead)")
        }
        if lowerLine == nil, let file = lower?.file, lowerLinesRead != file.header.recordCount {
            file.markDamaged("\(file.path): expected \(file.header.recordCount) records, found \(lowerLinesRead)")
        }
    }
}
