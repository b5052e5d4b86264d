/// What can go wrong answering an audit question (log, history, diff, verify). Each case names
/// what it is about: the time text, the replica, the record, or the store's own error.
public enum AuditError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A time that is neither ISO 8601 nor a relative form such as `2h`.
    case invalidTime(String, reason: String)
    /// A replica given by name or id prefix that the store has never heard of.
    case unknownReplica(String)
    /// A replica prefix or name that matches more than one replica.
    case ambiguousReplica(String, candidates: [String])
    /// A record this store never had.
    case recordNotFound(RecordKey)
    /// A time window whose end is not after its start.
    case emptyWindow(since: UInt64, until: UInt64)
    /// The store could not be read.
    case store(StoreError)

    /// One line naming what is wrong, for `error:` messages.
    public var description: String {
        switch self {
        case .invalidTime(let text, let reason):
            return "invalid time '\(text)': \(reason)"
        case .unknownReplica(let text):
            return "no replica '\(text)' in this store's journal (give a name, a full id or an id prefix)"
        case .ambiguousReplica(let text, let candidates):
            return "replica '\(text)' is ambiguous: it matches \(candidates.joined(separator: ", "))"
        case .recordNotFound(let key):
            return "no record \(key) in the journal"
        case .emptyWindow(let since, let until):
            return "the time window is empty: --until (\(ISO8601Milliseconds.format(milliseconds: until))) "
                + "is not after --since (\(ISO8601Milliseconds.format(milliseconds: since)))"
        case .store(let error):
            return error.description
        }
    }
}
