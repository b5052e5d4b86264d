extension Store {
    /// Has the queue name a batch's new files while the batch's entries are written and
    /// synced, once the list of them is durable, so that a crash before the entries are
    /// cannot leave them behind.
    /// - Parameters:
    ///   - firstSequence: the batch's first journal sequence; `entryCount`: its entries.
    ///   - contentHash: the canonical hash of the document a record ends the batch with.
    func startNamingEarly(
        _ files: inout PreparedRecordFiles, firstSequence: UInt64, entryCount: Int, contentHash: (RecordKey) -> SHA256Digest?
    ) throws(StoreError) {
        guard !files.indexByKey.isEmpty else { return }
        let named = files.indexByKey.sorted { $0.value < $1.value }
        let intent = NewFileIntent(
            firstSequence: firstSequence, entryCount: UInt64(entryCount),
            files: named.compactMap { key, _ in contentHash(key).map { NewFileIntent.File(key: key, contentHash: $0) } })
        try recordNewFileIntent(intent)
        files.earlyNames = named.map { ($0.value, layout.recordFile($0.key)) }
        files.queue.link(files.earlyNames)
    }

    /// Writes `intent` to `.ferry/new-files` and syncs it, before any of its files is named.
    /// The file is overwritten in place (one sync); the first one also syncs `.ferry/`.
    func recordNewFileIntent(_ intent: NewFileIntent) throws(StoreError) {
        let path = layout.newFileIntent
        let bytes = intent.encoded()
        do {
            let isNew = !FileSystem.exists(path)
            let file = try FileDescriptor.open(path, .writeOnly, options: .create)
            try file.closeAfter { () throws(SystemError) in
                try file.writeAll(bytes)
                try file.truncate(to: Int64(bytes.count))
                try file.synchronize()
            }
            if isNew { try FileSystem.synchronizeDirectory(layout.engine) }
        } catch {
            throw .io(error)
        }
    }

    /// Empties `.ferry/new-files` once its batch is durable or settled. Not synced: a list
    /// that survives a crash is settled again, which changes nothing the second time.
    func clearNewFileIntent() {
        guard let file = try? FileDescriptor.open(layout.newFileIntent, .writeOnly) else { return }
        try? file.truncate(to: 0)
        file.close()
    }

    /// Removes the files a batch named early when the batch never reached the journal (the
    /// writer died between naming them and syncing its entries). Called with the lock held,
    /// when the store opens and each time the lock is taken, before anything is appended; costs
    /// one `stat` when there is nothing to settle.
    ///
    /// A listed file is removed only if its record has no live version in the index and the
    /// file holds exactly the listed document (by the hash of its canonical form): anything
    /// else is a record's real file or a person's edit, left for `status`.
    func settleNewFileIntent() throws(StoreError) {
        let path = layout.newFileIntent
        guard let status = try? FileSystem.status(path), status.size > 0 else { return }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path, limit: 64 << 20) } catch { throw .io(error) }
        if let intent = NewFileIntent(decoding: bytes), journal.headSequence < intent.lastSequence {
            for file in intent.files {
                if let state = index.records[file.key], state.isLive { continue }
                let recordPath = layout.recordFile(file.key)
                guard let contents = try? FileSystem.readFile(recordPath, limit: options.maximumDocumentBytes * 4 + 4096),
                    let document = try? JSONParser.parse(contents),
                    SHA256.hash(document.canonicalBytes()) == file.contentHash
                else { continue }
                do { try FileSystem.removeFile(recordPath) } catch { throw .io(error) }
            }
            options.warningHandler(
                "warning: \(layout.root): removed the new record files of a batch that was not written (seq \(intent.firstSequence)…\(intent.lastSequence))")
        }
        clearNewFileIntent()
    }

    /// Removes the files this process named early for a batch whose journal append failed,
    /// and the list.
    func undoEarlyNames(_ prepared: PreparedRecordFiles) {
        let outcomes = prepared.queue.linkResults()
        for (index, path) in prepared.earlyNames {
            if case .linked = outcomes[index] { try? FileSystem.removeFile(path) }
        }
        clearNewFileIntent()
    }
}
