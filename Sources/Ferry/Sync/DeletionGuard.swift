/// The mass-deletion guard of a sync: what it counts, and when it refuses.
///
/// It counts only what a change would really delete: a delete that loses to an edit it never
/// saw (a put beats a concurrent delete, ``RecordVersion/ranksBefore(_:_:)``) deletes nothing,
/// so it is never a pending deletion that wedges every later sync. It refuses only when a sync
/// deletes more than ``SyncOptions/maximumDeletionShare`` of a store's records *and* more than
/// ``SyncOptions/deletionFloor`` of them.
///
/// ```swift
/// let guard = DeletionGuard(options: SyncOptions())
/// guard.refuses(deleting: 2, of: 3)    // false: under the floor of 10
/// guard.refuses(deleting: 11, of: 20)  // true: 55% and more than 10
/// ```
struct DeletionGuard: Sendable {
    let share: Double
    let floor: Int
    let force: Bool

    init(options: SyncOptions) {
        share = options.maximumDeletionShare
        floor = options.deletionFloor
        force = options.force
    }

    /// Whether deleting `deleting` of `total` records needs `--force`.
    func refuses(deleting: Int, of total: Int) -> Bool {
        !force && deleting > floor && Double(deleting) > Double(total) * share
    }

    /// The refusal for deleting `deleting` of the `total` records of `store`.
    func refusal(store: String, deleting: Int, of total: Int) -> SyncError {
        .massDeletion(store: store, deleting: deleting, of: total, limitPercent: Int((share * 100).rounded()), floor: floor)
    }

    /// Whether `change` would delete the record whose state here is `state`: it is live now,
    /// and once `change` is incorporated the winner is a delete.
    static func deletes(_ change: Change, stateHere state: RecordState?) -> Bool {
        guard change.isDelete, var state, state.isLive else { return false }
        let version = RecordVersion(
            identity: change.identity, timestamp: change.timestamp, version: change.version, isDelete: true,
            contentHash: .zero, sequence: 0)
        _ = state.incorporate(version)
        return !state.isLive
    }
}
