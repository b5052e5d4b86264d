/// One index file for ``IndexComparison``: its header read line by line, and its record
/// lines streamed in pieces, never decoded and never all in memory (format in ``IndexFile``).
///
/// ```
/// ferry-index	3                 (the delta file: ferry-index-delta	2, with A and T lines)
/// H	<head seq>	<head hash>	<latest hlc>
/// R	<replica uuid>	<latest counter>	<its digest or ->
/// L	<entity>	<live records>
/// C	<entity>	<encoded id>
/// N	<record lines>
/// B
/// K	<entity>	<encoded id>	<last seq>	<file stamp or ->	<versions>
/// E	<record lines>
/// ```
struct IndexFileText: Sendable {
    /// The file's path relative to the store (`.ferry/index`), for findings.
    let path: String
    /// The file's full path, to stream its record lines.
    let fullPath: String
    var head = StoreHead(sequence: 0, hash: .zero, latestModification: .zero)
    /// The replicas in the order the record lines number them, and their latest counters.
    var replicas: [ReplicaID] = []
    var knowledge = VersionVector()
    var liveCounts: [EntityName: Int] = [:]
    var conflicted = Set<RecordKey>()
    /// For a delta file: the head of the snapshot it applies to, and the table's total.
    var baseHead: (sequence: UInt64, hash: SHA256Digest)?
    var totalRecords: Int?
    /// The number of record lines.
    var recordCount = 0
    /// The byte range of the record lines (each with its newline).
    var body: Range<Int64> = 0..<0
    /// The line number (from 1) of the first record line, for findings.
    var firstRecordLineNumber = 0

    /// Why a file is not an index file at all.
    struct Unreadable: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The size of the pieces record lines are read in.
    static let pieceSize = 1 << 20

    /// Reads the header of the file at `fullPath`, checks its trailer and counts its record
    /// lines (one streaming pass, no line kept).
    /// - Throws: ``Unreadable`` when the magic line, a header line, the record count or the
    ///   `E` line is wrong.
    init(reading fullPath: String, path: String, level: IndexFileLevel) throws(Unreadable) {
        let magic = level.magic
        self.path = path
        self.fullPath = fullPath
        let file: FileDescriptor
        do { file = try FileDescriptor.open(fullPath, .readOnly) } catch { throw Unreadable("\(error)") }
        defer { file.close() }
        let size: Int64
        var headerBytes: [UInt8]
        do {
            size = try file.status().size
            headerBytes = try file.read(at: 0, count: Int(min(size, 65_536)))
            if Self.headerEnd(headerBytes) == nil && size > 65_536 {
                headerBytes = try file.read(at: 0, count: Int(min(size, 16 << 20)))
            }
        } catch { throw Unreadable("\(error)") }
        guard let lastByte = try? file.read(at: max(0, size - 1), count: 1), size == 0 || lastByte == [10] else {
            throw Unreadable("the last line has no newline")
        }
        var lines: [Range<Int>] = []
        var start = 0
        for offset in headerBytes.indices where headerBytes[offset] == 10 {
            lines.append(start..<offset)
            start = offset + 1
            if offset - lines[lines.count - 1].lowerBound == 1 && headerBytes[lines[lines.count - 1].lowerBound] == UInt8(ascii: "B") { break }
        }
        guard let first = lines.first, headerBytes[first].elementsEqual(magic.utf8) else {
            throw Unreadable("not an index file (expected \(magic.replacingOccurrences(of: "\t", with: " ")))")
        }
        try parseHeader(headerBytes, lines: lines)
        firstRecordLineNumber = lines.count + 1
        let trailer = Array("E\t\(recordCount)\n".utf8)
        let bodyStart = Int64(lines.last.map { $0.upperBound + 1 } ?? 0)
        guard size >= bodyStart + Int64(trailer.count), (try? file.read(at: size - Int64(trailer.count), count: trailer.count)) == trailer,
            size - Int64(trailer.count) == bodyStart || (try? file.read(at: size - Int64(trailer.count) - 1, count: 1)) == [10]
        else {
            throw Unreadable("the file does not end with its record count (E \(recordCount)); it is truncated")
        }
        body = bodyStart..<(size - Int64(trailer.count))
        var found = 0
        do throws(SystemError) {
            try Self.forEachPiece(of: file, in: body) { piece in
                piece.withUnsafeBufferPointer { bytes in
                    for byte in bytes where byte == 10 { found += 1 }
                }
            }
        } catch { throw Unreadable("\(error)") }
        guard found == recordCount else {
            throw Unreadable("the header counts \(recordCount) records but the file has \(found)")
        }
    }

