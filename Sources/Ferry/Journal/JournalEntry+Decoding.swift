extension JournalEntry {
    /// The largest journal line accepted: a maximal document plus the entry's own fields.
    static let maximumLineBytes = 40 << 20

    /// Reads an entry from one journal line (without its newline).
    /// - Throws: a description of the first problem found, for the caller to place.
    static func decode(line: UnsafeRawBufferPointer) throws(EntryDecodingFailure) -> JournalEntry {
        let value: JSONValue
        do {
            value = try JSONParser.parse(
                line, options: JSONParser.Options(maximumDepth: 520, maximumByteCount: maximumLineBytes))
        } catch {
            throw EntryDecodingFailure("not JSON (\(error))")
        }
        guard case .object(let fields) = value else { throw EntryDecodingFailure("not a JSON object") }
        func integer(_ name: String) throws(EntryDecodingFailure) -> UInt64 {
            guard let number = fields[name]?.integerValue, number >= 0 else {
                throw EntryDecodingFailure("\"\(name)\" must be a non-negative integer")
            }
            return UInt64(number)
        }
        func string(_ name: String) throws(EntryDecodingFailure) -> String {
            guard let text = fields[name]?.stringValue else {
                throw EntryDecodingFailure("\"\(name)\" must be a string")
            }
            return text
        }
        func digest(_ name: String) throws(EntryDecodingFailure) -> SHA256Digest {
            guard let digest = SHA256Digest(hex: try string(name)) else {
                throw EntryDecodingFailure("\"\(name)\" must be 64 hex digits")
            }
            return digest
        }
        let known: Set<String> = [
            "batch", "counter", "doc", "entity", "hash", "hlc", "id", "more", "op", "origin", "prev", "pseq", "seq", "vv",
        ]
        if let unknown = fields.keys.first(where: { !known.contains($0) }) {
            throw EntryDecodingFailure("unknown field \"\(unknown)\"")
        }
        let sequence = try integer("seq")
        let counter = try integer("counter")
        guard sequence > 0, counter > 0 else { throw EntryDecodingFailure("\"seq\" and \"counter\" start at 1") }
        guard let origin = ReplicaID(try string("origin")) else {
            throw EntryDecodingFailure("\"origin\" must be a replica UUID")
        }
        guard let timestamp = HybridTimestamp(try string("hlc")) else {
            throw EntryDecodingFailure("\"hlc\" must be <milliseconds>.<logical>")
        }
        let entityText = try string("entity")
        let idText = try string("id")
        let entity: EntityName
        let id: RecordID
        do {
            entity = try EntityName(entityText)
            id = try RecordID(idText)
        } catch {
            throw EntryDecodingFailure(error.description)
        }
        let operation: Change.Operation
        switch try string("op") {
        case "put":
            guard let document = fields["doc"], case .object = document else {
                throw EntryDecodingFailure("a put needs \"doc\", a JSON object")
            }
            operation = .put(document)
        case "delete":
            guard fields["doc"] == nil else { throw EntryDecodingFailure("a delete has no \"doc\"") }
            operation = .delete
        case let other:
            throw EntryDecodingFailure("unknown op \(quoted(other))")
        }
        guard let vvValue = fields["vv"], let version = VersionVector(json: vvValue) else {
            throw EntryDecodingFailure("\"vv\" must map replica UUIDs to positive counters")
        }
        guard version[origin] == counter else {
            throw EntryDecodingFailure("\"vv\" must hold the entry's own origin and counter")
        }
        let change = Change(
            origin: origin, counter: counter, timestamp: timestamp,
            key: RecordKey(entity: entity, id: id), operation: operation, version: version)
        var batch: BatchPosition?
        if fields["batch"] != nil || fields["more"] != nil {
            let first = try integer("batch")
            let remaining = try integer("more")
            guard first >= 1, first <= sequence else { throw EntryDecodingFailure("\"batch\" must be the seq of an earlier entry") }
            batch = BatchPosition(first: first, remaining: remaining)
        }
        return JournalEntry(
            sequence: sequence, change: change, previousSequenceOfRecord: try integer("pseq"),
            previousHash: try digest("prev"), hash: try digest("hash"), batch: batch)
    }
}

/// Why a journal line could not be read as an entry.
struct EntryDecodingFailure: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
