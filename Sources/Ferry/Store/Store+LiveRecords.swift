extension Store {
    /// Calls `body` with each live record of `entity` in id order (UTF-8 bytes), with its state
    /// when `withStates` is set; return `false` from `body` to stop.
    ///
    /// Streams: the index's records of the entity are merged in sort-key order (image and
    /// delta read a piece at a time, see ``RecordTable/forEachRecordInSortOrder(of:_:)``) and
    /// put in id order by an ``IDOrderBuffer``, which holds back only ids that sort early.
    ///
    /// `body` is called on sound data only as far as the walk can tell while it goes: a line
    /// that cannot be read, or a live count that differs from the index's, marks the index
    /// damaged, and the store rebuilds it from the journal and runs this again. The second run
    /// calls `body` only for the ids after the last one it was given, so nothing is handed out
    /// twice; if the rebuilt index has ids before that one that were not handed out, this
    /// throws rather than leave them out unsaid.
    /// - Throws: ``StoreError/damagedIndex(reason:)`` in that last case; what `body` throws.
    func forEachLiveRecord(
        of entity: EntityName, withStates: Bool, _ body: (RecordID, RecordState?) throws(StoreError) -> Bool
    ) throws(StoreError) {
        // What reached `body`, kept across a rebuild of a damaged index.
        var delivered = 0
        var lastDelivered: RecordID?
        try withReadAccess { () throws(StoreError) in
            let resumeAfter = lastDelivered
            let deliveredBefore = delivered
            var metBeforeResuming = 0
            var live = 0
            var damage: String?
            var stopped = false
            func deliver(_ id: RecordID, _ held: HeldRecord?) throws(StoreError) -> Bool {
                if let resumeAfter, !(resumeAfter < id) {
                    metBeforeResuming += 1
                    return true
                }
                var state: RecordState?
                if withStates {
                    guard let decoded = held?.record.state() else {
                        damage = "the record line of \(entity.rawValue)/\(id.rawValue) cannot be read"
                        return false
                    }
                    state = decoded
                }
                guard try body(id, state) else {
                    stopped = true
                    return false
                }
                delivered += 1
                lastDelivered = id
                return true
            }
            // A copy: `body` may read the store, and the walk must not hold the index.
            let table = index.records
            var buffer = IDOrderBuffer<HeldRecord?>()
            try table.forEachRecordInSortOrder(of: entity) { encodedID, record throws(StoreError) -> Bool in
                guard record.isLive else { return true }
                live += 1
                guard let id = RecordFileName.decode(bytes: encodedID) else {
                    damage = "a record line of \(entity.rawValue) has an id that is not a record file name"
                    return false
                }
                return try buffer.add(
                    id, withStates ? HeldRecord(record) : nil, keeping: { $0.map { HeldRecord($0.record.detached()) } }, emit: deliver)
            }
            if damage == nil, !stopped, table.damage == nil {
                _ = try buffer.finish(emit: deliver)
                let expected = index.liveCounts[entity] ?? 0
                if damage == nil, !stopped, live != expected {
                    damage = "\(expected) live \(entity.rawValue) records counted, \(live) found"
                }
            }
            if let damage {
                index.records.markDamaged(damage)
                return
            }
            if resumeAfter != nil, table.damage == nil, metBeforeResuming != deliveredBefore {
                throw .damagedIndex(
                    reason: "it was rebuilt from the journal after \(deliveredBefore) \(entity.rawValue) records had been "
                        + "listed, and it has \(metBeforeResuming) up to the last of them: run again for the full list")
            }
        }
    }
}

/// A record passed through an ``IDOrderBuffer`` by reference: the buffer's entries stay one
/// pointer wide (a listing of ids passes none at all).
private final class HeldRecord {
    let record: RecordTable.WalkedRecord

    init(_ record: RecordTable.WalkedRecord) { self.record = record }
}
