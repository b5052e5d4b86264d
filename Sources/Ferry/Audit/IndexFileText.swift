/// One index file's text for ``SnapshotComparison``: its header read line by line, and where
/// its record lines are, without decoding any record (format in ``SnapshotFile``).
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
    let bytes: [UInt8]
    var head = StoreHead(sequence: 0, hash: .zero, latestModification: .zero)
    /// The replicas in the order the record lines number them, and their latest counters.
    var replicas: [ReplicaID] = []
    var knowledge = VersionVector()
    var liveCounts: [EntityName: Int] = [:]
    var conflicted = Set<RecordKey>()
    /// For a delta file: the head of the snapshot it applies to, and the table's total.
    var baseHead: (sequence: UInt64, hash: SHA256Digest)?
    var totalRecords: Int?
    /// The byte ranges of the record lines (without their newlines), in file order.
    var recordLines: [Range<Int>] = []
    /// The line number (from 1) of the first record line, for findings.
    var firstRecordLineNumber = 0

    /// Why a file is not an index file at all.
    struct Unreadable: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Reads the file at `fullPath` (see ``init(bytes:path:magic:)``).
    init(reading fullPath: String, path: String, magic: String) throws(Unreadable) {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(fullPath) } catch { throw Unreadable("\(error)") }
        try self.init(bytes: bytes, path: path, magic: magic)
    }

    /// Reads the header and finds the record lines.
    /// - Throws: ``Unreadable`` when the magic line, a header line, the record count or the
    ///   `E` line is wrong.
    init(bytes: [UInt8], path: String, magic: String) throws(Unreadable) {
        self.path = path
        self.bytes = bytes
        var lines: [Range<Int>] = []
        lines.reserveCapacity(bytes.count / 160 + 16)
        var start = 0
        bytes.withUnsafeBufferPointer { buffer in
            for offset in 0..<buffer.count where buffer[offset] == 10 {
                lines.append(start..<offset)
                start = offset + 1
            }
        }
        guard start == bytes.count else { throw Unreadable("the last line has no newline") }
        guard let first = lines.first, bytes[first].elementsEqual(magic.utf8) else {
            throw Unreadable("not an index file (expected \(magic.replacingOccurrences(of: "\t", with: " ")))")
        }
        var recordCount: Int?
        var number = 1
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
                break headerLines
            default:
                throw fail("unknown header line")
            }
        }
        guard let recordCount else { throw Unreadable("the header has no record count (N)") }
        guard number < lines.count, bytes[lines[lines.count - 1]].elementsEqual("E\t\(recordCount)".utf8) else {
            throw Unreadable("the file does not end with its record count (E \(recordCount)); it is truncated")
        }
        recordLines = Array(lines[number..<(lines.count - 1)])
        firstRecordLineNumber = number + 1
        guard recordLines.count == recordCount else {
            throw Unreadable("the header counts \(recordCount) records but the file has \(recordLines.count)")
        }
    }
}
