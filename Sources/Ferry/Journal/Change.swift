/// One change to one record, as it travels between replicas: who made it (origin and counter),
/// when (a hybrid logical clock stamp), what (put with the full document, or delete), and the
/// record's version after it.
///
/// A change keeps its identity (`origin`, `counter`) and stamp wherever it goes, so a chain of
/// syncs A → B → C delivers it once, and every replica can tell whether it has it already.
public struct Change: Sendable, Hashable {
    /// What the change does to its record.
    public enum Operation: Sendable, Hashable {
        /// The record's new full document (always a JSON object).
        case put(JSONValue)
        /// The record was deleted; a tombstone that travels like any change.
        case delete

        /// The document of a put; `nil` for a delete.
        public var document: JSONValue? {
            if case .put(let document) = self { return document }
            return nil
        }

        /// `"put"` or `"delete"`, as the journal writes it.
        public var name: String {
            if case .put = self { return "put" }
            return "delete"
        }
    }

    /// The replica that made the change.
    public var origin: ReplicaID
    /// The change's position among all changes its origin made (1, 2, 3, …).
    public var counter: UInt64
    /// When it was made, on the hybrid logical clock.
    public var timestamp: HybridTimestamp
    /// The record changed.
    public var key: RecordKey
    /// Put or delete.
    public var operation: Operation
    /// The record's version after the change, as the origin saw it.
    public var version: VersionVector
    /// The change's digest and its place in its origin's chain (see ``ChangeChain``); `nil` for a
    /// change not yet journaled, or journaled before changes carried digests.
    public var chain: ChangeChain?

    public init(
        origin: ReplicaID, counter: UInt64, timestamp: HybridTimestamp, key: RecordKey,
        operation: Operation, version: VersionVector, chain: ChangeChain? = nil
    ) {
        self.origin = origin
        self.counter = counter
        self.timestamp = timestamp
        self.key = key
        self.operation = operation
        self.version = version
        self.chain = chain
    }

    /// The change's digest: the one it carries, or for a change journaled before changes carried
    /// digests, the digest of its content with no parent.
    public var digest: SHA256Digest {
        chain?.digest ?? ChangeChain.digest(of: self, parent: .zero)
    }

    /// The chain the change carries, or for a change journaled before changes carried digests,
    /// one computed from its content with no parent (what such a change travels with).
    public var chainOrLegacy: ChangeChain {
        chain ?? ChangeChain(self, parent: .zero)
    }

    /// The change's global identity: origin and counter.
    public var identity: ChangeIdentity { ChangeIdentity(origin: origin, counter: counter) }

    /// Whether it is a delete.
    public var isDelete: Bool { operation == .delete }

    /// About how many bytes the change takes in a page of changes: its document's estimated
    /// JSON size (``JSONValue/estimatedByteCount``) and 200 for its key, stamps and version.
    var estimatedPageBytes: Int { 200 + (operation.document?.estimatedByteCount ?? 0) }
}

/// A change's global identity: the replica that made it and its counter there.
public struct ChangeIdentity: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var origin: ReplicaID
    public var counter: UInt64

    public init(origin: ReplicaID, counter: UInt64) {
        self.origin = origin
        self.counter = counter
    }

    /// `<short origin>:<counter>`.
    public var description: String { "\(origin.short):\(counter)" }

    public static func < (lhs: ChangeIdentity, rhs: ChangeIdentity) -> Bool {
        lhs.origin == rhs.origin ? lhs.counter < rhs.counter : lhs.origin < rhs.origin
    }
}
