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
    /// For an entry of a batch of several: the sequence of the batch's first entry, and how many
    /// entries of the batch follow this one. A journal whose last entry still expects more was
    /// cut short by a crash; the whole batch is dropped on open (all or nothing).
    public var batch: BatchPosition?

    public init(
        sequence: UInt64, change: Change, previousSequenceOfRecord: UInt64,
        previousHash: SHA256Digest, hash: SHA256Digest, batch: BatchPosition? = nil
    ) {
        self.sequence = sequence
        self.change = change
        self.previousSequenceOfRecord = previousSequenceOfRecord
        self.previousHash = previousHash
        self.hash = hash
        self.batch = batch
    }

    /// Makes the entry for `change` at `sequence`, computing its hash.
    public static func make(
        sequence: UInt64, change: Change, previousSequenceOfRecord: UInt64, previousHash: SHA256Digest,
        batch: BatchPosition? = nil
    ) -> (entry: JournalEntry, line: [UInt8]) {
        var encoder = JournalLineEncoder()
        let (hash, line) = encoder.encode(
            sequence: sequence, change: change, previousSequenceOfRecord: previousSequenceOfRecord,
            previousHash: previousHash, batch: batch)
        let entry = JournalEntry(
            sequence: sequence, change: change, previousSequenceOfRecord: previousSequenceOfRecord,
            previousHash: previousHash, hash: hash, batch: batch)
        return (entry, line)
    }

    /// The hash this entry's fields produce; differs from ``hash`` when the line was tampered with.
    public func computedHash() -> SHA256Digest {
        var encoder = JournalLineEncoder()
        return encoder.encode(
            sequence: sequence, change: change, previousSequenceOfRecord: previousSequenceOfRecord,
            previousHash: previousHash, batch: batch
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
        if let chain = change.chain {
            members["digest"] = .string(chain.digest.hex)
            members["parent"] = .string(chain.parent.hex)
            if let seal = chain.seal { members["sig"] = .string(seal.text) }
        }
        if let batch {
            members["batch"] = .integer(Int64(batch.first))
            members["more"] = .integer(Int64(batch.remaining))
        }
        return .object(members)
    }
}

/// Where an entry stands in a batch of several written together.
public struct BatchPosition: Sendable, Hashable {
    /// The sequence of the batch's first entry.
    public var first: UInt64
    /// How many entries of the batch follow this one (0 for its last).
    public var remaining: UInt64

    public init(first: UInt64, remaining: UInt64) {
        self.first = first
        self.remaining = remaining
    }
}
