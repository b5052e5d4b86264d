/// Which journal entries `log` returns: every filter given must match.
///
/// ```swift
/// var query = LogQuery()
/// query.entity = try EntityName("Product")
/// query.since = try AuditTime(parsing: "3d", now: clock.milliseconds())
/// query.limit = 20
/// let entries = try store.log(query)
/// ```
///
/// Times are compared with each change's hybrid-clock stamp (when it was made, on the replica
/// that made it), `since` inclusive and `until` exclusive.
public struct LogQuery: Sendable, Hashable {
    /// A journal operation to keep.
    public enum Operation: String, Sendable, Hashable, CaseIterable {
        /// Puts (creations and edits).
        case put
        /// Deletes.
        case delete
    }

    /// Only this entity's records.
    public var entity: EntityName?
    /// Only records with this id (in any entity unless ``entity`` is set). Answered by walking
    /// each record's `pseq` chain back from the index, not by scanning the journal.
    public var id: RecordID?
    /// Only changes made by this replica.
    public var origin: ReplicaID?
    /// Only changes made at or after this time.
    public var since: AuditTime?
    /// Only changes made before this time.
    public var until: AuditTime?
    /// Only puts or only deletes.
    public var operation: Operation?
    /// At most this many entries (the newest).
    public var limit: Int?

    /// A query; every filter left `nil` matches everything.
    public init(
        entity: EntityName? = nil, id: RecordID? = nil, origin: ReplicaID? = nil, since: AuditTime? = nil,
        until: AuditTime? = nil, operation: Operation? = nil, limit: Int? = nil
    ) {
        self.entity = entity
        self.id = id
        self.origin = origin
        self.since = since
        self.until = until
        self.operation = operation
        self.limit = limit
    }

    /// Whether `entry` passes every filter (the limit aside).
    public func matches(_ entry: JournalEntry) -> Bool {
        let change = entry.change
        if let entity, change.key.entity != entity { return false }
        if let id, change.key.id != id { return false }
        if let origin, change.origin != origin { return false }
        if let since, change.timestamp.physical < since.milliseconds { return false }
        if let until, change.timestamp.physical >= until.milliseconds { return false }
        if let operation {
            switch operation {
            case .put: if change.isDelete { return false }
            case .delete: if !change.isDelete { return false }
            }
        }
        return true
    }
}
