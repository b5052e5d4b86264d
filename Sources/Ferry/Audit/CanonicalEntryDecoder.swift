/// Reads a journal line that is in canonical form by position, parsing only its document with
/// the JSON parser: the fast path of ``StoreVerifier``, whose time goes mostly into reading
/// lines.
///
/// It accepts exactly the lines ``JournalEntry/decode(line:)`` accepts that are also laid out
/// canonically (`{"batch":…,"counter":…,"digest":…,"doc":…,"entity":…,"hash":…,"hlc":…,"id":…,
/// "more":…,"op":…,"origin":…,"parent":…,"prev":…,"pseq":…,"seq":…,"sig":…,"vv":{…}}`, `batch` and `more`
/// only for an entry of a batch of several, `digest` and `parent` together or not at all, no whitespace), with the same checks on every field.
/// Anything else gives `nil`, and the caller falls back to the general decoder, which also
/// says what is wrong. A seeded randomized test holds the two decoders to the same answers.
enum CanonicalEntryDecoder {
    /// The entry on `line` (without its newline), or `nil` when the line is not a canonical,
    /// valid entry.
    static func decode(_ line: UnsafeRawBufferPointer) -> JournalEntry? {
        guard line.count <= JournalEntry.maximumLineBytes else { return nil }
        var reader = Reader(bytes: line)
        var batchFirst: UInt64?
        if reader.expect(#"{"batch":"#) {
            guard let first = reader.integer(), reader.expect(#","counter":"#) else { return nil }
            batchFirst = first
        } else {
            guard reader.expect(#"{"counter":"#) else { return nil }
        }
        guard let counter = reader.integer(), counter > 0 else { return nil }
        var digest: SHA256Digest?
        if reader.expect(#","digest":""#) {
            guard let value = reader.digest(), reader.expect("\"") else { return nil }
            digest = value
        }
        var document: JSONValue?
        if reader.expect(#","doc":"#) {
            // The document runs to the `,"entity":"` before the hash member.
            guard let member = CanonicalJournalLine.hashMemberStart(line) else { return nil }
            var entityQuote = member - 3
            while entityQuote > reader.position, line[entityQuote] != UInt8(ascii: "\"") { entityQuote -= 1 }
            let entityKey = Array(#","entity":"#.utf8)
            let documentEnd = entityQuote - entityKey.count
            guard documentEnd > reader.position,
                entityKey.indices.allSatisfy({ line[documentEnd + $0] == entityKey[$0] })
            else { return nil }
            let slice = UnsafeRawBufferPointer(rebasing: line[reader.position..<documentEnd])
            guard let parsed = try? JSONParser.parse(slice, options: .init(maximumDepth: 519, maximumByteCount: JournalEntry.maximumLineBytes)),
                case .object = parsed
            else { return nil }
            document = parsed
            reader.position = documentEnd
        }
        guard reader.expect(#","entity":""#), let entityText = reader.plainString(),
            let entity = try? EntityName(entityText),
            reader.expect(#","hash":""#), let hash = reader.digest(),
            reader.expect(#"","hlc":""#), let hlcText = reader.plainString(), let timestamp = HybridTimestamp(hlcText),
            reader.expect(#","id":"#), let idText = reader.jsonString(), let id = try? RecordID(idText)
        else { return nil }
        var batchRemaining: UInt64?
        if reader.expect(#","more":"#) {
            guard let remaining = reader.integer() else { return nil }
            batchRemaining = remaining
        }
        guard reader.expect(#","op":""#) else { return nil }
        let isPut: Bool
        if reader.expect(#"put""#) {
            isPut = true
        } else if reader.expect(#"delete""#) {
            isPut = false
        } else {
            return nil
        }
        guard reader.expect(#","origin":""#), let originText = reader.plainString(), let origin = ReplicaID(originText)
        else { return nil }
        var parent: SHA256Digest?
        if reader.expect(#","parent":""#) {
            guard let value = reader.digest(), reader.expect("\"") else { return nil }
            parent = value
        }
        guard (digest == nil) == (parent == nil),
            reader.expect(#","prev":""#), let previousHash = reader.digest(),
            reader.expect(#"","pseq":"#), let previousSequence = reader.integer(),
            reader.expect(#","seq":"#), let sequence = reader.integer(), sequence > 0
        else { return nil }
        var seal: ChangeSeal?
        if reader.expect(#","sig":""#) {
            let end = reader.position + ChangeSeal.textLength
            guard digest != nil, end < line.count, line[end] == UInt8(ascii: "\""),
                let read = ChangeSeal(textBytes: UnsafeRawBufferPointer(rebasing: line[reader.position..<end]))
            else { return nil }
            seal = read
            reader.position = end + 1
        }
        guard reader.expect(#","vv":{"#), let version = reader.versionVector(),
            reader.expect("}"), reader.atEnd,
            version[origin] == counter
        else { return nil }
        // `batch` and `more` come together; a batch starts at or before its entry.
        var batch: BatchPosition?
        switch (batchFirst, batchRemaining) {
        case (nil, nil): break
        case (let first?, let remaining?):
            guard first >= 1, first <= sequence else { return nil }
            batch = BatchPosition(first: first, remaining: remaining)
        default: return nil
        }
        let operation: Change.Operation
        switch (isPut, document) {
        case (true, let document?): operation = .put(document)
        case (false, nil): operation = .delete
        default: return nil
        }
        var chain: ChangeChain?
        if let digest, let parent { chain = ChangeChain(parent: parent, digest: digest, seal: seal) }
        let change = Change(
            origin: origin, counter: counter, timestamp: timestamp, key: RecordKey(entity: entity, id: id),
            operation: operation, version: version, chain: chain)
        return JournalEntry(
            sequence: sequence, change: change, previousSequenceOfRecord: previousSequence, previousHash: previousHash, hash: hash,
            batch: batch)
    }

    /// A cursor over the line's bytes.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var position = 0

        var atEnd: Bool { position == bytes.count }

        /// Consumes `text` when the line continues with it.
        mutating func expect(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard position + count <= bytes.count else { return false }
            let matches = text.withUTF8Buffer { expected in
                for offset in 0..<count where bytes[position + offset] != expected[offset] { return false }
                return true
            }
            if matches { position += count }
            return matches
        }

        /// A JSON integer as the canonical writer writes it (no sign, no leading zero), at most
        /// `Int64.max`.
        mutating func integer() -> UInt64? {
            let start = position
            var value: UInt64 = 0
            while position < bytes.count, bytes[position].isASCIIDigit {
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
                guard !overflow, !carry else { return nil }
                value = sum
                position += 1
            }
            let count = position - start
            guard count > 0, count == 1 || bytes[start] != UInt8(ascii: "0"), value <= UInt64(Int64.max) else { return nil }
            return value
        }

        /// The text up to the next `"`, which must be printable ASCII other than `\` (the
        /// fields read this way never need escapes); the quote is consumed.
        mutating func plainString() -> String? {
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                let byte = bytes[position]
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                position += 1
            }
            guard position < bytes.count else { return nil }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            position += 1
            return text
        }

        /// 64 hexadecimal digits.
        mutating func digest() -> SHA256Digest? {
            guard position + 64 <= bytes.count else { return nil }
            defer { position += 64 }
            return SHA256Digest(hexDigits: UnsafeRawBufferPointer(rebasing: bytes[position..<(position + 64)]))
        }

        /// A JSON string (with its quotes), read by the JSON parser so escapes and UTF-8 are
        /// checked exactly as elsewhere.
        mutating func jsonString() -> String? {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
            var end = position + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard end < bytes.count else { return nil }
            let slice = UnsafeRawBufferPointer(rebasing: bytes[position...end])
            guard let value = try? JSONParser.parse(slice), case .string(let text) = value else { return nil }
            position = end + 1
            return text
        }

        /// `"<uuid>":<counter>` pairs up to the closing `}`, in canonical (ascending) key order.
        mutating func versionVector() -> VersionVector? {
            var counters: [ReplicaID: UInt64] = [:]
            var previous: String?
            if expect("}") { return VersionVector() }
            while true {
                guard expect("\""), let key = plainString(), let replica = ReplicaID(key), expect(":"),
                    let counter = integer(), counter > 0
                else { return nil }
                if let previous, !previous.utf8.lexicographicallyPrecedes(key.utf8) { return nil }
                guard counters[replica] == nil else { return nil }
                counters[replica] = counter
                previous = key
                if expect("}") { return VersionVector(counters) }
                guard expect(",") else { return nil }
            }
        }
    }
}
