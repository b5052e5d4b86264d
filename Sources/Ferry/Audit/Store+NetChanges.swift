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
