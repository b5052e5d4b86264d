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

/// One change as `log` shows it: the journal entry and, for a put, which fields it changed
/// compared with the record's previous entry in this journal.
public struct LogEntry: Sendable, Hashable {
    /// The journal entry, with every field.
    public var entry: JournalEntry
    /// For a put: the fields changed since the record's previous entry (every field when the
    /// record was new or deleted before). For a delete: empty. `nil` when not computed.
    public var changes: [FieldChange]?
    /// Whether the record did not exist (or was deleted) before this change.
    public var createsRecord: Bool

    /// Wraps an entry with its field changes.
    public init(entry: JournalEntry, changes: [FieldChange]?, createsRecord: Bool) {
        self.entry = entry
        self.changes = changes
        self.createsRecord = createsRecord
    }
}
