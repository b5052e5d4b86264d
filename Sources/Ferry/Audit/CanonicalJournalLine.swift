/// Byte-level facts about a journal line that is in canonical form, read without serializing
/// anything again: the hash of the line without its `hash` member, and the document's bytes.
///
/// A canonical line is `{"batch":…,"counter":…,"doc":…,"entity":"…","hash":"<64 hex>","hlc":…}`
/// (`batch` only for an entry of a batch of several): members in code-point order, so `hash`
/// sits between `entity` and `hlc`, and the entry's hash is the SHA-256 of the line with
/// `"hash":"<64 hex>",` cut out. Nothing after that member can hold the bytes `"hash":"`
/// (strings escape their quotes; `vv` keys are UUIDs), so the last occurrence is the member.
enum CanonicalJournalLine {
    private static let hashKey = Array(#""hash":""#.utf8)
    /// `"hash":"` + 64 hex digits + `",`.
    private static let hashMemberLength = hashKey.count + 64 + 2

    /// The byte offset of the `"hash":"` member, or `nil` when the line has none in canonical shape.
    static func hashMemberStart(_ line: UnsafeRawBufferPointer) -> Int? {
        let key = hashKey
        var start = line.count - hashMemberLength
        while start >= 0 {
            if line[start] == UInt8(ascii: "\"") && line[start + 1] == UInt8(ascii: "h") {
                var matches = true
                for offset in 2..<key.count where line[start + offset] != key[offset] {
                    matches = false
                    break
                }
                if matches {
                    let end = start + hashMemberLength
                    return line[end - 2] == UInt8(ascii: "\"") && line[end - 1] == UInt8(ascii: ",") ? start : nil
                }
            }
            start -= 1
        }
        return nil
    }

    /// SHA-256 of the line without its `hash` member: the entry's hash when the line is canonical.
    static func hashWithoutHashMember(_ line: UnsafeRawBufferPointer, memberStart: Int) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(UnsafeRawBufferPointer(rebasing: line[0..<memberStart]))
        hasher.update(UnsafeRawBufferPointer(rebasing: line[(memberStart + hashMemberLength)...]))
        return hasher.finalize()
    }

    /// Where the `doc` member's value is: the document's canonical bytes, whose SHA-256 is its
    /// content hash. `nil` when the line does not have the canonical shape around it.
    static func documentRange(_ line: UnsafeRawBufferPointer, memberStart: Int, entity: EntityName) -> Range<Int>? {
        // {"counter":<digits>,"doc": or, for an entry of a batch, {"batch":<digits>,"counter":<digits>,"doc":
        func skip(_ key: StaticString, andDigitsAt start: Int) -> Int? {
            let count = key.utf8CodeUnitCount
            guard start + count < line.count else { return nil }
            let matches = key.withUTF8Buffer { key in (0..<count).allSatisfy { line[start + $0] == key[$0] } }
            guard matches else { return nil }
            var cursor = start + count
            while cursor < line.count, line[cursor].isASCIIDigit { cursor += 1 }
            return cursor
        }
        let counted: Int?
        if let afterBatch = skip(#"{"batch":"#, andDigitsAt: 0) {
            counted = skip(#","counter":"#, andDigitsAt: afterBatch)
        } else {
            counted = skip(#"{"counter":"#, andDigitsAt: 0)
        }
        guard let cursor = counted else { return nil }
        let docKey = Array(#","doc":"#.utf8)
        guard cursor + docKey.count <= line.count, docKey.indices.allSatisfy({ line[cursor + $0] == docKey[$0] }) else {
            return nil
        }
        let documentStart = cursor + docKey.count
        // …,"entity":"<Entity>","hash":"
        let entityMember = Array(#","entity":""#.utf8) + Array(entity.rawValue.utf8) + Array(#"","#.utf8)
        let documentEnd = memberStart - entityMember.count
        guard documentEnd > documentStart, entityMember.indices.allSatisfy({ line[documentEnd + $0] == entityMember[$0] }) else {
            return nil
        }
        return documentStart..<documentEnd
    }
}
