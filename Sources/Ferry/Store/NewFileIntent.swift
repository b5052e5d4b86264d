/// The new record files a large batch names before its journal entries are durable, written
/// durably to `.ferry/new-files` before the first of them is named.
///
/// A batch's new record files take about as long to name (`linkat` into a large directory) as
/// to build, write and sync the batch's journal entries; doing both at once saves one of the
/// two. But a crash in between would leave files for writes that were never acknowledged. So
/// the list comes first: when the store is next opened, or its lock taken after a writer
/// died, a list whose batch is not in the journal has its files removed (see
/// ``Store/settleNewFileIntent()``).
///
/// The file is text: a header line, the batch line (its first journal sequence and its number
/// of entries), one line per file (the SHA-256 of the document's canonical form, the entity,
/// the file's path under `records/<Entity>/`), and an `end` line with the SHA-256 of all the
/// bytes before it, so a torn or partly overwritten list is never acted on.
///
/// ```text
/// ferry new-files 1
/// batch 1001 1000
/// 3a7bd3e2…  Product p1000.json
/// end 9f86d081…
/// ```
struct NewFileIntent: Equatable {
    /// One new file: its record and the hash of the canonical form of its document.
    struct File: Equatable {
        var key: RecordKey
        var contentHash: SHA256Digest
    }

    /// The batch's first journal sequence.
    var firstSequence: UInt64
    /// The batch's number of journal entries (at least 1).
    var entryCount: UInt64
    var files: [File]

    static let header = "ferry new-files 1"

    /// The last journal sequence of the batch: when the journal reaches it, the batch is durable.
    var lastSequence: UInt64 { firstSequence + max(entryCount, 1) - 1 }

    /// The file's bytes.
    func encoded() -> [UInt8] {
        var bytes = Array((Self.header + "\nbatch ").utf8)
        bytes.appendDecimal(firstSequence)
        bytes.append(UInt8(ascii: " "))
        bytes.appendDecimal(entryCount)
        bytes.append(UInt8(ascii: "\n"))
        for file in files {
            file.contentHash.appendHexDigits(to: &bytes)
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: file.key.entity.rawValue.utf8)
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: RecordFileName.relativePath(for: file.key.id).utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        let check = SHA256.hash(bytes)
        bytes.append(contentsOf: "end ".utf8)
        check.appendHexDigits(to: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Reads a list back; `nil` for anything ``encoded()`` did not write whole (empty, torn,
    /// overwritten in part, or edited).
    init?(decoding bytes: [UInt8]) {
        guard bytes.last == UInt8(ascii: "\n") else { return nil }
        let body = bytes.dropLast()
        guard let endStart = body.lastIndex(of: UInt8(ascii: "\n")).map({ $0 + 1 }) else { return nil }
        let endLine = String(decoding: body[endStart...], as: UTF8.self)
        guard endLine.hasPrefix("end "), let check = SHA256Digest(hex: String(endLine.dropFirst(4))),
            check == SHA256.hash(Array(bytes[..<endStart]))
        else { return nil }
        let lines = String(decoding: bytes[..<endStart], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard lines.count >= 2, lines[lines.startIndex] == Self.header else { return nil }
        let batch = lines[lines.startIndex + 1].split(separator: " ")
        guard batch.count == 3, batch[0] == "batch", let first = UInt64(batch[1]), let count = UInt64(batch[2]), first > 0, count > 0
        else { return nil }
        var files: [File] = []
        for line in lines.dropFirst(2) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 3, let hash = SHA256Digest(hex: String(fields[0])),
                let entity = try? EntityName(String(fields[1])), let id = RecordFileName.id(fromRelativePath: String(fields[2]))
            else { return nil }
            files.append(File(key: RecordKey(entity: entity, id: id), contentHash: hash))
        }
        self.init(firstSequence: first, entryCount: count, files: files)
    }

    init(firstSequence: UInt64, entryCount: UInt64, files: [File]) {
        self.firstSequence = firstSequence
        self.entryCount = entryCount
        self.files = files
    }
}
