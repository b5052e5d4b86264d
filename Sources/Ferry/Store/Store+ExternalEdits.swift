extension Store {
    /// Finds record files created, changed or deleted outside Ferry.
    ///
    /// A file whose size, modification time and inode match what Ferry wrote is not read; any
    /// other file is hashed, so a `touch` is not a change. A file modified within the file
    /// system's timestamp granularity of when Ferry last confirmed it is hashed too, so an edit
    /// that keeps the size and lands in the same tick is still caught.
    ///
    /// - Parameter progress: Called as the index's records are matched with their files.
    public func status(progress: WorkProgressHandler? = nil) throws(StoreError) -> StoreStatus {
        try withWriteLock { () throws(StoreError) -> StoreStatus in try scanForEdits(progress: progress) }
    }

    /// Journals every hand edit as an ordinary change from this replica, in one batch.
    /// Files that are not valid JSON objects are reported and left untouched; the other edits
    /// still commit. A file a person named (`Todo.json`) is renamed to its record's canonical
    /// name first (``StoreStatus/Edit/canonicalPath``).
    /// - Parameter progress: Called as the index's records are matched with their files.
    @discardableResult
    public func commit(progress: WorkProgressHandler? = nil) throws(StoreError) -> CommitReport {
        try withWriteLock { () throws(StoreError) -> CommitReport in
            let (status, remember) = try searchForEdits(progress: progress)
            // Files a person named take their records' canonical names first: should the
            // journaling fail, each is an uncommitted edit under its new name.
            try moveHandNamedFiles(status.edits)
            _ = try performLocalWrites(Self.writes(journaling: status.edits), keepingHandEdits: false)
            // Journaled: the next search need not look at them again, unless touched since.
            remember(StoreStatus(edits: [], problems: status.problems))
            return CommitReport(committed: status.edits, problems: status.problems)
        }
    }

    /// Journals the hand edits of the record files of `keys` (and only those) as changes from
    /// this replica, before something replaces those files; caller holds the lock.
    ///
    /// This is what keeps a sync from ever overwriting an edit it has not journaled: a received
    /// change to such a record then meets the edit as a concurrent version (a conflict, both
    /// kept), never as a file to replace. Costs one `stat` per record whose stamp matches.
    /// - Throws: ``StoreError/unjournaledEdit(path:reason:)`` for an edited file that cannot be
    ///   journaled (not JSON, not an object): replacing it would lose it.
    /// - Returns: the edits journaled.
    func commitHandEdits(of keys: some Sequence<RecordKey>) throws(StoreError) -> [StoreStatus.Edit] {
        let status = try handEditStatus(of: keys)
        if let problem = status.problems.first {
            throw unjournaledEdit(problem)
        }
        let writes = Self.writes(journaling: status.edits)
        if !writes.isEmpty { _ = try performLocalWrites(writes, keepingHandEdits: false) }
        return status.edits
    }

    /// The hand edits (deletions too) and unreadable files among the record files of `keys`,
    /// and only those, sorted by path; the edits of records in conflict held as problems
    /// (``holdEditsOfConflicts(_:)``). One `stat` per record, and a read of each file whose
    /// stamp does not vouch for it; caller holds the lock.
    func handEditStatus(of keys: some Sequence<RecordKey>) throws(StoreError) -> StoreStatus {
        var status = StoreStatus()
        let now = FileSystem.currentTimeNanoseconds()
        try refuseLinks(toFilesOf: keys)
        for key in keys {
            let state = index.records[key]
            let path = layout.recordFile(key)
            let fileStatus: FileStatus?
            do { fileStatus = try FileSystem.status(path) } catch { throw .io(error) }
            if fileStatus?.kind == .symbolicLink { throw .linkInRecords(path: path) }
            guard let fileStatus else {
                if let state, state.isLive {
                    status.edits.append(.init(kind: .deleted, key: key, path: layout.relativeRecordPath(key), document: nil))
                }
                continue
            }
            examine(key, state: state, path: path, fileStatus: fileStatus, into: &status, now: now)
        }
        status.edits.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        holdEditsOfConflicts(&status)
        status.problems.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return status
    }

    /// Journals the hand edits that a batch of local writes to `keys` would overwrite, before
    /// it does; caller holds the lock.
    ///
    /// A `put`, a `delete`, an import or a resolution replaces or removes record files, and a
    /// file edited by hand since Ferry last wrote it (or made by hand for a record the store
    /// does not hold) would go with it. Its content is journaled first, as `commit` would, so
    /// the batch then writes over a journaled version: the edit stays in the record's history
    /// (`ferry show --history`). A file removed by hand is not journaled: nothing of it can be
    /// lost, and the batch's own write supersedes it.
    ///
    /// Costs one `stat` per record, on every core, and a read of each file whose stamp does not
    /// vouch for it.
    /// - Throws: ``StoreError/unjournaledEdit(path:reason:)`` for an edited file that cannot be
    ///   journaled (not JSON, not an object), before anything is written.
    /// - Returns: the edits journaled.
    /// - Parameter states: the records' states, by position in `keys`, when the caller looked
    ///   them up already (see ``handEdits(overwrittenBy:states:)``).
    /// - Returns: the edits journaled, and the positions in `keys` of the records whose state
    ///   this changed (edits journaled, stamps confirmed): a caller's states of those are stale.
    /// - Parameter resolving: the batch resolves the conflicts of its records, so their hand
    ///   edits are journaled too (the resolution then descends from them).
    func journalHandEdits(
        overwrittenBy keys: [RecordKey], states: [RecordState?]? = nil, resolving: Bool = false
    ) throws(StoreError) -> (edits: [StoreStatus.Edit], changed: [Int]) {
        var found = try handEdits(overwrittenBy: keys, states: states)
        if !resolving { holdEditsOfConflicts(&found.status) }
        if let problem = found.status.problems.first {
            throw unjournaledEdit(problem)
        }
        let writes = Self.writes(journaling: found.status.edits)
        if !writes.isEmpty { _ = try performLocalWrites(writes, keepingHandEdits: false) }
        return (found.status.edits, found.examined)
    }

    /// The hand edits (created and modified files, not removed ones) and unreadable files among
    /// the record files of `keys`, found without writing anything but confirmed stamps (see
    /// ``journalHandEdits(overwrittenBy:states:)``); a dry run reports them.
    /// - Parameter states: the records' states by position in `keys`, if the caller has them;
    ///   otherwise each record whose file exists is looked up.
    /// - Returns: what was found, and the positions in `keys` of the files read (their stamps
    ///   did not vouch for them).
    func handEdits(overwrittenBy keys: [RecordKey], states: [RecordState?]? = nil) throws(StoreError) -> (status: StoreStatus, examined: [Int]) {
        var status = StoreStatus()
        var examined: [Int] = []
        guard !keys.isEmpty else { return (status, examined) }
        try refuseLinks(toFilesOf: keys)
        let layout = self.layout
        let found = ParallelWork.map(count: keys.count, minimumChunk: 1024) { number in
            Result { () throws(SystemError) in try FileSystem.status(layout.recordFile(keys[number])) }
        }
        let now = FileSystem.currentTimeNanoseconds()
        for (number, key) in keys.enumerated() {
            let fileStatus: FileStatus
            switch found[number] {
            case .success(let value?) where value.kind == .symbolicLink: throw .linkInRecords(path: layout.recordFile(key))
            case .success(let value?): fileStatus = value
            case .success(nil): continue
            case .failure(let error): throw .io(error)
            }
            let state = states.map { $0[number] } ?? index.records.state(of: key)
            if examine(key, state: state, path: layout.recordFile(key), fileStatus: fileStatus, into: &status, now: now) {
                examined.append(number)
            }
        }
        status.edits.removeAll { $0.kind == .deleted }
        return (status, examined)
    }

    /// Examines the file of `key` at `path` (see ``examine(_:state:file:into:now:confirmInPlace:)``)
    /// unless its stamp vouches for it; returns whether it did.
    @discardableResult
    private func examine(_ key: RecordKey, state: RecordState?, path: String, fileStatus: FileStatus, into status: inout StoreStatus, now: Int64) -> Bool {
        if let state, state.isLive, let stamp = state.file, stamp.matches(fileStatus) { return false }
        let relative = String(layout.relativeRecordPath(key).dropFirst("records/\(key.entity.rawValue)/".count))
        let file = RecordFileListing.File(
            entity: key.entity, directory: FileSystem.parentPath(of: path), name: FileSystem.lastComponent(of: path),
            relativeName: relative, status: fileStatus)
        examine(key, state: state, file: file, into: &status, now: now)
        return true
    }

    /// Refuses before anything is read or written when `records/` or the entity folder of one
    /// of `keys` is a symbolic link: a path through it leads to files Ferry does not own, so a
    /// write or a delete would land there (one `lstat` per entity).
    /// - Throws: ``StoreError/linkInRecords(path:)``.
    func refuseLinks(toFilesOf keys: some Sequence<RecordKey>) throws(StoreError) {
        var checked = Set<EntityName>()
        for key in keys where checked.insert(key.entity).inserted {
            for path in checked.count == 1 ? [layout.records, layout.records + "/" + key.entity.rawValue] : [layout.records + "/" + key.entity.rawValue] {
                let status: FileStatus?
                do { status = try FileSystem.status(path) } catch { throw .io(error) }
                if status?.kind == .symbolicLink { throw .linkInRecords(path: path) }
            }
        }
    }

    /// The error for a hand-edited record file that cannot be journaled, so nothing may
    /// replace it.
    func unjournaledEdit(_ problem: StoreStatus.Problem) -> StoreError {
        .unjournaledEdit(path: "\(path)/\(problem.path)", reason: problem.reason)
    }

    /// The writes that journal `edits` as changes from this replica.
    static func writes(journaling edits: [StoreStatus.Edit]) -> [RecordWrite] {
        edits.compactMap { edit in
            switch edit.kind {
            case .created, .modified: return edit.document.map { .put(edit.key, $0) }
            case .deleted: return .delete(edit.key)
            }
        }
    }

    /// The search behind `status` and `commit`; caller holds the lock.
    ///
    /// With a ``HandEditMonitor`` running for the store that can vouch for the rest, only the
    /// record files it saw touched since the last search (and those that search left
    /// unsettled) are examined, each as a scan would; otherwise the whole tree is scanned
    /// (``HandEditScan``). Either way the result is remembered for the next search.
    func scanForEdits(progress: WorkProgressHandler? = nil) throws(StoreError) -> StoreStatus {
        let (status, remember) = try searchForEdits(progress: progress)
        remember(status)
        return status
    }

    /// ``scanForEdits(progress:)``, and what remembers, for the next search, what was still
    /// unsettled after it (the status found, or less once its edits are journaled).
    private func searchForEdits(progress: WorkProgressHandler?) throws(StoreError) -> (StoreStatus, remember: (StoreStatus) -> Void) {
        let monitor = HandEditMonitorQuery(layout: layout)
        var status: StoreStatus
        let point: HandEditMonitorQuery.Point?
        switch monitor.ask(journal: journalHead) {
        case .records(let keys, let at):
            status = try handEditStatus(of: keys)
            status.search = .watcher(pid: at.pid, examined: keys.count)
            point = at
        case .unknown(let reason, let at):
            status = try HandEditScan(store: self, progress: progress).run()
            holdEditsOfConflicts(&status)
            status.search = .scan(reason: reason)
            point = at
        }
        return (status, { unsettled in if let point { monitor.remember(unsettled, at: point, journal: self.journalHead) } })
    }

    /// The journal's head as a ``HandEditBaseline`` records it.
    private var journalHead: HandEditBaseline.Journal {
        HandEditBaseline.Journal(sequence: index.headSequence, hash: index.headHash.hex)
    }

    /// Moves the hand edits of records in conflict from `status`'s edits to its problems:
    /// journaling one would end the conflict with no one choosing (the edit descends from
    /// every version), so it waits, reported, until the conflict is resolved, and `ferry
    /// resolve --file` can take it.
    func holdEditsOfConflicts(_ status: inout StoreStatus) {
        guard !index.conflicted.isEmpty else { return }
        status.edits.removeAll { edit in
            guard let state = index.records[edit.key], state.isConflicted else { return false }
            let file = edit.kind == .deleted ? "" : " (ferry resolve \(path) \(edit.key.entity.rawValue) \(edit.key.id.rawValue) --file \(path)/\(edit.path) takes this edit)"
            status.problems.append(.init(path: edit.path, reason: "\(edit.key) is in conflict: the edit is not journaled until it is resolved\(file)"))
            return true
        }
        status.problems.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    /// The seeded hash a scan keeps of a claimed file's sort key (`<entity>\t<encoded id>`).
    static func claimHash(_ sortKey: ArraySlice<UInt8>) -> Int {
        var hasher = Hasher()
        sortKey.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    /// Lists an entity folder (and the `~` folders of long ids inside it), streamed, and adds
    /// to `files` each regular file whose sort key is not in `claimed` (sorted).
    func collectUnclaimedFiles(
        entity: EntityName, path: String, relativePrefix: String, encodedPrefix: String?, claimed: [Int], ignoring ignoreRules: IgnoreRules,
        into files: inout [RecordFileListing.File], status: inout StoreStatus
    ) throws(StoreError) {
        var folders: [String] = []
        var unclaimed: [String] = []
        var link: String?
        do {
            try FileSystem.forEachEntry(ofDirectory: path) { entry in
                if entry.name.hasPrefix(".tmp-") { return }
                let relativeName = relativePrefix + entry.name
                // Regular files are asked once they prove unclaimed (see ``HandEditScan``).
                if entry.kind != .regular, ignoreRules.ignores("records/\(entity.rawValue)/\(relativeName)", isFolder: entry.kind == .directory) {
                    return
                }
                if entry.kind == .directory {
                    if entry.name.hasSuffix("~") {
                        folders.append(entry.name)
                    } else {
                        status.problems.append(.init(path: "records/\(entity.rawValue)/\(relativeName)", reason: "unexpected folder (an entity folder holds record files only): move it out of records/, or list it in .ferryignore"))
                    }
                    return
                }
                if entry.kind == .symbolicLink {
                    link = link ?? "records/\(entity.rawValue)/\(relativeName)"
                    return
                }
                guard entry.kind == .regular else {
                    status.problems.append(.init(path: "records/\(entity.rawValue)/\(relativeName)", reason: "not a regular file: move it out of records/, or list it in .ferryignore"))
                    return
                }
                // Only a path shaped as Ferry writes it can be claimed: whole pieces in the
                // folders, then the last piece of the encoded id (1 to 240 bytes) and `.json`.
                let name = entry.name.utf8
                let suffix = RecordFileName.fileExtension.utf8
                if let encodedPrefix, entry.name.hasSuffix(RecordFileName.fileExtension), name.count > suffix.count,
                    name.count - suffix.count <= RecordFileName.pieceLength
                {
                    var key: [UInt8] = []
                    key.reserveCapacity(entity.rawValue.utf8.count + 1 + encodedPrefix.utf8.count + name.count)
                    key.append(contentsOf: entity.rawValue.utf8)
                    key.append(9)
                    key.append(contentsOf: encodedPrefix.utf8)
                    key.append(contentsOf: name.prefix(name.count - suffix.count))
                    let hash = Self.claimHash(key[...])
                    var low = 0
                    var high = claimed.count
                    while low < high {
                        let middle = (low + high) / 2
                        if claimed[middle] < hash { low = middle + 1 } else { high = middle }
                    }
                    if low < claimed.count && claimed[low] == hash { return }
                }
                unclaimed.append(entry.name)
            }
        } catch { throw .io(error) }
        if let link { throw .linkInRecords(path: "\(self.path)/\(link)") }
        for name in unclaimed {
            let filePath = path + "/" + name
            let fileStatus: FileStatus?
            do { fileStatus = try FileSystem.status(filePath) } catch { throw .io(error) }
            guard let fileStatus else { continue }
            files.append(
                RecordFileListing.File(entity: entity, directory: path, name: name, relativeName: relativePrefix + name, status: fileStatus))
        }
        for folder in folders {
            try collectUnclaimedFiles(
                entity: entity, path: path + "/" + folder, relativePrefix: relativePrefix + folder + "/",
                encodedPrefix: folder.utf8.count == RecordFileName.pieceLength + 1 ? encodedPrefix.map { $0 + folder.dropLast() } : nil,
                claimed: claimed, ignoring: ignoreRules, into: &files, status: &status)
        }
    }

    /// Reads a file whose stamp did not match and decides what it is. A file that shows the
    /// record as the index has it is confirmed: its new stamp goes into the record's state, or,
    /// with `confirmInPlace` false, is returned for the caller to keep.
    @discardableResult
    func examine(
        _ key: RecordKey, state: RecordState?, file: RecordFileListing.File, into status: inout StoreStatus, now: Int64,
        confirmInPlace: Bool = true
    ) -> FileStamp? {
        let displayPath = file.displayPath
        let fileStatus = file.status
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(file.path, limit: options.maximumDocumentBytes * 4) } catch {
            status.problems.append(.init(path: displayPath, reason: error.message))
            return nil
        }
        let fileHash = SHA256.hash(bytes)
        func confirm() -> FileStamp? {
            guard var confirmed = state else { return nil }
            let stamp = FileStamp(fileStatus, contentHash: fileHash, at: now)
            guard confirmInPlace else { return stamp }
            confirmed.file = stamp
            index.records.replaceExisting(key, with: confirmed)
            stampsChanged = true
            return stamp
        }
        if let state, state.isLive, state.file?.contentHash == fileHash {
            return confirm()
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(
                bytes, options: .init(maximumDepth: options.maximumDepth, maximumByteCount: options.maximumDocumentBytes))
        } catch {
            status.problems.append(.init(path: displayPath, reason: "invalid JSON at line \(error.line), column \(error.column): \(error.reason)"))
            return nil
        }
        guard case .object = document else {
            status.problems.append(.init(path: displayPath, reason: "a record must be a JSON object, not \(document.kindName)"))
            return nil
        }
        if let state, state.isLive {
            if SHA256.hash(document.canonicalBytes()) == state.winner.contentHash {
                return confirm()  // the winner's content, perhaps reformatted: not an edit (even when conflicted)
            }
            status.edits.append(.init(kind: .modified, key: key, path: displayPath, document: document))
        } else {
            status.edits.append(.init(kind: .created, key: key, path: displayPath, document: document))
        }
        return nil
    }
}