    /// The offset just after the `B` line, if present.
    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        var start = 0
        for index in bytes.indices where bytes[index] == 10 {
            if index - start == 1 && bytes[start] == UInt8(ascii: "B") { return index + 1 }
            start = index + 1
        }
        return nil
    }

    private mutating func parseHeader(_ bytes: [UInt8], lines: [Range<Int>]) throws(Unreadable) {
        var recordCount: Int?
        var number = 1
        var ended = false
        headerLines: while number < lines.count {
            let line = bytes[lines[number]]
            number += 1
            func fail(_ what: String) -> Unreadable { Unreadable("line \(number): \(what)") }
            var fields = FieldSplitter(line: line, separator: 9)
            guard let tag = fields.next(), tag.count == 1, let letter = tag.first else { throw fail("malformed header line") }
            switch letter {
            case UInt8(ascii: "H"):
                guard let sequence = fields.nextInteger(), let hashText = fields.next(), let hash = SHA256Digest(hexDigits: hashText),
                    let stampText = fields.next(), let stamp = HybridTimestamp(String(decoding: stampText, as: UTF8.self))
                else { throw fail("malformed head") }
                head = StoreHead(sequence: sequence, hash: hash, latestModification: stamp)
            case UInt8(ascii: "R"):
                guard let text = fields.next(), let replica = ReplicaID(String(decoding: text, as: UTF8.self)),
                    let counter = fields.nextInteger()
                else { throw fail("malformed replica") }
                replicas.append(replica)
                knowledge[replica] = counter
            case UInt8(ascii: "L"):
                guard let text = fields.next(), let entity = try? EntityName(String(decoding: text, as: UTF8.self)),
                    let count = fields.nextInteger()
                else { throw fail("malformed live count") }
                liveCounts[entity] = Int(count)
            case UInt8(ascii: "C"):
                guard let text = fields.next(), let entity = try? EntityName(String(decoding: text, as: UTF8.self)),
                    let encoded = fields.next(), let id = RecordFileName.decode(bytes: encoded)
                else { throw fail("malformed conflict") }
                conflicted.insert(RecordKey(entity: entity, id: id))
            case UInt8(ascii: "A"):
                guard let sequence = fields.nextInteger(), let hashText = fields.next(), let hash = SHA256Digest(hexDigits: hashText)
                else { throw fail("malformed base head") }
                baseHead = (sequence, hash)
            case UInt8(ascii: "T"):
                guard let count = fields.nextInteger() else { throw fail("malformed total") }
                totalRecords = Int(count)
            case UInt8(ascii: "N"):
                guard let count = fields.nextInteger() else { throw fail("malformed count") }
                recordCount = Int(count)
            case UInt8(ascii: "B"):
                ended = true
                break headerLines
            default:
                throw fail("unknown header line")
            }
        }
        guard let recordCount else { throw Unreadable("the header has no record count (N)") }
        guard ended else {
            throw Unreadable("the file does not end with its record count (E \(recordCount)); it is truncated")
        }
        self.recordCount = recordCount
    }

    /// Calls `body` with the record lines (without their newlines), a piece of about 1 MiB at
    /// a time, each line's number in the file (from 1) with it.
    func forEachPieceOfLines(_ body: (_ lines: [(number: Int, range: Range<Int>)], _ bytes: [UInt8]) -> Void) throws(Unreadable) {
        let file: FileDescriptor
        do { file = try FileDescriptor.open(fullPath, .readOnly) } catch { throw Unreadable("\(error)") }
        defer { file.close() }
        var carry: [UInt8] = []
        var number = firstRecordLineNumber
        do throws(SystemError) {
            try Self.forEachPiece(of: file, in: self.body) { piece in
                carry.append(contentsOf: piece)
                var lines: [(number: Int, range: Range<Int>)] = []
                var start = 0
                carry.withUnsafeBufferPointer { bytes in
                    for offset in 0..<bytes.count where bytes[offset] == 10 {
                        lines.append((number, start..<offset))
                        number += 1
                        start = offset + 1
                    }
                }
                body(lines, carry)
                carry.removeFirst(start)
            }
        } catch { throw Unreadable("\(error)") }
    }

    /// Reads `range` of `file` in pieces of ``pieceSize``.
    private static func forEachPiece(of file: FileDescriptor, in range: Range<Int64>, _ body: ([UInt8]) -> Void) throws(SystemError) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let count = Int(min(Int64(pieceSize), range.upperBound - offset))
            let piece = try file.read(at: offset, count: count)
            guard !piece.isEmpty else { break }
            body(piece)
            offset += Int64(piece.count)
        }
    }
}
