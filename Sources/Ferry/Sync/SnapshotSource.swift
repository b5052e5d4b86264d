/// A peer that can offer its state to a joining store instead of its history: a store (its
/// records as of a journal position) or a hub (a snapshot written by compaction).
///
/// ```swift
/// if let source = transport as? SnapshotSource, let offer = try await source.snapshotOffer(for: knowledge, pending: nil) {
///     while let page = try await source.snapshotChanges(limit: 5_000) { … }
/// }
/// ```
public protocol SnapshotSource: AnyObject, Sendable {
    /// A snapshot the store should take before pulling changes: when it is empty (a join), when
    /// changes it lacks were collected, or to finish `pending`, a join this peer started.
    /// `nil` when the peer has none to offer or the changes suffice.
    func snapshotOffer(for knowledge: VersionVector, pending: SnapshotJoins.Join?) async throws(SyncError) -> SnapshotOffer?
    /// The next page of the offered snapshot's record versions; `nil` after the last.
    func snapshotChanges(limit: Int) async throws(SyncError) -> [Change]?
    /// The id and location of the hub or store a joining store takes the snapshot from, as its
    /// join records them.
    var joinSource: (id: ReplicaID, location: String)? { get }
}

/// A snapshot source that states its state once it was read whole, not with its offer: a
/// folder peer, whose digest of the versions is made as its pages are read, so that the peer's
/// journal is read once for a join.
public protocol StateStatingSource: SnapshotSource {
    /// The peer's signed statement (``StateStatement``) of the state whose every page was just
    /// read; `nil` when it states none (it has no key).
    func statementOfStateRead() async throws(SyncError) -> JSONValue?
}
