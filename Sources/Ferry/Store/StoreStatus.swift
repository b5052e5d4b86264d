/// Record files created, changed or deleted behind Ferry's back, as `ferry status` lists them.
public struct StoreStatus: Sendable, Hashable {
    /// One hand edit of a record file.
    public struct Edit: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            case created, modified, deleted
        }
        public var kind: Kind
        public var key: RecordKey
        /// The file's path relative to the store.
        public var path: String
        /// The file's document (for created and modified).
        public var document: JSONValue?
        /// For a file a person named (`records/Note/Todo.json`), the path of its record's
        /// canonical file, relative to the store (`records/Note/^todo.json`): `commit` renames
        /// the file there before it journals the edit (see ``RecordFileName/handMadeID(fromFileName:)``).
        public var canonicalPath: String? = nil
    }

    /// A file that cannot be committed: invalid JSON, not an object, or a name Ferry did not make.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The file's path relative to the store.
        public var path: String
        /// What is wrong, e.g. `line 3, column 7: expected ',' or '}'`.
        public var reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// How a status was found.
    public enum Search: Sendable, Hashable {
        /// Every record file was matched with the index; `reason` says why no watcher could
        /// vouch for the files it did not report (none running, it died, it lost track, …).
        case scan(reason: String)
        /// Only `examined` record files were looked at: those the store's running
        /// ``HandEditMonitor`` (process `pid`) saw touched since the last status, and those
        /// that status left unsettled.
        case watcher(pid: Int32, examined: Int)
    }

    /// The hand edits found, sorted by path.
    public var edits: [Edit] = []
    /// Files left untouched because they cannot be read as records.
    public var problems: [Problem] = []
    /// How they were found.
    public var search: Search = .scan(reason: "")

    /// A status listing `edits` and `problems`.
    public init(edits: [Edit] = [], problems: [Problem] = []) {
        self.edits = edits
        self.problems = problems
    }

    /// Whether the record files match the journal exactly.
    public var isClean: Bool { edits.isEmpty && problems.isEmpty }
}

/// What `commit` journaled.
public struct CommitReport: Sendable {
    /// The edits journaled as changes from this replica.
    public var committed: [StoreStatus.Edit]
    /// Files left untouched.
    public var problems: [StoreStatus.Problem]
}
