/// Where a compacted store's older journal history went (see ``Store/archivedHistory()``), for
/// `log` and `show --history` to tell the user.
///
/// ```swift
/// if let archived = store.archivedHistory() {
///     print("history before seq \(archived.firstLiveSequence) is archived in \(archived.folders)")
/// }
/// ```
public struct ArchivedHistory: Sendable, Hashable {
    /// The journal's first live sequence: entries before it are archived.
    public var firstLiveSequence: UInt64
    /// The archive folders, as paths.
    public var folders: [String]
    /// Whether they are there, with every archived segment.
    public var isPresent: Bool

    /// `{"before": …, "folders": […], "present": …}`.
    public var jsonValue: JSONValue {
        ["before": .integer(Int64(clamping: firstLiveSequence)), "folders": .array(folders.map { .string($0) }), "present": .bool(isPresent)]
    }

    /// One line for people.
    public var note: String {
        let folders = folders.joined(separator: ", ")
        return isPresent
            ? "note: history before seq \(firstLiveSequence) is archived in \(folders) ('ferry compact'); 'ferry verify' checks it"
            : "note: history before seq \(firstLiveSequence) was archived to \(folders), which is not there now ('ferry compact')"
    }
}

extension Store {
    /// Where older history went, when `ferry compact` archived some; `nil` otherwise.
    public func archivedHistory() -> ArchivedHistory? {
        mutex.lock()
        defer { mutex.unlock() }
        guard let start = journal.start else { return nil }
        return ArchivedHistory(
            firstLiveSequence: start.first, folders: start.archives.map { JournalStart.resolve($0.path, root: layout.root) },
            isPresent: JournalArchive.open(start: start, root: layout.root) != nil)
    }
}
