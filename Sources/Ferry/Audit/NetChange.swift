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

extension Store {
    /// The net effect of the changes made in `[since, until)` on each record, sorted by key.
    ///
    /// The state at an instant is what the store holds when only the changes stamped before it
    /// are applied (changes are compared by their hybrid-clock stamp, so a change received late
    /// from another replica counts at the time it was made). Records the window touched but left
    /// as they were are not listed.
    ///
    /// - Parameters:
    ///   - since: The window's start (inclusive).
    ///   - until: The window's end (exclusive); `nil` for no end.
    /// - Throws: ``AuditError/emptyWindow(since:until:)`` when `until` is not after `since`;
    ///   ``AuditError/store(_:)`` when the journal cannot be read.
    public func netChanges(since: AuditTime, until: AuditTime? = nil) throws(AuditError) -> [NetChange] {
        if let until, until <= since { throw .emptyWindow(since: since.milliseconds, until: until.milliseconds) }
        let end = until?.milliseconds ?? UInt64.max
        do {
            return try withReadAccess { () throws(StoreError) -> [NetChange] in
                let reader = JournalReader(journal: journal)
                var atStart = StoreIndex()
                var atEnd = StoreIndex()
                var steps: [RecordKey: Int] = [:]
                do throws(JournalError) {
                    try reader.forEachEntry { entry in
                        let stamp = entry.change.timestamp.physical
                        guard stamp < end else { return true }
                        let hash = entry.change.operation.document.map { SHA256.hash($0.canonicalBytes()) } ?? .zero
                        _ = atEnd.apply(entry, contentHash: hash)
                        if stamp < since.milliseconds {
                            _ = atStart.apply(entry, contentHash: hash)
                        } else {
                            steps[entry.change.key, default: 0] += 1
                        }
                        return true
                    }
                } catch {
                    throw .journal(error)
                }
                var result: [NetChange] = []
                for key in steps.keys.sorted() {
                    let before = atStart.records[key].flatMap { $0.isLive ? $0.winner : nil }
                    let after = atEnd.records[key].flatMap { $0.isLive ? $0.winner : nil }
                    let kind: NetChange.Kind
                    switch (before, after) {
                    case (nil, nil): continue
                    case (nil, _?): kind = .created
                    case (_?, nil): kind = .deleted
                    case (let old?, let new?):
                        if old.contentHash == new.contentHash { continue }
                        kind = .changed
                    }
                    var oldDocument: JSONValue?
                    var newDocument: JSONValue?
                    do throws(JournalError) {
                        if let before { oldDocument = try reader.entry(at: before.sequence).change.operation.document }
                        if let after { newDocument = try reader.entry(at: after.sequence).change.operation.document }
                    } catch {
                        throw .journal(error)
                    }
                    result.append(
                        NetChange(
                            key: key, kind: kind, before: oldDocument, after: newDocument,
                            changes: FieldChange.changes(from: oldDocument, to: newDocument), steps: steps[key] ?? 0))
                }
                return result
            }
        } catch {
            throw .store(error)
        }
    }
}
