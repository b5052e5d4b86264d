/// A snapshot a peer (a hub, or a store) offers instead of the history it no longer holds, or to save a new replica
/// from reading all of it: the live and deleted records' current versions, and the frontier
/// they stand for (every change up to it, bound to the digest of each origin's latest one).
public struct SnapshotOffer: Sendable, Equatable {
    /// Why the peer offers it.
    public enum Reason: Sendable, Equatable {
        /// The store is empty: it joins at the cost of the state, not of the history.
        case join
        /// Changes the store lacks were collected (`ferry hub compact`) while it was away;
        /// `lastSynced` is when it last wrote its head there, milliseconds since 1970.
        case collected(lastSynced: UInt64?)
        /// A join that was stopped before it finished.
        case resume
        /// The peer holds changes the store lacks only as state, not as history (it joined
        /// from a snapshot itself): the store takes that state, and its own changes stay.
        case historyNotHeld
    }

    /// The snapshot's id (a hub's: the SHA-256 of its manifest).
    public var id: SHA256Digest
    /// Every change up to this frontier is reflected in the snapshot.
    public var frontier: ReplicaFrontier
    /// Records it holds (live and deleted) and versions it carries.
    public var recordCount: Int
    public var changeCount: Int
    public var reason: Reason
    /// The peer's journal position the snapshot stands for, when the peer is a store (a hub
    /// has none): the store reads the peer's journal after it once joined. The snapshot's id
    /// is then the hash of the peer's entry there, so the join is bound to the peer's chain.
    public var position: UInt64?

    /// Whether the peer's journal holds every change up to the frontier (a store that joined
    /// from a snapshot itself holds part of it only as state), so that a replica asking for
    /// the full history can take that instead.
    public var holdsHistory: Bool

    /// The writer's signed statement of the state (a hub snapshot's signed manifest), proven
    /// by the peer before it offered the snapshot; `nil` when there is none.
    public var statement: JSONValue?

    public init(
        id: SHA256Digest, frontier: ReplicaFrontier, recordCount: Int, changeCount: Int, reason: Reason, position: UInt64? = nil,
        holdsHistory: Bool = false, statement: JSONValue? = nil
    ) {
        self.statement = statement
        self.holdsHistory = holdsHistory
        self.id = id
        self.frontier = frontier
        self.recordCount = recordCount
        self.changeCount = changeCount
        self.reason = reason
        self.position = position
    }
}
