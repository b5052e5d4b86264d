/// What a sync will do, chosen by ``SyncPlanner`` from both journals' heads and the checkpoint.
public enum SyncPlan: String, Sendable, CaseIterable {
    /// This store is empty: copy the peer's journal in bulk, with no per-record conflict work.
    case fullPull = "full-pull"
    /// The peer is empty: copy this store's journal to it in bulk.
    case fullPush = "full-push"
    /// Nothing changed on either side since the checkpoint. Decided in constant time.
    case upToDate = "up-to-date"
    /// Both sides' changes since the checkpoint, exchanged both ways.
    case incremental = "incremental"
    /// Two non-empty stores that never synced (or whose checkpoint no longer holds): every
    /// change is exchanged and records are matched by entity and id.
    case reconcile = "reconcile"
}

/// Chooses a ``SyncPlan``. A pure function of this store's head, the peer's mark and the
/// checkpoint: it never compares timestamps to decide what to send, and never reads inside a
/// peer's mark (marks are compared whole).
public enum SyncPlanner {
    /// The plan for a sync between `local` and `peer`.
    /// - Parameter checkpoint: the last exchange with this peer, already checked to still
    ///   hold on both sides (`nil` when there was none or it no longer holds).
    public static func plan(local: StoreHead, peer: PeerInfo, checkpoint: SyncCheckpoint?) -> SyncPlan {
        if local.sequence == 0 && peer.isEmpty { return .upToDate }
        if local.sequence == 0 { return .fullPull }
        if peer.isEmpty { return .fullPush }
        guard let checkpoint else { return .reconcile }
        if checkpoint.localPosition == local.sequence && checkpoint.peerMark == peer.mark {
            return .upToDate
        }
        return .incremental
    }
}
