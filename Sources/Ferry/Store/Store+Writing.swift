extension Store {
    /// Stores a document, creating or replacing the record, and returns its id. Durable: the
    /// journal entry is on disk (fsync) before this returns. Putting the document a record
    /// already holds writes nothing.
    ///
    /// ```swift
    /// let id = try store.put(["name": "Ada"], entity: EntityName("User"))   // new UUID id
    /// try store.put(["name": "Ada L."], entity: EntityName("User"), id: id)
    /// ```
    /// - Parameter id: the record's id; a new UUID when `nil`.
    /// - Throws: ``StoreError/invalid(_:)`` for a document that is not an object, too large or
    ///   too deep; I/O and lock errors.
    @discardableResult
    public func put(_ document: JSONValue, entity: EntityName, id: RecordID? = nil) throws(StoreError) -> RecordID {
        let id = id ?? RecordID.generate()
        try write([.put(RecordKey(entity: entity, id: id), document)])
        return id
    }

    /// Deletes a record, leaving a tombstone that syncs like any change.
    /// - Returns: what the write did (a hand edit of the record's file is journaled first).
    /// - Throws: ``StoreError/recordNotFound(_:)`` when there is no live record with this id.
    @discardableResult
    public func delete(entity: EntityName, id: RecordID) throws(StoreError) -> WriteResult {
        try write([.delete(RecordKey(entity: entity, id: id))])
    }

    /// Applies a batch of writes as one journal append with one fsync: all or nothing.
    ///
    /// Writes apply in order, so a batch may put and then delete the same record. A record
    /// file the batch replaces or removes that was edited by hand is journaled first, as
    /// ``commit(progress:)`` would (``WriteResult/journaledEdits``): no write loses an edit.
    /// - Throws: the first invalid write's error, before anything is written.
    @discardableResult
    public func write(_ writes: [RecordWrite]) throws(StoreError) -> WriteResult {
        try withWriteLock { () throws(StoreError) -> WriteResult in
            try refuseWritesToConflicts(writes)
            return try performLocalWrites(writes)
        }
    }

    /// Refuses a batch that writes a record in conflict: a put or a delete descends from every
    /// current version, so it would end the conflict with no one choosing (``resolve(_:with:)``
    /// is the way to end one).
    /// - Throws: ``StoreError/conflictUnresolved(_:path:)``, before anything is written.
    func refuseWritesToConflicts(_ writes: [RecordWrite]) throws(StoreError) {
        guard !index.conflicted.isEmpty else { return }
        for write in writes where index.conflicted.contains(write.key) {
            if let state = index.records[write.key], state.isConflicted { throw .conflictUnresolved(write.key, path: path) }
        }
    }

    /// Checks a document and returns its canonical bytes.
    func validatedCanonicalBytes(_ document: JSONValue) throws(StoreError) -> [UInt8] {
        try Store.validatedCanonicalBytes(document, options: options)
    }

    /// Checks a document against `options`' limits and returns its canonical bytes.
    static func validatedCanonicalBytes(_ document: JSONValue, options: StoreOptions) throws(StoreError) -> [UInt8] {
        guard case .object = document else { throw .invalid(.notAnObject(kind: document.kindName)) }
        guard document.nestingDepth(limit: options.maximumDepth) <= options.maximumDepth else {
            throw .invalid(.tooDeep(limit: options.maximumDepth))
        }
        let bytes = document.canonicalBytes()
        guard bytes.count <= options.maximumDocumentBytes else {
            throw .invalid(.documentTooLarge(byteCount: bytes.count, limit: options.maximumDocumentBytes))
        }
        return bytes
    }

    /// Local writes under the lock: builds the changes, appends them, updates index and files.
    /// - Parameter keepingHandEdits: first journal the hand edits of the record files the
    ///   batch writes (see ``journalHandEdits(overwrittenBy:)``); `false` only for a batch that
    ///   is itself the journaling of hand edits.
    /// - Parameter resolving: the batch resolves its records' conflicts (see
    ///   ``journalHandEdits(overwrittenBy:states:resolving:)``).
    func performLocalWrites(_ writes: [RecordWrite], keepingHandEdits: Bool = true, resolving: Bool = false) throws(StoreError) -> WriteResult {
        struct Pending {
            var lastSequence: UInt64
            var vector: VersionVector
            var liveHash: SHA256Digest?
            /// The record's state in the index before the batch.
            var before: RecordState?
        }
        // Per-record state by slot (see ``BatchSlots``).
        let slots = BatchSlots(writes)
        // Each record's state before the batch, looked up once (a search of the image).
        var plan = [PlannedRecord?](repeating: nil, count: writes.count >= Store.fileQueueThreshold ? slots.count : 0)
        // Each document's checks, canonical bytes and hash depend on nothing else: made first,
        // on every core. Errors are thrown below, in the order of the writes.
        let options = self.options
        let canonicalForms = ParallelWork.map(count: writes.count, minimumChunk: 256) { offset -> Result<(bytes: [UInt8], hash: SHA256Digest), StoreError>? in
            guard case .put(_, let document) = writes[offset] else { return nil }
            return Result { () throws(StoreError) in
                let bytes = try Store.validatedCanonicalBytes(document, options: options)
                return (bytes, SHA256.hash(bytes))
            }
        }
        var journaledEdits: [StoreStatus.Edit] = []
        if keepingHandEdits {
            // An invalid document stops the batch before any edit is journaled.
            for case .failure(let error)? in canonicalForms { throw error }
            // The batch's records, once each: a slot is numbered where its record first appears.
            var keys: [RecordKey] = []
            keys.reserveCapacity(slots.count)
            for offset in writes.indices where slots.ofWrite[offset] == keys.count { keys.append(writes[offset].key) }
            // A large batch plans with the states the check looks up, but for those it changed.
            let states = plan.isEmpty ? nil : keys.map { index.records.state(of: $0) }
            let checked = try journalHandEdits(overwrittenBy: keys, states: states, resolving: resolving)
            journaledEdits = checked.edits
            if let states {
                for slot in states.indices { plan[slot] = PlannedRecord(before: states[slot], liveHash: states[slot]?.liveContentHash) }
                for slot in checked.changed { plan[slot] = nil }
            }
        }
        var overlay = [Pending?](repeating: nil, count: slots.count)
        var slotOfEntry: [Int] = []
        slotOfEntry.reserveCapacity(writes.count)
        var pending: [Journal.Pending] = []
        var hashes: [SHA256Digest] = []
        var documents: [UInt64: JSONValue] = [:]
        documents.reserveCapacity(writes.count)
        var unchanged = 0
        var counter = index.knowledge[replicaID]
        var parent = index.digests[replicaID] ?? .zero
        // The batch's last change is signed, and every `sealInterval`th of a long one, so a
        // receiver checks one signature a run (see ``ChangeSeal``).
        let signingKey = options.signsWork ? try self.signingKey() : nil
        var bytesSinceSeal = 0
        let head = index.headSequence
        pending.reserveCapacity(writes.count)
        // New record files take longest: once the batch is large enough, a worker makes and
        // names them while this thread builds and writes the journal entries.
        var prepared: PreparedRecordFiles?
        defer { prepared?.queue.finish() }
        if writes.count >= Store.fileQueueThreshold {
            prepared = try startNewRecordFiles(writes, canonicalForms: canonicalForms, firstSequence: head + 1, slots: slots, plan: &plan)
        }
        // The plan foresaw every error below; should one still happen, nothing named stays.
        var journaling = ProgressCounter("journaling", total: writes.count, handler: writeProgress)
        do throws(StoreError) {
            for offset in writes.indices {
                journaling.advance()
                let key = writes[offset].key
                let slot = slots.ofWrite[offset]
                var current = overlay[slot]
                if current == nil {
                    let state: RecordState?
                    if !plan.isEmpty, let planned = plan[slot] { state = planned.before } else { state = index.records[key] }
                    current = state.map { Pending(lastSequence: $0.lastSequence, vector: $0.mergedVersion, liveHash: $0.liveContentHash, before: $0) }
                }
                let operation: Change.Operation
                let hash: SHA256Digest
                var canonical: [UInt8]?
                switch writes[offset] {
                case .put(_, let document):
                    if let form = canonicalForms[offset] {
                        (canonical, hash) = try form.get()
                    } else {
                        let bytes = try validatedCanonicalBytes(document)
                        (canonical, hash) = (bytes, SHA256.hash(bytes))
                    }
                    if let live = current?.liveHash, live == hash {
                        unchanged += 1
                        continue
                    }
                    operation = .put(document)
                case .delete:
                    guard current?.liveHash != nil else { throw .recordNotFound(key) }
                    hash = .zero
                    operation = .delete
                }
                // A document that would carry the run past `sealBytes` starts a run of its own:
                // the change before it is signed (a signature lies outside the digest, so it
                // can be added once the change is made), and a push cut to a body limit can
                // always end signed, whatever the sizes.
                let size = canonical?.count ?? 0
                if let signingKey, bytesSinceSeal > 0, bytesSinceSeal + size > Store.sealBytes, let previous = pending.indices.last,
                    var previousChain = pending[previous].change.chain, previousChain.seal == nil
                {
                    previousChain.seal = ChangeSeal(signing: previousChain.digest, with: signingKey)
                    pending[previous].change.chain = previousChain
                    bytesSinceSeal = 0
                }
                counter += 1
                var vector = current?.vector ?? VersionVector()
                vector[replicaID] = counter
                var change = Change(
                    origin: replicaID, counter: counter, timestamp: clock.tick(), key: key, operation: operation,
                    version: vector)
                var chain = ChangeChain(change, parent: parent, canonicalDocument: canonical)
                bytesSinceSeal += size
                if let signingKey, counter % Store.sealInterval == 0 || bytesSinceSeal >= Store.sealBytes {
                    chain.seal = ChangeSeal(signing: chain.digest, with: signingKey)
                    bytesSinceSeal = 0
                }
                change.chain = chain
                parent = chain.digest
                pending.append(
                    Journal.Pending(change: change, previousSequenceOfRecord: current?.lastSequence ?? 0, canonicalDocument: canonical))
                hashes.append(hash)
                slotOfEntry.append(slot)
                let sequence = head + UInt64(pending.count)
                if let document = operation.document { documents[sequence] = document }
                overlay[slot] = Pending(
                    lastSequence: sequence, vector: vector, liveHash: operation.document == nil ? nil : hash, before: current?.before)
            }
            if let signingKey, let last = pending.indices.last, var chain = pending[last].change.chain, chain.seal == nil {
                chain.seal = ChangeSeal(signing: chain.digest, with: signingKey)
                pending[last].change.chain = chain
            }
            try checkIndexIntegrity()
        } catch {
            if let prepared { undoEarlyNames(prepared) }
            throw error
        }
        journaling.finish()
        assert(prepared == nil || prepared?.entryCount == pending.count, "the plan of a batch's new files counted its entries wrong")
        let seen = overlay
        let entries: [JournalEntry]
        do {
            entries = try appendAndApply(
                pending, contentHashes: hashes, documents: documents,
                known: KnownRecords(slotOfEntry: slotOfEntry, slotCount: slots.count) { slot in seen[slot].map(\.before) },
                prepared: prepared)
        } catch {
            // Appended, but a record file could not be written (no space left, say): the
            // entries are taken back, so the batch either lands whole or leaves no trace.
            if journal.headSequence != head {
                let written = pending.enumerated().compactMap { offset, item in
                    documents[head + UInt64(offset) + 1].map { (item.change.key, $0) }
                }
                try takeBack(after: head, written: written)
            }
            // The files named early must go.
            if let prepared { undoEarlyNames(prepared) }
            throw error
        }
        if let prepared { finishNewFileIntent(prepared) }
        return WriteResult(entries: entries, unchanged: unchanged, journaledEdits: journaledEdits)
    }

    /// Appends entries durably, applies them to the index and brings the touched record files
    /// in line. Used by local writes and by sync.
    /// - Parameters:
    ///   - contentHashes: each entry's content hash when known (saves hashing twice).
    ///   - documents: documents by sequence, so files need not be read back from the journal.
    ///   - known: the batch's records as the caller numbered them, and what it looked up.
    ///   - prepared: new record files the caller started making (see ``writeRecordFiles(_:prepared:)``).
    func appendAndApply(
        _ pending: [Journal.Pending], contentHashes: [SHA256Digest]? = nil, documents: [UInt64: JSONValue],
        known: KnownRecords? = nil, prepared: PreparedRecordFiles? = nil
    ) throws(StoreError) -> [JournalEntry] {
        if pending.isEmpty { return [] }
        let entries: [JournalEntry]
        let appending = ProgressCounter("appending to the journal", total: pending.count, handler: writeProgress)
        do { entries = try journal.append(pending) } catch { throw .journal(error) }
        appending.finish()
        index.records.reserveCapacity(adding: pending.count)
        // Each record's state before and after the batch, by slot (see ``BatchSlots``), and
        // the records in the order the batch first touched them.
        let slots: (ofEntry: [Int], count: Int) = known.map { ($0.slotOfEntry, $0.slotCount) } ?? {
            let numbered = BatchSlots(count: entries.count) { entries[$0].change.key }
            return (numbered.ofWrite, numbered.count)
        }()
        var beforeBySlot = [RecordState?](repeating: nil, count: slots.count)
        var afterBySlot = [RecordState?](repeating: nil, count: slots.count)
        var order: [(key: RecordKey, slot: Int)] = []
        order.reserveCapacity(slots.count)
        var indexing = ProgressCounter("index", total: entries.count, handler: writeProgress)
        for (offset, entry) in entries.enumerated() {
            indexing.advance()
            let slot = slots.ofEntry[offset]
            let isFirst = afterBySlot[slot] == nil
            let application = index.apply(entry, contentHash: contentHashes?[offset], before: isFirst ? known?.before(slot) : nil)
            if isFirst {
                beforeBySlot[slot] = application.before
                order.append((entry.change.key, slot))
            }
            afterBySlot[slot] = application.after
            clock.observe(entry.change.timestamp)
        }
        // Plain file writes (a live record with a new winner, no conflict files) are gathered
        // and written together (new files with a worker thread's help); the rest one by one.
        indexing.finish()
        var fileWrites: [RecordFileWrite] = []
        var planning = ProgressCounter("record files", total: order.count, handler: writeProgress)
        for (key, slot) in order {
            planning.advance()
            guard let after = afterBySlot[slot] else { continue }
            let before = beforeBySlot[slot]
            if let write = try plainFileWrite(key, before: before, after: after, documents: documents, prepared: prepared?.file(ofSlot: slot)) {
                fileWrites.append(write)
            } else {
                try materialize(key, before: before, after: after, documents: documents)
            }
        }
        try writeRecordFiles(fileWrites, prepared: prepared)
        planning.finish()
        let merging = ProgressCounter("index file", total: nil, handler: writeProgress)
        try mergeIndexIfDue()
        merging.finish()
        return entries
    }

    /// A batch's records as the caller of ``appendAndApply(_:contentHashes:documents:known:prepared:)``
    /// numbered them (see ``BatchSlots``), with what it looked up of them.
    struct KnownRecords {
        /// The slot of the record of each pending entry.
        var slotOfEntry: [Int]
        /// The number of slots.
        var slotCount: Int
        /// A record's state before the batch, by slot, when the caller looked it up.
        var before: (Int) -> RecordState??
    }

    /// Makes the record file (and conflict files) of `key` show `after`.
    func materialize(_ key: RecordKey, before: RecordState?, after: RecordState, documents: [UInt64: JSONValue]) throws(StoreError) {
        let path = layout.recordFile(key)
        do {
            if after.isLive {
                if let before, before.isLive, before.winner.identity == after.winner.identity, before.file != nil {
                    // The winner did not change; the file is already right.
                } else {
                    let document = try self.document(of: after.winner, documents: documents)
                    try writeRecordFile(key, path: path, document: document, isNew: before?.file == nil)
                }
            } else if before?.isLive ?? false || FileSystem.exists(path) {
                try FileSystem.removeFile(path)
                index.records.setFile(nil, of: key)
            }
            let oldLosers = before?.losers ?? []
            let newLosers = after.losers
            for loser in oldLosers where !newLosers.contains(where: { $0.identity == loser.identity }) {
                try removeConflictFile(key, loser: loser, documents: documents)
            }
            for loser in newLosers where !loser.isDelete && !oldLosers.contains(where: { $0.identity == loser.identity }) {
                let document = try self.document(of: loser, documents: documents)
                let conflictPath = layout.conflictFile(key, version: loser.identity)
                try FileSystem.createDirectories(FileSystem.parentPath(of: conflictPath))
                try FileSystem.writeFileAtomically(conflictPath, document.prettyBytes(), durable: false)
            }
        } catch let error as SystemError {
            throw .io(error)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .coding("\(error)")
        }
    }

    /// Writes a live record's file atomically and remembers its stamp.
    /// - Parameter isNew: Ferry wrote no file for this record yet, so the file is most likely
    ///   absent and is created without a temporary name, and never over a file that is there
    ///   with other content: the batch's writer checked for hand edits before it began (see
    ///   ``journalHandEdits(overwrittenBy:)``), so such a file was made since. It is kept and
    ///   the record left without a stamp, so that the next status, commit or sync finds it as
    ///   the hand edit it is. A file that holds this very document (the hand-made file a commit
    ///   journals, say) is replaced with Ferry's form of it.
    func writeRecordFile(_ key: RecordKey, path: String, document: JSONValue, isNew: Bool = false) throws(SystemError) {
        let bytes = document.prettyBytes()
        func write() throws(SystemError) -> FileStatus? {
            if !isNew { return try fileReplacer.replace(path, with: bytes) }
            if let status = try FileSystem.createFileIfAbsent(path, bytes) { return status }
            return fileHolds(document, path) ? try fileReplacer.replace(path, with: bytes) : nil
        }
        let status: FileStatus?
        do {
            status = try write()
        } catch where error.isNotFound {
            try FileSystem.createDirectories(FileSystem.parentPath(of: path))
            status = try write()
        }
        index.records.setFile(status.map { FileStamp($0, contentHash: SHA256.hash(bytes)) }, of: key)
    }

    /// Whether the file at `path` is a JSON object with the content of `document` (in any
    /// layout); `false` for anything else, or a file that cannot be read.
    func fileHolds(_ document: JSONValue, _ path: String) -> Bool {
        guard let bytes = try? FileSystem.readFile(path, limit: options.maximumDocumentBytes * 4),
            let found = try? JSONParser.parse(bytes, options: .init(maximumDepth: options.maximumDepth, maximumByteCount: options.maximumDocumentBytes))
        else { return false }
        return found.canonicalBytes() == document.canonicalBytes()
    }

    /// The document of a version: from `documents` when at hand, else from the journal.
    func document(of version: RecordVersion, documents: [UInt64: JSONValue]) throws(StoreError) -> JSONValue {
        if let document = documents[version.sequence] { return document }
        let entry: JournalEntry
        do { entry = try journal.entry(at: version.sequence) } catch { throw .journal(error) }
        guard let document = entry.change.operation.document else {
            throw .journal(.malformedEntry(segment: "journal", line: Int(version.sequence), reason: "expected a put"))
        }
        return document
    }
}

extension JSONValue {
    /// The nesting depth (a scalar is 0), counting no further than `limit + 1`.
    func nestingDepth(limit: Int) -> Int {
        if limit < 0 { return 1 }
        switch self {
        case .array(let elements):
            return 1 + (elements.lazy.map { $0.nestingDepth(limit: limit - 1) }.max() ?? 0)
        case .object(let members):
            return 1 + (members.values.lazy.map { $0.nestingDepth(limit: limit - 1) }.max() ?? 0)
        default:
            return 0
        }
    }
}
