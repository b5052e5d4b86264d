/// What a time window did to one record, start state against end state, ignoring the steps
/// in between: created, changed (with field diff) or deleted.
///
/// ```swift
/// let since = try AuditTime(parsing: "1d", now: clock.milliseconds())
/// for change in try store.netChanges(since: since) {
///     print(change.kind, change.key, change.changes)
/// }
/// ```
public struct NetChange: Sendable, Hashable {
    /// The net effect.
    public enum Kind: String, Sendable, Hashable {
        /// No live record at the start, one at the end.
        case created
        /// Live at both ends with different content.
        case changed
        /// Live at the start, gone at the end.
        case deleted
    }

    /// The record.
    public var key: RecordKey
    /// Created, changed or deleted.
    public var kind: Kind
    /// The document at the window's start (`nil` when created).
    public var before: JSONValue?
    /// The document at the window's end (`nil` when deleted).
    public var after: JSONValue?
    /// Field changes from `before` to `after`.
    public var changes: [FieldChange]
    /// How many journal entries about the record fall inside the window.
    public var steps: Int

    /// Makes a net change; ``Store/netChanges(since:until:)`` is how they are found.
    public init(key: RecordKey, kind: Kind, before: JSONValue?, after: JSONValue?, changes: [FieldChange], steps: Int) {
        self.key = key
        self.kind = kind
        self.before = before
        self.after = after
        self.changes = changes
        self.steps = steps
    }
}
