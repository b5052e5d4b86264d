/// What checking a snapshot join against the store it came from found (see
/// ``Store/checkJoin(_:against:)``).
///
/// A store that joined from a peer store's state holds the versions that were current at one
/// position of the peer's journal, bound to the hash of the peer's entry there. The check proves
/// the binding: the peer's entry at that position still has that hash (so the peer shows, in
/// full, the chain the snapshot was taken from), and replaying the peer's journal up to it gives
/// exactly the versions the store received, each with the same digest.
public struct JoinCheck: Sendable, Hashable {
    /// The join checked.
    public var join: SnapshotJoins.Join
    /// Versions current in the peer at the position (live, deleted and conflicting).
    public var versionCount = 0
    /// Records they belong to.
    public var recordCount = 0
    /// What does not match, one line each; empty when the snapshot is proven.
    public var problems: [String] = []

    public init(join: SnapshotJoins.Join) { self.join = join }

    public var isProven: Bool { problems.isEmpty }

    public var jsonValue: JSONValue {
        .object([
            "location": .string(join.location),
            "position": join.position.map { .integer(Int64(clamping: $0)) } ?? .null,
            "snapshot": .string(join.snapshot.hex),
            "records": .integer(Int64(recordCount)),
            "versions": .integer(Int64(versionCount)),
            "proven": .bool(isProven),
            "problems": .array(problems.map { .string($0) }),
        ])
    }
}
