extension Store {
    /// Brings the index and record files in line with the journal when a store is opened.
    ///
    /// A valid image that matches the journal is loaded and only the entries after it are
    /// replayed (so opening a clean store reads no record files). A missing, damaged or foreign
    /// image makes a full rebuild from the journal.
    ///
    /// A record file the replay touches is rewritten only when it holds an older version Ferry
    /// itself wrote (a crash came between the journal append and the file rename); any other
    /// content is a hand edit, left for `status` and `commit`.
    func recover() throws(StoreError) {
        if let image = usableImage() {
            index = StoreIndex(image: image)
            imageSequence = image.header.head.sequence
            if let delta = usableDelta(for: image) {
                let header = delta.header
                index.records = RecordTable(base: image, delta: delta, totalCount: header.totalRecords ?? 0)
                index.knowledge = header.knowledge
                index.digests = header.digests
                index.headSequence = header.head.sequence
                index.headHash = header.head.hash
                index.latestModification = header.head.latestModification
                index.liveCounts = header.liveCounts
                index.conflicted = header.conflicted
                persistedHead = header.head.sequence
            } else {
                persistedHead = image.header.head.sequence
            }
            if index.headSequence < journal.headSequence { try replay(after: index.headSequence) }
        } else {
            try rebuildFromJournal(warn: journal.headSequence > 0 || FileSystem.exists(layout.index))
        }
        try applyBase()
        try settleNewFileIntent()
        clock = HybridLogicalClock(wallClock: options.clock, latest: index.latestModification)
    }

    /// The delta file, when it applies to `image` and its head is a prefix of the journal.
    private func usableDelta(for image: IndexFile) -> IndexFile? {
        guard let delta = try? IndexFile.open(layout.indexDelta, level: .delta),
            let base = delta.header.baseHead, base.sequence == image.header.head.sequence,
            base.hash == image.header.head.hash, delta.header.totalRecords != nil
        else { return nil }
        let head = delta.header.head
        guard head.sequence <= journal.headSequence else { return nil }
        if head.sequence == journal.headSequence { return head.hash == journal.headHash ? delta : nil }
        guard let entry = try? journal.entry(at: head.sequence), entry.hash == head.hash else { return nil }
        return delta.allRecordsDecode() ? delta : nil
    }

    /// Throws away the index and replays the whole journal, repairing record files.
    func rebuildFromJournal(warn: Bool) throws(StoreError) {
        if warn { options.warningHandler("warning: \(layout.root): rebuilding the index from the journal") }
        cancelIndexMerge()
        index = StoreIndex()
        imageSequence = 0
        try replay(after: 0)
        try applyBase()
        try writeIndexImage()
    }

    /// The image, when present, readable, and a prefix of this journal.
    private func usableImage() -> IndexFile? {
        guard let image = try? IndexFile.open(layout.index) else { return nil }
        let head = image.header.head
        guard head.sequence <= journal.headSequence else { return nil }
        // A delta on top whose head is the journal's vouches for the image without reading
        // the journal (the delta was written from exactly this image).
        if let delta = try? IndexFile.open(layout.indexDelta, level: .delta),
            let base = delta.header.baseHead, base.sequence == head.sequence, base.hash == head.hash,
            delta.header.head.sequence == journal.headSequence, delta.header.head.hash == journal.headHash
        {
            return image
        }
        if head.sequence == 0 { return head.hash == .zero && image.header.recordCount == 0 ? image : nil }
        if head.sequence == journal.headSequence { return head.hash == journal.headHash ? image : nil }
        guard let entry = try? journal.entry(at: head.sequence), entry.hash == head.hash else { return nil }
        return image
    }

    /// Throws when a image lookup found a damaged line, before anything is written.
    func checkIndexIntegrity() throws(StoreError) {
        if let damage = index.records.damage { throw .damagedIndex(reason: damage) }
    }

    /// Replays entries after `sequence` into the index, then repairs the files they touched.
    /// Used on open and when catching up with entries another process appended.
    func replay(after sequence: UInt64) throws(StoreError) {
        // For each touched record: the hashes of every file form Ferry may have written for it.
        var staleForms: [RecordKey: Set<SHA256Digest>] = [:]
        // Records the image has no file stamp for (another process wrote the file), with
        // their last sequence before the replay: any earlier form of theirs may be on disk.
        var unstamped: [RecordKey: UInt64] = [:]
        var touchedOrder: [RecordKey] = []
        do throws(JournalError) {
            var cursor = try journal.entries(after: sequence)
            var expected = sequence + 1
            while let entry = try cursor.next() {
                // A compacted journal's kept entries skip what was archived (see ``JournalStart``).
                guard entry.sequence == expected || (entry.sequence > expected && entry.sequence <= journal.firstLiveSequence) else {
                    throw JournalError.sequenceGap(
                        segment: "journal", line: Int(expected), expected: expected, found: entry.sequence)
                }
                expected = entry.sequence + 1
                let key = entry.change.key
                if staleForms[key] == nil {
                    touchedOrder.append(key)
                    var forms = Set<SHA256Digest>()
                    if let existing = index.records[key] {
                        if let stamp = existing.file { forms.insert(stamp.contentHash) } else { unstamped[key] = existing.lastSequence }
                    }
                    staleForms[key] = forms
                }
                if let document = entry.change.operation.document {
                    staleForms[key]?.insert(SHA256.hash(document.prettyBytes()))
                }
                _ = index.apply(entry)
            }
        } catch { throw .journal(error) }
        var conflictFolders: [String: [String]] = [:]
        for key in touchedOrder {
            guard let state = index.records[key] else { continue }
            try repairFile(
                key, state: state, staleForms: staleForms[key] ?? [], historyThrough: unstamped[key],
                conflictFolders: &conflictFolders)
        }
    }

