import Ferry

/// Checks a store's journal the way `ferry verify` would: sequences 1, 2, 3, … without gaps,
/// each entry's `prev` equal to the hash of the entry before, each `hash` equal to the hash
/// its fields produce, each `pseq` pointing at the record's previous entry, and no change
/// (origin, counter) journaled twice.
///
/// ```swift
/// let problems = try JournalAudit.problems(in: store)
/// #expect(problems.isEmpty, "\(problems)")
/// ```
public enum JournalAudit {
    /// Every problem found, one line each; empty for a sound journal.
    public static func problems(in store: Store) throws -> [String] {
        problems(in: try store.journalEntries())
    }

    /// Every problem found in `entries` (a whole journal, in order).
    public static func problems(in entries: [JournalEntry]) -> [String] {
        var problems: [String] = []
        var previousHash = SHA256Digest.zero
        var lastOfRecord: [RecordKey: UInt64] = [:]
        var identities = Set<ChangeIdentity>()
        for (offset, entry) in entries.enumerated() {
            let expected = UInt64(offset + 1)
            if entry.sequence != expected { problems.append("entry \(offset + 1): seq \(entry.sequence), expected \(expected)") }
            if entry.previousHash != previousHash { problems.append("seq \(entry.sequence): prev does not match the previous entry's hash") }
            if entry.computedHash() != entry.hash { problems.append("seq \(entry.sequence): hash does not match its content") }
            let key = entry.change.key
            if entry.previousSequenceOfRecord != lastOfRecord[key] ?? 0 {
                problems.append("seq \(entry.sequence): pseq \(entry.previousSequenceOfRecord), expected \(lastOfRecord[key] ?? 0)")
            }
            if !identities.insert(entry.change.identity).inserted {
                problems.append("seq \(entry.sequence): change \(entry.change.identity) journaled twice")
            }
            lastOfRecord[key] = entry.sequence
            previousHash = entry.hash
        }
        return problems
    }
}
