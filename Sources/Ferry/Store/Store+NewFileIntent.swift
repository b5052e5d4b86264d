extension Store {
    /// Works out which records of a batch get a new file, before anything is written, and
    /// has a worker make and name those files while the batch is journaled: the list of them
    /// (`.ferry/new-files`) is written first, and the names are given once a thread beside this
    /// one has synced it, so that a crash before the entries are durable cannot leave them
    /// behind (``settleNewFileIntent()``).
    ///
    /// The plan follows the writes exactly as ``performLocalWrites(_:)`` will (puts that change
    /// nothing, deletes, a record put twice), so the list holds each new record's last document
    /// and the batch's true number of entries. Returns `nil`, having started nothing, when the
    /// batch will fail (an invalid document, a delete of no record: the write loop throws the
    /// error in order) or has too few new files to be worth a worker.
    /// - Parameters:
    ///   - slots: the batch's records, numbered.
    ///   - plan: each record's state before the batch, by slot, filled in as it is looked up.
    func startNewRecordFiles(
        _ writes: [RecordWrite], canonicalForms: [Result<(bytes: [UInt8], hash: SHA256Digest), StoreError>?],
        firstSequence: UInt64, slots: BatchSlots, plan: inout [PlannedRecord?]
    ) throws(StoreError) -> PreparedRecordFiles? {
        var entryCount = 0
        var newFiles = 0
        // The worker starts making files as soon as there are enough of them, while the rest
        // of the batch is planned: requests are handed over in chunks, each a put that gives
        // a record a new file (a later write to the record may make it moot: then its file is
        // never named).
        let layout = self.layout
        var queue: UnnamedFileQueue?
        var unsent: [UnnamedFileQueue.Request] = []
        var sent = 0
        var paths: [String] = []
        func send() {
            if queue == nil { queue = UnnamedFileQueue() }
            let indexes = queue?.add(contentsOf: unsent) ?? 0..<0
            assert(indexes.lowerBound == sent, "the queue numbers requests from 0, in order")
            sent += unsent.count
            unsent.removeAll(keepingCapacity: true)
        }
        // Unless the queue is handed over at the end, its files are dropped unnamed.
        var handedOver = false
        defer { if !handedOver { queue?.finish() } }
        // By position: a copy of each write would retain its key and document.
        for offset in writes.indices {
            let key = writes[offset].key
            let slot = slots.ofWrite[offset]
            var record: PlannedRecord
            if let known = plan[slot] {
                record = known
            } else {
                let state = index.records.state(of: key)
                record = PlannedRecord(before: state, liveHash: state?.liveContentHash)
            }
            switch writes[offset] {
            case .put:
                guard case .success(let form)? = canonicalForms[offset] else { return nil }
                if record.liveHash == form.hash {
                    plan[slot] = record
                    continue
                }
                record.liveHash = form.hash
                if record.before?.file == nil && (record.before?.versions.count ?? 0) <= 1 {
                    if record.newFile == nil { newFiles += 1 }
                    let path = layout.recordFile(key)
                    let canonical = form.bytes
                    record.newFile = (offset, sent + unsent.count)
                    paths.append(path)
                    unsent.append { (FileSystem.parentPath(of: path), JSONWriter.prettyBytes(fromCanonical: canonical)) }
                    if unsent.count >= (queue == nil ? Store.fileQueueThreshold : 128) { send() }
                }
            case .delete:
                guard record.liveHash != nil else { return nil }
                record.liveHash = nil
                if record.newFile != nil { newFiles -= 1 }
                record.newFile = nil
            }
            plan[slot] = record
            entryCount += 1
        }
        try checkIndexIntegrity()
        guard newFiles >= Store.fileQueueThreshold, queue != nil else { return nil }
        if !unsent.isEmpty { send() }
        guard let queue else { return nil }
        var files: [NewFileIntent.File] = []
        var prepared = PreparedRecordFiles(
            queue: queue, fileBySlot: [(index: Int, path: String)?](repeating: nil, count: slots.count), entryCount: entryCount)
        files.reserveCapacity(newFiles)
        prepared.earlyNames.reserveCapacity(newFiles)
        // In the order of the writes (the plan's order is a hash table's), which is the
        // order of the queue's indexes.
        for offset in writes.indices {
            let slot = slots.ofWrite[offset]
            guard let newFile = plan[slot]?.newFile, newFile.offset == offset,
                case .success(let form)? = canonicalForms[offset]
            else { continue }
            files.append(NewFileIntent.File(key: writes[offset].key, contentHash: form.hash))
            prepared.fileBySlot[slot] = (newFile.index, paths[newFile.index])
            prepared.earlyNames.append((newFile.index, paths[newFile.index]))
        }
        let intent = NewFileIntent(firstSequence: firstSequence, entryCount: UInt64(entryCount), files: files)
        queue.link(prepared.earlyNames, once: try writeNewFileIntent(intent))
        handedOver = true
        // More files than the worker may make ahead: it would alternate making and naming
        // while this thread writes the journal; a second thread makes them instead.
        if sent > queue.window { queue.addMaker() }
        return prepared
    }

    /// Writes `intent` to `.ferry/new-files` (overwritten in place) and returns what syncs it:
    /// the file, and `.ferry/` the first time. It returns whether the sync succeeded; until
    /// it has, none of the listed files may be named.
    func writeNewFileIntent(_ intent: NewFileIntent) throws(StoreError) -> @Sendable () -> Bool {
        let path = layout.newFileIntent
        let engine = layout.engine
        let bytes = intent.encoded()
        do throws(SystemError) {
            let isNew = !FileSystem.exists(path)
            let file = try FileDescriptor.open(path, .writeOnly, options: .create)
            do throws(SystemError) {
                try file.writeAll(bytes)
                try file.truncate(to: Int64(bytes.count))
            } catch {
                file.close()
                throw error
            }
            return {
                defer { file.close() }
                do {
                    try file.synchronize()
                    if isNew { try FileSystem.synchronizeDirectory(engine) }
                    return true
                } catch {
                    return false
                }
            }
        } catch {
            throw .io(error)
        }
    }

    /// Waits for the files a batch named early and empties the list (the batch is durable).
    func finishNewFileIntent(_ prepared: PreparedRecordFiles) {
        _ = prepared.queue.linkResults()
        clearNewFileIntent()
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
                    let document = try? JSONParser.parse(contents, options: options.recordFileParsing),
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

/// What the plan of a batch (``Store/startNewRecordFiles(_:canonicalForms:firstSequence:slots:plan:)``)
/// knows of one record.
struct PlannedRecord {
    /// The record's state in the index before the batch.
    var before: RecordState?
    /// What a put must hash to to change nothing, after the writes planned so far (see
    /// ``RecordState/liveContentHash``).
    var liveHash: SHA256Digest?
    /// When the batch gives the record a new file: the offset of the put it ends with, and
    /// the index of that put's file in the worker's queue.
    var newFile: (offset: Int, index: Int)?
}
