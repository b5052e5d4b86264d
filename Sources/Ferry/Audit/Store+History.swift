extension Store {
    /// The record's history: every journal entry about it, oldest first, with field diffs.
    ///
    /// Walks the record's `pseq` chain back from the index (one read per version) and replays
    /// it with the store's own conflict rules, so each diff is against what the store showed
    /// just before that change.
    ///
    /// - Parameter key: The record, live or deleted.
    /// - Throws: ``AuditError/recordNotFound(_:)`` when the journal never had it.
    public func history(of key: RecordKey) throws(AuditError) -> RecordHistory {
        do {
            return try withReadAccess { () throws(StoreError) -> RecordHistory in
                guard let state = index.records[key] else { throw StoreError.recordNotFound(key) }
                let reader = JournalReader(journal: journal)
                var chain: [JournalEntry] = []
                var sequence = state.lastSequence
                do throws(JournalError) {
                    while sequence > 0 {
                        let entry: JournalEntry
                        do throws(JournalError) { entry = try reader.entry(at: sequence) } catch {
                            // Older history was moved to the archive by `ferry compact`.
                            if case .archived = error, !chain.isEmpty { break }
                            throw error
                        }
                        guard entry.change.key == key, entry.previousSequenceOfRecord < sequence else {
                            throw JournalError.malformedEntry(
                                segment: "journal", line: Int(sequence), reason: "the pseq chain of \(key) is broken here")
                        }
                        chain.append(entry)
                        sequence = entry.previousSequenceOfRecord
                    }
                } catch {
                    throw StoreError.journal(error)
                }
                chain.reverse()
                return RecordHistory.replay(key: key, chain: chain)
            }
        } catch {
            if case .recordNotFound(let missing) = error { throw .recordNotFound(missing) }
            throw .store(error)
        }
    }
}
