/// What can stop a sync. Each case names the peer or record concerned.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer is this very store.
    case samePeer(path: String)
    /// The peer's journal is shorter than, or differs from, what this store exchanged with it
    /// before: its folder was wiped or restored. Refused unless forced.
    case peerLostHistory(peer: String, hadPosition: UInt64, nowHead: UInt64)
    /// A received change is stamped too far in the future: a clock gone wrong or a forgery.
    case clockSkew(peer: String, record: RecordKey, aheadByMilliseconds: UInt64, limit: UInt64)
    /// Applying the sync would delete more than the allowed share of a store's records.
    case massDeletion(store: String, deleting: Int, of: Int, limitPercent: Int)
    /// A change the peer sent breaks the rules (bad entity, missing document).
    case invalidChange(peer: String, reason: String)
    /// A store error on either side.
    case store(StoreError)
    /// The transport failed.
    case transport(String)
    /// The sync was cancelled (Ctrl-C) before it finished; nothing acknowledged is lost.
    case cancelled

    public var description: String {
        switch self {
        case .samePeer(let path):
            return "\(path) is this store itself; sync needs two different replicas"
        case .peerLostHistory(let peer, let had, let now):
            return "peer \(peer) has lost history: this store last synced with it at journal position \(had), "
                + "but its journal now ends at \(now) (wiped, re-created or restored from a backup?); "
                + "refusing to sync; run again with --force to reconcile it as a new peer"
        case .clockSkew(let peer, let record, let ahead, let limit):
            return "peer \(peer) sent a change to \(record) stamped \(ahead / 1000) s in the future "
                + "(limit \(limit / 1000) s); refusing it, since a future stamp would win every conflict; check that machine's clock"
        case .massDeletion(let store, let deleting, let total, let limit):
            return "this sync would delete \(deleting) of \(total) records in \(store) (more than \(limit)%); "
                + "run again with --force if that is intended"
        case .invalidChange(let peer, let reason):
            return "peer \(peer) sent an invalid change: \(reason)"
        case .store(let error):
            return error.description
        case .transport(let message):
            return message
        case .cancelled:
            return "sync cancelled"
        }
    }
}
