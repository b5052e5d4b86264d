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
