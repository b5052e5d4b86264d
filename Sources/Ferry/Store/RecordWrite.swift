/// One write in a batch: put a document, or delete a record.
///
/// ```swift
/// try store.write([
///     .put(RecordKey(entity: users, id: try RecordID("1")), ["name": "Ada"]),
///     .delete(RecordKey(entity: users, id: try RecordID("2"))),
/// ])
/// ```
public enum RecordWrite: Sendable, Hashable {
    case put(RecordKey, JSONValue)
    case delete(RecordKey)

    /// The record written.
    public var key: RecordKey {
        switch self {
        case .put(let key, _), .delete(let key): return key
        }
    }
}

/// What a batch of writes did.
public struct WriteResult: Sendable {
    /// The journal entries appended, in order.
    public var entries: [JournalEntry]
    /// Puts skipped because the record already held exactly that document.
    public var unchanged: Int
    /// Hand edits of the batch's record files, journaled as changes from this replica before
    /// the batch wrote over them (not counted in ``entries``): their content is in the
    /// records' history.
    public var journaledEdits: [StoreStatus.Edit]

    public init(entries: [JournalEntry] = [], unchanged: Int = 0, journaledEdits: [StoreStatus.Edit] = []) {
        self.entries = entries
        self.unchanged = unchanged
        self.journaledEdits = journaledEdits
    }
}
