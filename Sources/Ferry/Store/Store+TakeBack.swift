extension Store {
    /// Takes back a local batch that reached the journal but whose record files could not all
    /// be written (no space left, a file size limit), so that a write that failed leaves no
    /// trace: the record is live exactly when it is journaled, exactly when the write returned.
    ///
    /// The journal is cut back to `head`, durably; the index is loaded again from its files
    /// and the journal (a delta that is ahead of the journal is not used); the record files
    /// this batch wrote before the failure are put back as the journal has them (when that
    /// fails too, the file stays as what it is, a hand edit that `status` shows, and nothing
    /// is lost). Caller holds the lock.
    /// - Parameters:
    ///   - head: the journal's head before the batch.
    ///   - written: the records the batch put, with their documents.
    /// - Throws: when the journal cannot be cut back: the batch then stays whole (it is
    ///   journaled and live), and the next open writes its files.
    func takeBack(after head: UInt64, written: [(key: RecordKey, document: JSONValue)]) throws(StoreError) {
        do { try journal.takeBack(from: head + 1) } catch { throw .journal(error) }
        cancelIndexMerge()
        try recover()
        for (key, document) in written {
            let path = layout.recordFile(key)
            guard fileHolds(document, path) else { continue }
            do {
                if let state = index.records[key], state.isLive {
                    try writeRecordFile(key, path: path, document: try self.document(of: state.winner, documents: [:]))
                } else {
                    try FileSystem.removeFile(path)
                }
            } catch {
                options.warningHandler("warning: \(path) could not be put back as the journal has it (\(error)); status shows it as an edit")
            }
        }
    }
}
