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

/// Chooses a ``SyncPlan``. A pure function of the heads and the checkpoint: it never compares
/// timestamps to decide what to send (what was sent is known from journal positions).
public enum SyncPlanner {
    /// The plan for a sync between `local` and `peer`.
    /// - Parameter checkpoint: the last exchange with this peer, already checked to still
    ///   match both journals (`nil` when there was none or it no longer holds).
    public static func plan(local: StoreHead, peer: StoreHead, checkpoint: SyncCheckpoint?) -> SyncPlan {
        if local.sequence == 0 && peer.sequence == 0 { return .upToDate }
        if local.sequence == 0 { return .fullPull }
        if peer.sequence == 0 { return .fullPush }
        guard let checkpoint else { return .reconcile }
        if checkpoint.localPosition == local.sequence && checkpoint.peerPosition == peer.sequence {
            return .upToDate
        }
        return .incremental
    }

    /// Where each side's changes are read from under `plan`: (peer position, local position).
    public static func startPositions(for plan: SyncPlan, checkpoint: SyncCheckpoint?) -> (peer: UInt64, local: UInt64) {
        switch plan {
        case .incremental, .upToDate:
            return (checkpoint?.peerPosition ?? 0, checkpoint?.localPosition ?? 0)
        case .fullPull, .fullPush, .reconcile:
            return (0, 0)
        }
    }
}
