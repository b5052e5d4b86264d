/// A change at its place in one store's journal: the change, its sequence number, the
/// sequence of the same record's previous entry, and the hash chain.
///
/// The `hash` covers the canonical bytes of every other field, including `prev`, the hash of
/// the entry before; editing, removing, inserting or reordering a line breaks the chain.
public struct JournalEntry: Sendable, Hashable {
    /// This store's position of the entry: 1, 2, 3, … with no gaps.
    public var sequence: UInt64
    /// The change.
    public var change: Change
    /// The sequence of the previous entry for the same record in this journal (0 for none).
    public var previousSequenceOfRecord: UInt64
    /// The hash of the entry before (all zeros for the first).
    public var previousHash: SHA256Digest
    /// The hash of this entry's canonical bytes without the `hash` field.
    public var hash: SHA256Digest

    public init(
        sequence: UInt64, change: Change, previousSequenceOfRecord: UInt64,
        previousHash: SHA256Digest, hash: SHA256Digest
    ) {
        self.sequence = sequence
        self.change = change
        self.previousSequenceOfRecord = previousSequenceOfRecord
        self.previousHash = previousHash
        self.hash = hash
    }

    /// Makes the entry for `change` at `sequence`, computing its hash.
    public static func make(
        sequence: UInt64, change: Change, previousSequenceOfRecord: UInt64, previousHash: SHA256Digest
    ) -> (entry: JournalEntry, line: [UInt8]) {
        var encoder = JournalLineEncoder()
        let (hash, line) = encoder.encode(
            sequence: sequence, change: change, previousSequenceOfRecord: previousSequenceOfRecord,
            previousHash: previousHash)
        let entry = JournalEntry(
            sequence: sequence, change: change, previousSequenceOfRecord: previousSequenceOfRecord,
            previousHash: previousHash, hash: hash)
        return (entry, line)
    }

    /// The hash this entry's fields produce; differs from ``hash`` when the line was tampered with.
    public func computedHash() -> SHA256Digest {
        var encoder = JournalLineEncoder()
        return encoder.encode(
            sequence: sequence, change: change, previousSequenceOfRecord: previousSequenceOfRecord,
            previousHash: previousHash
        ).hash
    }

    /// The entry as a JSON object with every journal field, as `ferry log --json` prints it.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "seq": .integer(Int64(sequence)),
            "origin": .string(change.origin.rawValue),
            "counter": .integer(Int64(change.counter)),
            "hlc": .string(change.timestamp.description),
            "op": .string(change.operation.name),
            "entity": .string(change.key.entity.rawValue),
            "id": .string(change.key.id.rawValue),
            "vv": change.version.jsonValue,
            "pseq": .integer(Int64(previousSequenceOfRecord)),
            "prev": .string(previousHash.hex),
            "hash": .string(hash.hex),
        ]
        if let document = change.operation.document { members["doc"] = document }
        return .object(members)
    }
}
