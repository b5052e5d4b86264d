/// The header of an index file (format in ``IndexFile``): the lines from the magic line to
/// `B`, which say where the journal ends, the replicas and their numbering, the live counts,
/// the conflicted records and how many record lines follow. Its one encoder and decoder.
///
/// ```
/// ferry-index	3                (a delta or spill: ferry-index-delta	2)
/// H	<head seq>	<head hash>	<latest hlc>
/// A	<image seq>	<image hash>                 a delta's: the image it applies to
/// R	<replica uuid>	<latest counter>	<its digest or ->
/// L	<entity>	<live records>
/// C	<entity>	<encoded id>
/// T	<records>                                  a delta's: the whole table's count
/// N	<record lines>
/// B
/// ```
struct IndexFileHeader: Sendable {
    var head = StoreHead(sequence: 0, hash: .zero, latestModification: .zero)
    /// The replicas in the order the record lines number them (from 0).
    var replicas: [ReplicaID] = []
    var knowledge = VersionVector()
    /// For each replica in `knowledge`, the digest of its latest change (see ``ChangeChain``).
    var digests: [ReplicaID: SHA256Digest] = [:]
    var liveCounts: [EntityName: Int] = [:]
    var conflicted = Set<RecordKey>()
    /// The number of record lines (the `N` line; 0 when there is none).
    var recordCount = 0
    /// Whether the header had its `N` line.
    var hasRecordCount = false
    /// For a delta file: the head of the image it applies to.
    var baseHead: (sequence: UInt64, hash: SHA256Digest)?
    /// For a delta file: the number of records of the whole table.
    var totalRecords: Int?

    init() {}

    /// Why a header line could not be read: its number in the file (from 1, the magic line's)
    /// and what is wrong with it.
    struct Malformed: Error, Sendable {
        let line: Int
        let reason: String
    }

    // MARK: Encoding

    /// The header's text for a file of `level`, from its magic line to `B`.
    func text(level: IndexFileLevel) -> String {
        var text = "\(level.magic)\n"
        text += "H\t\(head.sequence)\t\(head.hash.hex)\t\(head.latestModification)\n"
        if let baseHead { text += "A\t\(baseHead.sequence)\t\(baseHead.hash.hex)\n" }
        for replica in replicas {
            text += "R\t\(replica.rawValue)\t\(knowledge[replica])\t\(digests[replica]?.hex ?? "-")\n"
        }
        for (entity, count) in liveCounts.sorted(by: { $0.key < $1.key }) where count > 0 {
            text += "L\t\(entity.rawValue)\t\(count)\n"
        }
        for key in conflicted.sorted() { text += "C\t\(key.entity.rawValue)\t\(RecordFileName.encode(key.id))\n" }
        if let totalRecords { text += "T\t\(totalRecords)\n" }
        text += "N\t\(recordCount)\nB\n"
        return text
    }

    /// The file's last line, `E<tab><record lines>`, newline included.
    static func trailer(recordCount: Int) -> [UInt8] {
        Array("E\t\(recordCount)\n".utf8)
    }

    // MARK: Decoding

    /// The offset just after the `B` line, if `bytes` (from the file's start) hold it.
    static func end(in bytes: [UInt8]) -> Int? {
        var start = 0
        for index in bytes.indices where bytes[index] == 10 {
            if index - start == 1 && bytes[start] == UInt8(ascii: "B") { return index + 1 }
            start = index + 1
        }
        return nil
    }

    /// Reads the header lines that follow the magic line in `bytes` (from the file's start),
    /// up to `B` or the end of `bytes`.
    /// - Returns: The header, and whether its `B` line was found.
    /// - Throws: ``Malformed`` for a line that is not a header line Ferry writes.
    static func decode(_ bytes: [UInt8]) throws(Malformed) -> (header: IndexFileHeader, ended: Bool) {
        var reader = IndexLineReader(bytes: bytes)
        _ = reader.nextLine()  // the magic line, which the caller checked
        var header = IndexFileHeader()
        while let line = reader.nextLine() {
            func fail(_ reason: String) -> Malformed { Malformed(line: reader.lineNumber, reason: reason) }
            var fields = FieldSplitter(line: line, separator: 9)
            guard let tag = fields.next(), tag.count == 1 else { throw fail("malformed header line") }
            switch tag.first {
            case UInt8(ascii: "H"):
                guard let sequence = fields.nextInteger(), let hashText = fields.next(),
                    let hash = SHA256Digest(hexDigits: hashText), let stampText = fields.next(),
                    let stamp = HybridTimestamp(String(decoding: stampText, as: UTF8.self))
                else { throw fail("malformed head") }
                header.head = StoreHead(sequence: sequence, hash: hash, latestModification: stamp)
            case UInt8(ascii: "R"):
                guard let text = fields.next(), let replica = ReplicaID(String(decoding: text, as: UTF8.self)),
                    let counter = fields.nextInteger(), let digestText = fields.next()
                else { throw fail("malformed replica") }
                header.replicas.append(replica)
                header.knowledge[replica] = counter
                if digestText != Array("-".utf8)[...] {
                    guard let digest = SHA256Digest(hexDigits: digestText) else { throw fail("malformed replica digest") }
                    header.digests[replica] = digest
                }
            case UInt8(ascii: "L"):
                guard let text = fields.next(), let entity = try? EntityName(String(decoding: text, as: UTF8.self)),
                    let count = fields.nextInteger()
                else { throw fail("malformed live count") }
                header.liveCounts[entity] = Int(count)
            case UInt8(ascii: "C"):
                guard let text = fields.next(), let entity = try? EntityName(String(decoding: text, as: UTF8.self)),
                    let encoded = fields.next(), let id = RecordFileName.decode(bytes: encoded)
                else { throw fail("malformed conflict") }
                header.conflicted.insert(RecordKey(entity: entity, id: id))
            case UInt8(ascii: "A"):
                guard let sequence = fields.nextInteger(), let hashText = fields.next(),
                    let hash = SHA256Digest(hexDigits: hashText)
                else { throw fail("malformed base head") }
                header.baseHead = (sequence, hash)
            case UInt8(ascii: "T"):
                guard let count = fields.nextInteger() else { throw fail("malformed total") }
                header.totalRecords = Int(count)
            case UInt8(ascii: "N"):
                guard let count = fields.nextInteger() else { throw fail("malformed count") }
                header.recordCount = Int(count)
                header.hasRecordCount = true
            case UInt8(ascii: "B"):
                return (header, true)
            default:
                throw fail("unknown header line")
            }
        }
        return (header, false)
    }
}
