/// Reads the record lines of one entity (or all) from a image or delta file (see
/// ``IndexFile``), in sort order, a piece at a time: memory holds one piece (1 MiB) and the line being read,
/// never the file. It starts where a binary search on disk finds the entity's first line.
///
/// ```swift
/// var cursor = IndexLineCursor(file: image, entity: users)
/// while let (sortKey, line) = cursor.next() { … }
/// ```
///
/// A line handed out stays valid as long as the caller keeps it (a new piece goes into a new
/// buffer). A file that ends inside a line is marked damaged (``IndexFile/markDamaged(_:)``).
struct IndexLineCursor {
    let file: IndexFile
    /// How much is read at a time.
    let pieceSize: Int
    /// `<entity>\t`: how every sort key of the entity begins.
    let prefix: [UInt8]
    private var buffer: [UInt8] = []
    /// Where the next line starts in ``buffer``.
    private var position = 0
    /// The file offset of the byte after ``buffer``.
    private var offset: Int64
    private var finished = false

    init(file: IndexFile, entity: EntityName, pieceSize: Int = 1 << 20) {
        self.file = file
        self.pieceSize = max(1, pieceSize)
        prefix = Array(entity.rawValue.utf8) + [9]
        offset = file.offsetOfFirstLine(notBefore: prefix)
    }

    /// A cursor over every record line of `file`, whatever its entity.
    init(file: IndexFile, pieceSize: Int = 1 << 20) {
        self.file = file
        self.pieceSize = max(1, pieceSize)
        prefix = []
        offset = file.offsetOfFirstLine(notBefore: [])
    }

    /// The entity's next record line and its sort key (`<entity>\t<encoded id>`); `nil` after
    /// its last.
    mutating func next() -> (sortKey: ArraySlice<UInt8>, line: ArraySlice<UInt8>)? {
        while !finished {
            guard let newline = ByteOrder.firstIndex(of: 10, in: buffer[position...]) else {
                readPiece()
                continue
            }
            let line = buffer[position..<newline]
            position = newline + 1
            let sortKey = IndexRecordLine.sortKey(ofLine: line)
            let order = ByteOrder.compare(sortKey.prefix(prefix.count), prefix)
            // Lines of entities before this one, between the search's landing and the first.
            if order < 0 { continue }
            if order > 0 {
                finished = true
                return nil
            }
            return (sortKey, line)
        }
        return nil
    }

    /// Appends the next piece of the file to what is left of the buffer, in a new buffer.
    private mutating func readPiece() {
        let end = file.bodyEnd
        guard offset < end else {
            if position < buffer.count { file.markDamaged("\(file.path) ends inside a record line") }
            finished = true
            return
        }
        let count = Int(min(Int64(pieceSize), end - offset))
        guard let piece = file.readBody(at: offset, count: count) else {
            file.markDamaged("cannot read \(file.path)")
            finished = true
            return
        }
        offset += Int64(count)
        var next: [UInt8] = []
        next.reserveCapacity(buffer.count - position + piece.count)
        next.append(contentsOf: buffer[position...])
        next.append(contentsOf: piece)
        buffer = next
        position = 0
    }
}
