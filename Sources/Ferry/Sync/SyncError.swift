/// What can stop a sync. Each case names the peer or record concerned.
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer is this very store.
    case samePeer(path: String)
    /// The peer is another folder with this store's replica id: one is a copy of the other.
    case copiedStore(local: String, peer: String)
    /// The peer's journal is shorter than, or differs from, what this store exchanged with it
    /// before: its folder was wiped or restored. Refused unless forced.
    case peerLostHistory(peer: String, hadPosition: UInt64, nowHead: UInt64)
    /// A received change is stamped too far in the future: a clock gone wrong or a forgery.
    /// `origin` is the replica that made it.
    case clockSkew(peer: String, origin: ReplicaID, record: RecordKey, aheadByMilliseconds: UInt64, limit: UInt64)
    /// This store holds changes stamped further ahead of its clock than the bound (made while
    /// its clock ran ahead): they are not published, so that they block no other replica.
    case stampedAhead(store: String, peer: String, origin: ReplicaID, record: RecordKey, aheadByMilliseconds: UInt64, limit: UInt64)
    /// Applying the sync would delete more than the allowed share of a store's records, and
    /// more than the guard's floor (see ``SyncOptions/deletionFloor``).
    case massDeletion(store: String, deleting: Int, of: Int, limitPercent: Int, floor: Int)
    /// A change the peer sent breaks the rules (bad entity, missing document).
    case invalidChange(peer: String, reason: String)
    /// A change does not match its own digest: it was altered after it was made (a hand-edited
    /// journal line, or a corrupted transfer). Nothing of the batch is applied.
    case alteredChange(source: String, change: ChangeIdentity, record: RecordKey)
    /// Two stores hold different changes under one identity (origin and counter): one of them
    /// is a copy of a store folder (`cp -r`, a backup, a VM snapshot) and both went on changing.
    /// `local` and `peer` are the stores that met; `copy` names the one to re-identify, when it
    /// is one of them (the store whose replica id is `origin`).
    case divergedReplica(origin: ReplicaID, counter: UInt64, local: String, peer: String, copy: String?)
    /// A peer sent a change that skips counters of its origin: the store would then believe it
    /// has changes it never received, and never ask for them.
    case counterGap(peer: String, origin: ReplicaID, expected: UInt64, found: UInt64)
    /// Changes of a replica that signs its work came without a signature of its key that covers
    /// them (through `counter`), or with a signature that does not check: work published under
    /// `origin` by someone who does not hold its key. Nothing was applied.
    case unsignedWork(source: String, origin: ReplicaID, counter: UInt64, reason: String)
    /// A change of the receiving store's own replica, which that store never made and which is
    /// not signed by its key: someone else published under this store's identity.
    case impersonated(store: String, source: String, counter: UInt64, reason: String)
    /// The store started joining from a hub's snapshot and was stopped before it finished: it
    /// syncs with nothing else until a sync with that hub completes the join.
    case joinInProgress(store: String, hub: String)
    /// `--history full` was asked of a peer that holds part of its records only as state (it
    /// joined from a snapshot itself): the history it lacks cannot be copied from it.
    case historyNotHeld(peer: String)
    /// The state a peer store offered a joining store cannot be tied to its signed statement
    /// of it (``StateStatement``): a version altered, a parent link broken, a statement that is
    /// not the peer's or does not give what was received. Nothing was applied.
    case stateRefused(peer: String, reason: String)
    /// A store error on either side.
    case store(StoreError)
    /// The transport failed.
    case transport(String)
    /// A hub could not be read or written (see ``HubError``).
    case hub(HubError)
    /// An app backend could not be read or written (see ``BackendError``).
    case backend(BackendError)
    /// The sync was cancelled (Ctrl-C) before it finished; nothing acknowledged is lost.
    case cancelled

    public var description: String {
        switch self {
        case .samePeer(let path):
            return "\(path) has this store's replica id: it is this store itself (or a copy of it: if so, run "
                + "'ferry reidentify' on the copy); sync needs two different replicas"
        case .copiedStore(let local, let peer):
            return "\(local) and \(peer) have the same replica id: one is a copy of the other's folder (cp -r, a backup, "
                + "a VM snapshot), and two replicas cannot share an id; give the copy a new identity with "
                + "'ferry reidentify <copy>' (it keeps its changes), then sync again"
        case .peerLostHistory(let peer, let had, let now):
            return "peer \(peer) has lost history: this store last synced with it at journal position \(had), "
                + "but its journal now ends at \(now) (wiped, re-created or restored from a backup?); "
                + "refusing to sync; run again with --force to reconcile it as a new peer"
        case .clockSkew(let peer, let origin, let record, let ahead, let limit):
            return "peer \(peer) sent a change to \(record) made by replica \(origin.short), stamped \(ClockSkewText.duration(ahead)) "
                + "ahead of this clock (--max-skew \(limit / 1000) s); refusing it, since a future stamp would win every conflict; "
                + "check that machine's clock: once it is right, that replica re-stamps what it has not published with "
                + "'ferry sync --restamp'; if this clock is the one behind, fix it or raise --max-skew"
        case .stampedAhead(let store, let peer, let origin, let record, let ahead, let limit):
            let whose = "replica \(origin.short)"
            return "\(store) holds changes of \(whose) (the first to \(record)) stamped \(ClockSkewText.duration(ahead)) ahead of "
                + "this clock (--max-skew \(limit / 1000) s), made while a clock ran ahead; nothing was pushed to \(peer), since "
                + "they would block every replica that syncs there; with this machine's clock right, run 'ferry sync --restamp' "
                + "to stamp this store's unpublished changes again, or raise --max-skew if this clock is the one behind"
        case .massDeletion(let store, let deleting, let total, let limit, let floor):
            return "this sync would delete \(deleting) of \(total) records in \(store) (more than \(limit)% and more than \(floor)); "
                + "run again with --force if that is intended (or raise --max-delete or --max-delete-count)"
        case .invalidChange(let peer, let reason):
            return "peer \(peer) sent an invalid change: \(reason)"
        case .alteredChange(let source, let change, let record):
            return "\(source): change \(change) to \(record) does not match its digest: it was altered after it was made "
                + "(a hand-edited journal line?); refusing to pass it on, nothing was applied; run 'ferry verify' on the store it came from"
        case .divergedReplica(let origin, let counter, let local, let peer, let copy):
            let fix = copy.map { "'ferry reidentify \($0)'" } ?? "'ferry reidentify <store>' on the store whose replica id starts \(origin.short)"
            return "\(local) and \(peer) hold different changes numbered \(counter) of replica \(origin.short): "
                + "a store folder was copied (cp -r, a backup, a VM snapshot) and both copies went on changing; "
                + "nothing was applied; give the copy a new identity with \(fix), which keeps its changes, then sync again"
        case .unsignedWork(let source, let origin, let counter, let reason):
            return "\(source): the changes of replica \(origin) through \(counter) are not its signed work (\(reason)); "
                + "someone without its key published them; nothing was applied"
        case .impersonated(let store, let source, let counter, let reason):
            return "someone else published a change under this store's identity: \(source) holds change \(counter) of "
                + "\(store)'s replica, which this store never made and which is \(reason); nothing was applied. "
                + "This is not a copied store folder: do not reidentify; find who can write to \(source)"
        case .counterGap(let peer, let origin, let expected, let found):
            return "peer \(peer) sent change \(found) of replica \(origin.short) but this store's next change of it is \(expected); "
                + "changes of one replica must arrive in order, without gaps; refusing the batch, nothing was changed. "
                + "One of the two lacks change\(found > expected + 1 ? "s \(expected)…\(found - 1)" : " \(expected)") of that replica: "
                + "sync both with the replica \(origin.short) "
                + "or with a peer that holds them first, and run 'ferry verify' on each"
        case .joinInProgress(let store, let hub):
            return "\(store) started joining from a snapshot of the hub at \(hub) and was stopped before it finished; "
                + "run 'ferry sync \(store) \(hub)' to finish the join before syncing with anything else"
        case .historyNotHeld(let peer):
            return "\(peer) holds part of its history only as state (it joined from a snapshot, or it is a hub), so --history full cannot copy it from there; "
                + "nothing was changed; sync with the store it joined from (see 'ferry verify \(peer)'), or leave out --history full "
                + "to join from its state"
        case .stateRefused(let peer, let reason):
            return "\(peer): its state is refused, nothing was applied: \(reason)"
        case .store(let error):
            return error.description
        case .transport(let message):
            return message
        case .hub(let error):
            return error.description
        case .backend(let error):
            return error.description
        case .cancelled:
            return "sync cancelled"
        }
    }
}