    /// Makes one record's file agree with the journal unless it holds a hand edit.
    /// - Parameters:
    ///   - historyThrough: when Ferry had no stamp of the file, the record's last sequence
    ///     before the replay: a file holding any earlier version is stale too.
    ///   - conflictFolders: conflict folder listings, read once per replay.
    private func repairFile(
        _ key: RecordKey, state: RecordState, staleForms: Set<SHA256Digest>, historyThrough: UInt64?,
        conflictFolders: inout [String: [String]]
    ) throws(StoreError) {
        let path = layout.recordFile(key)
        index.records.setFile(nil, of: key)
        func isStale(_ hash: SHA256Digest) throws(StoreError) -> Bool {
            if staleForms.contains(hash) { return true }
            guard let historyThrough else { return false }
            return try earlierForms(of: key, through: historyThrough).contains(hash)
        }
        do {
            let bytes: [UInt8]? = FileSystem.exists(path) ? try FileSystem.readFile(path) : nil
            if state.isLive {
                let document = try self.document(of: state.winner, documents: [:])
                let expected = document.prettyBytes()
                let expectedHash = SHA256.hash(expected)
                let actual = bytes.map { SHA256.hash($0) }
                if actual == expectedHash {
                    if let status = try FileSystem.status(path) {
                        index.records.setFile(FileStamp(status, contentHash: expectedHash), of: key)
                    }
                } else if let actual, try !isStale(actual) {
                    // A hand edit: keep it.
                } else {
                    try writeRecordFile(key, path: path, document: document)
                }
            } else if let bytes, try isStale(SHA256.hash(bytes)) {
                try FileSystem.removeFile(path)
            }
            try repairConflictFiles(key, state: state, folders: &conflictFolders)
        } catch let error as SystemError {
            throw .io(error)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .coding("\(error)")
        }
    }

    /// The hashes of the record file forms of every put in a record's history up to
    /// `sequence`, walking its `pseq` chain back.
    private func earlierForms(of key: RecordKey, through sequence: UInt64) throws(StoreError) -> Set<SHA256Digest> {
        var forms = Set<SHA256Digest>()
        var sequence = sequence
        while sequence > 0 {
            let entry: JournalEntry
            do { entry = try journal.entry(at: sequence) } catch { throw .journal(error) }
            guard entry.change.key == key, entry.previousSequenceOfRecord < sequence else { break }
            if let document = entry.change.operation.document { forms.insert(SHA256.hash(document.prettyBytes())) }
            sequence = entry.previousSequenceOfRecord
        }
        return forms
    }

    /// Writes any missing conflict file of a record's losers, and removes the files of
    /// versions that no longer lose (a crash came before they were removed).
    private func repairConflictFiles(_ key: RecordKey, state: RecordState, folders: inout [String: [String]]) throws {
        let current = Set(
            state.losers.filter { !$0.isDelete }.map { FileSystem.lastComponent(of: layout.conflictFile(key, version: $0.identity)) })
        // Every conflict file of `key` is named `<last piece of its encoded id>@<origin>-<counter>.json`
        // in one folder; an encoded id never holds `@`.
        let folder = FileSystem.parentPath(of: layout.conflictFile(key, version: ChangeIdentity(origin: replicaID, counter: 1)))
        if folders[folder] == nil {
            folders[folder] = FileSystem.isDirectory(folder) ? try FileSystem.contents(ofDirectory: folder).map(\.name) : []
        }
        let prefix = FileSystem.lastComponent(of: RecordFileName.relativePath(for: key.id, suffix: "@"))
        for name in folders[folder] ?? [] where name.hasPrefix(prefix) && name.hasSuffix(".json")
            && !name.hasSuffix(Self.handMergeSuffix) && !current.contains(name)
        {
            try FileSystem.removeFile(folder + "/" + name)
        }
        for loser in state.losers where !loser.isDelete {
            let path = layout.conflictFile(key, version: loser.identity)
            if FileSystem.exists(path) { continue }
            let document = try self.document(of: loser, documents: [:])
            try FileSystem.createDirectories(FileSystem.parentPath(of: path))
            try FileSystem.writeFileAtomically(path, document.prettyBytes(), durable: false)
        }
    }
}
