/// What an empty store copies when it first syncs with a peer store.
///
/// ```swift
/// var options = SyncOptions()
/// options.history = .full   // every version ever written, for a complete audit trail here
/// ```
public enum JoinHistory: String, Sendable, CaseIterable {
    /// The peer's current state (every record's current versions, tombstones included) and
    /// then its journal from that point: a join costs the state, not the history. The store
    /// notes which entry of the peer's journal the state stands for (``SnapshotJoins``), so what
    /// it holds stays bound to a chain the peer can show in full.
    case state
    /// The peer's whole journal, every version ever written, as before snapshots.
    case full
}
