/// One version of a record as the index remembers it: which change made it, its causal
/// version, and a hash of its content (the document lives in the journal and the record file).
public struct RecordVersion: Sendable, Hashable {
    /// The change that made this version.
    public var identity: ChangeIdentity
    /// Its clock stamp.
    public var timestamp: HybridTimestamp
    /// Its causal version.
    public var version: VersionVector
    /// Whether it is a tombstone.
    public var isDelete: Bool
    /// SHA-256 of the document's canonical bytes (zero for a delete).
    public var contentHash: SHA256Digest
    /// The local journal entry holding it.
    public var sequence: UInt64

    public init(
        identity: ChangeIdentity, timestamp: HybridTimestamp, version: VersionVector, isDelete: Bool,
        contentHash: SHA256Digest, sequence: UInt64
    ) {
        self.identity = identity
        self.timestamp = timestamp
        self.version = version
        self.isDelete = isDelete
        self.contentHash = contentHash
        self.sequence = sequence
    }

    /// Whether two versions hold the same content (both deletes, or equal documents).
    public func hasSameContent(as other: RecordVersion) -> Bool {
        isDelete == other.isDelete && contentHash == other.contentHash
    }

    /// The order in which siblings are ranked, the same on every replica: a put beats a
    /// delete (no data is lost), then the higher clock stamp, then the higher replica id.
    public static func ranksBefore(_ lhs: RecordVersion, _ rhs: RecordVersion) -> Bool {
        if lhs.isDelete != rhs.isDelete { return !lhs.isDelete }
        if lhs.timestamp != rhs.timestamp { return lhs.timestamp > rhs.timestamp }
        if lhs.identity.origin != rhs.identity.origin { return lhs.identity.origin > rhs.identity.origin }
        return lhs.identity.counter > rhs.identity.counter
    }
}
