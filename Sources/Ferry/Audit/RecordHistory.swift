/// Every version of one record in a store's journal, oldest first, each with what it changed.
///
/// ```swift
/// let history = try store.history(of: RecordKey(entity: products, id: lamp))
/// for version in history.versions {
///     print(version.entry.change.timestamp, version.entry.change.origin, version.changes)
/// }
/// ```
///
/// A deleted record keeps its history: the last version is the delete.
public struct RecordHistory: Sendable, Hashable {
    /// What became of a version when this store received it.
    public enum Outcome: String, Sendable, Hashable {
        /// The store showed this version from then on.
        case applied
        /// It was concurrent with the version shown and lost the tie-break; it is kept as a
        /// conflict until resolved.
        case conflict
        /// The store already had a version that descends from it; it changed nothing.
        case superseded
    }

    /// One version: its journal entry and its field-level diff from what the store showed before.
    public struct Version: Sendable, Hashable {
        /// The journal entry that brought the version.
        public var entry: JournalEntry
        /// The fields it changed compared with the record as the store showed it just before
        /// (all fields added for a creation, all removed for a delete).
        public var changes: [FieldChange]
        /// What it did to the record.
        public var outcome: Outcome

        /// Makes a version entry of a history.
        public init(entry: JournalEntry, changes: [FieldChange], outcome: Outcome) {
            self.entry = entry
            self.changes = changes
            self.outcome = outcome
        }
    }

    /// The record.
    public var key: RecordKey
    /// Its versions in journal order (oldest first).
    public var versions: [Version]
    /// The document the store shows now; `nil` when the record is deleted.
    public var current: JSONValue?
    /// Whether concurrent versions wait for resolution.
    public var isConflicted: Bool

    /// Makes a history; ``Store/history(of:)`` is how histories are read.
    public init(key: RecordKey, versions: [Version], current: JSONValue?, isConflicted: Bool) {
        self.key = key
        self.versions = versions
        self.current = current
        self.isConflicted = isConflicted
    }
}

extension RecordHistory {
    /// Replays a record's entries (oldest first) with the store's merge rules.
    static func replay(key: RecordKey, chain: [JournalEntry]) -> RecordHistory {
        var state: RecordState?
        var documents: [UInt64: JSONValue] = [:]
        var versions: [Version] = []
        func shown(_ state: RecordState?) -> JSONValue? {
            guard let state, state.isLive else { return nil }
            return documents[state.winner.sequence]
        }
        for entry in chain {
            let change = entry.change
            let document = change.operation.document
            if let document { documents[entry.sequence] = document }
            let before = shown(state)
            let version = RecordVersion(
                identity: change.identity, timestamp: change.timestamp, version: change.version,
                isDelete: change.isDelete, contentHash: document.map { SHA256.hash($0.canonicalBytes()) } ?? .zero,
                sequence: entry.sequence)
            let outcome: Outcome
            if var current = state {
                if current.incorporate(version) == .stale {
                    outcome = .superseded
                } else {
                    outcome = current.winner.sequence == entry.sequence ? .applied : .conflict
                }
                current.lastSequence = entry.sequence
                state = current
            } else {
                state = RecordState(versions: [version], lastSequence: entry.sequence, file: nil)
                outcome = .applied
            }
            versions.append(Version(entry: entry, changes: FieldChange.changes(from: before, to: document), outcome: outcome))
        }
        return RecordHistory(key: key, versions: versions, current: shown(state), isConflicted: state?.isConflicted ?? false)
    }
}
