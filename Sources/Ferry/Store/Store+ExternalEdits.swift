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
    /// still commit.
    /// - Parameter progress: Called as the index's records are matched with their files.
    @discardableResult
    public func commit(progress: WorkProgressHandler? = nil) throws(StoreError) -> CommitReport {
        try withWriteLock { () throws(StoreError) -> CommitReport in
            let status = try scanForEdits(progress: progress)
            _ = try performLocalWrites(Self.writes(journaling: status.edits), keepingHandEdits: false)
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
        var status = StoreStatus()
        let now = FileSystem.currentTimeNanoseconds()
        for key in keys {
            let state = index.records[key]
            let path = layout.recordFile(key)
            let fileStatus: FileStatus?
            do { fileStatus = try FileSystem.status(path) } catch { throw .io(error) }
            guard let fileStatus else {
                if let state, state.isLive {
                    status.edits.append(.init(kind: .deleted, key: key, path: layout.relativeRecordPath(key), document: nil))
                }
                continue
            }
            examine(key, state: state, path: path, fileStatus: fileStatus, into: &status, now: now)
        }
        if let problem = status.problems.first {
            throw unjournaledEdit(problem)
        }
        let writes = Self.writes(journaling: status.edits)
        if !writes.isEmpty { _ = try performLocalWrites(writes, keepingHandEdits: false) }
        return status.edits
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
    func journalHandEdits(
        overwrittenBy keys: [RecordKey], states: [RecordState?]? = nil
    ) throws(StoreError) -> (edits: [StoreStatus.Edit], changed: [Int]) {
        let found = try handEdits(overwrittenBy: keys, states: states)
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
        let layout = self.layout
        let found = ParallelWork.map(count: keys.count, minimumChunk: 1024) { number in
            Result { () throws(SystemError) in try FileSystem.status(layout.recordFile(keys[number])) }
        }
        let now = FileSystem.currentTimeNanoseconds()
        for (number, key) in keys.enumerated() {
            let fileStatus: FileStatus
            switch found[number] {
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

    /// The scan behind `status` and `commit`; caller holds the lock.
    ///
    /// It walks the index once, in the snapshot's order, and looks each record's file up by its
    /// path (one `stat`); a record unchanged since the snapshot whose file matches its stamp is
    /// settled from the raw snapshot line: nothing is decoded, nothing read. Then the entity
    /// folders are listed, streamed, for files no record claimed (new records, odd names).
    /// Memory: 8 bytes per file found (a seeded hash of its record's sort key, sorted), not a
    /// listing of the folders.
    func scanForEdits(progress: WorkProgressHandler? = nil) throws(StoreError) -> StoreStatus {
        var status = StoreStatus()
        var visited = 0
        let total = index.records.count
        func visit() {
            visited += 1
            if visited % 16_384 == 0 || visited == total {
                progress?(WorkProgress(task: "record files", done: visited, total: total, unit: .items("records")))
            }
        }
        let now = FileSystem.currentTimeNanoseconds()
        let entityDirectories: [FileSystem.DirectoryEntry]
        do {
            entityDirectories = FileSystem.exists(layout.records) ? try FileSystem.contents(ofDirectory: layout.records) : []
        } catch { throw .io(error) }
        var folders: [EntityName] = []
        for directory in entityDirectories.sorted(by: { $0.name < $1.name }) {
            let relative = "records/" + directory.name
            guard directory.kind == .directory else {
                status.problems.append(.init(path: relative, reason: "not inside an entity folder (records/<Entity>/<id>.json)"))
                continue
            }
            guard let entity = try? EntityName(directory.name) else {
                status.problems.append(.init(path: relative, reason: "folder name is not a valid entity name"))
                continue
            }
            folders.append(entity)
        }
        let entityFolders = Set(folders)

        // Records the index knows, each matched with its file (or its absence). The walk goes
        // over a copy of the table; confirming a file updates the store's own.
        // Files confirmed for records unchanged since the snapshot are noted apart, in the
        // walk's sort order (see ``ConfirmedStamps``).
        let records = index.records
        var confirmed: [ConfirmedStamps.Entry] = []
        var claimed: [Int] = []
        var statusError: SystemError?
        var lastEntity: (bytes: [UInt8], name: EntityName)?
        /// The record of a sort key, `<entity>\t<encoded id>` (the entity's name kept from the last).
        func keyOfSortKey(_ sortKey: ArraySlice<UInt8>) -> RecordKey? {
            guard let tab = sortKey.firstIndex(of: 9), let id = RecordFileName.decode(bytes: sortKey[(tab + 1)...]) else { return nil }
            let entityBytes = sortKey[..<tab]
            if let lastEntity, lastEntity.bytes.elementsEqual(entityBytes) { return RecordKey(entity: lastEntity.name, id: id) }
            guard let entity = try? EntityName(String(decoding: entityBytes, as: UTF8.self)) else { return nil }
            lastEntity = (Array(entityBytes), entity)
            return RecordKey(entity: entity, id: id)
        }
        /// The file of the record with `key` (its entity folder must be a listed one).
        func file(of key: RecordKey, sortKey: ArraySlice<UInt8>) -> RecordFileListing.File? {
            guard entityFolders.contains(key.entity) else { return nil }
            let path = layout.recordFile(key)
            let fileStatus: FileStatus?
            do { fileStatus = try FileSystem.status(path) } catch {
                statusError = statusError ?? error
                return nil
            }
            guard let fileStatus, fileStatus.kind == .regular else { return nil }
            claimed.append(Self.claimHash(sortKey))
            let relative = String(layout.relativeRecordPath(key).dropFirst("records/\(key.entity.rawValue)/".count))
            return RecordFileListing.File(
                entity: key.entity, directory: FileSystem.parentPath(of: path), name: FileSystem.lastComponent(of: path),
                relativeName: relative, status: fileStatus)
        }
        // The quick way for most records: their file is `<encoded id>.json` in a listed entity
        // folder, stated relative to that folder (on another core, a batch at a time, see
        // ``RecordFileStatBatch``), and settled if it matches its stamp. The others go through
        // the batches too, unstated, so that every record is settled in index order.
        var folderHandles: [[UInt8]: (handle: FileDescriptor, number: Int)] = [:]
        defer { for folder in folderHandles.values { folder.handle.close() } }
        var folderNumbers: [EntityName: Int] = [:]
        for (number, entity) in folders.enumerated() {
            folderNumbers[entity] = number
            if let handle = try? FileDescriptor.open(layout.records + "/" + entity.rawValue, .readOnly, options: .directory) {
                folderHandles[Array(entity.rawValue.utf8)] = (handle, number)
            }
        }
        /// Per listed folder, the files claimed directly in it (not in the folders of long ids).
        var claimedInFolder = [Int](repeating: 0, count: folders.count)
        func claimedDirectly(_ key: RecordKey) {
            if let number = folderNumbers[key.entity], RecordFileName.encode(key.id).utf8.count <= RecordFileName.pieceLength {
                claimedInFolder[number] += 1
            }
        }
        // Meanwhile another thread counts what the folders hold.
        let listing = RecordFolderCount(recordsPath: layout.records, entities: folders)
        listing.start()

        func settleSlowly(_ sortKey: ArraySlice<UInt8>, line: ArraySlice<UInt8>, confirmedStamp: FileStamp?) {
            guard let key = keyOfSortKey(sortKey) else {
                index.records.markDamaged("malformed record line in the index")
                return
            }
            let file = file(of: key, sortKey: sortKey)
            if file != nil { claimedDirectly(key) }
            if let file {
                if let confirmedStamp {
                    if confirmedStamp.matches(file.status) && SnapshotFile.lineIsLive(line) { return }
                } else if SnapshotFile.stampOfLine(line, matches: file.status) {
                    return
                }
            }
            guard let (_, decoded) = records.decode(line: line) else { return }
            var state = decoded
            if let confirmedStamp { state.file = confirmedStamp }
            if let file {
                let stamp = examine(key, state: state, file: file, into: &status, now: now, confirmInPlace: false)
                if let stamp { confirmed.append(ConfirmedStamps.Entry(sortKey: Array(sortKey), stamp: stamp)) }
            } else if state.isLive {
                status.edits.append(.init(kind: .deleted, key: key, path: layout.relativeRecordPath(key), document: nil))
            }
        }
        func settle(_ batch: RecordFileStatBatch) {
            batch.finish()
            for item in 0..<batch.count {
                let sortKey = batch.sortKey(item)
                let line = batch.line(item)
                let confirmedStamp = batch.confirmedStamps[item]
                if case .found(let fileStatus) = batch.outcome(item), fileStatus.kind == .regular {
                    let matches =
                        if let confirmedStamp { confirmedStamp.matches(fileStatus) && SnapshotFile.lineIsLive(line) } else {
                            SnapshotFile.stampOfLine(line, matches: fileStatus)
                        }
                    if matches {
                        claimed.append(Self.claimHash(sortKey))
                        claimedInFolder[batch.folderNumbers[item]] += 1
                        continue
                    }
                }
                settleSlowly(sortKey, line: line, confirmedStamp: confirmedStamp)
            }
        }
        var gathering = RecordFileStatBatch()
        var stating: RecordFileStatBatch?
        func submit() {
            gathering.start()
            if let stating { settle(stating) }
            stating = gathering
            gathering = RecordFileStatBatch()
        }
        var lastFolder: (bytes: [UInt8], folder: (handle: FileDescriptor, number: Int)?)?
        records.forEachForScan(
            unchanged: { sortKey, line, confirmedStamp in
                visit()
                var folder: (handle: FileDescriptor, number: Int)?
                var encodedID = sortKey[sortKey.endIndex...]
                if let tab = sortKey.firstIndex(of: 9), sortKey.endIndex - tab - 1 <= RecordFileName.pieceLength {
                    let entityBytes = sortKey[..<tab]
                    if lastFolder == nil || !lastFolder!.bytes.elementsEqual(entityBytes) {
                        let bytes = Array(entityBytes)
                        lastFolder = (bytes, folderHandles[bytes])
                    }
                    folder = lastFolder?.folder
                    encodedID = sortKey[(tab + 1)...]
                }
                gathering.append(
                    folder: folder?.handle.rawValue ?? -1, folderNumber: folder?.number ?? -1, encodedID: encodedID,
                    sortKey: sortKey, line: line, confirmedStamp: confirmedStamp)
                if gathering.isFull { submit() }
            },
            changed: { key, state in
                // The unchanged lines all come first: settle the last batches of them.
                if gathering.count > 0 { submit() }
                if let batch = stating {
                    settle(batch)
                    stating = nil
                }
                visit()
                let file = file(of: key, sortKey: SnapshotFile.sortKey(key)[...])
                if file != nil { claimedDirectly(key) }
                if let file {
                    if state.isLive, let stamp = state.file, stamp.matches(file.status) { return }
                    examine(key, state: state, file: file, into: &status, now: now)
                } else if state.isLive {
                    status.edits.append(.init(kind: .deleted, key: key, path: layout.relativeRecordPath(key), document: nil))
                }
            })
        if gathering.count > 0 { submit() }
        if let batch = stating { settle(batch) }
        let counted = listing.wait()
        if let statusError { throw .io(statusError) }
        if let damage = records.damage { throw .damagedIndex(reason: damage) }
        if !confirmed.isEmpty {
            index.records.confirm(confirmed)
            stampsChanged = true
        }
        // Files no record claims: new records, or names that are not record file names. A
        // folder holding exactly as many record-shaped files as the scan claimed in it holds
        // no others (each claimed file was found there, under its own name): only its folders
        // of long ids are listed again. Any other folder is listed again and each of its files
        // looked up among the claimed.
        var claimedSorted = false
        func sortedClaims() -> [Int] {
            if !claimedSorted {
                claimed.sort()
                claimedSorted = true
            }
            return claimed
        }
        var unclaimed: [RecordFileListing.File] = []
        for (number, entity) in folders.enumerated() {
            let path = layout.records + "/" + entity.rawValue
            guard let folder = counted[number], folder.recordFiles == claimedInFolder[number] else {
                try collectUnclaimedFiles(
                    entity: entity, path: path, relativePrefix: "", encodedPrefix: "", claimed: sortedClaims(), into: &unclaimed,
                    status: &status)
                continue
            }
            status.problems += folder.problems
            for name in folder.otherFiles {
                let fileStatus: FileStatus?
                do { fileStatus = try FileSystem.status(path + "/" + name) } catch { throw .io(error) }
                guard let fileStatus else { continue }
                unclaimed.append(RecordFileListing.File(entity: entity, directory: path, name: name, relativeName: name, status: fileStatus))
            }
            for longIDs in folder.longIDFolders {
                try collectUnclaimedFiles(
                    entity: entity, path: path + "/" + longIDs, relativePrefix: longIDs + "/",
                    encodedPrefix: longIDs.utf8.count == RecordFileName.pieceLength + 1 ? String(longIDs.dropLast()) : nil,
                    claimed: sortedClaims(), into: &unclaimed, status: &status)
            }
        }
        for file in unclaimed {
            guard let id = RecordFileName.id(fromRelativePath: file.relativeName) else {
                status.problems.append(.init(path: file.displayPath, reason: fileNameAdvice(file.relativeName)))
                continue
            }
            let key = RecordKey(entity: file.entity, id: id)
            examine(key, state: index.records[key], file: file, into: &status, now: now)
        }
        status.edits.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        status.problems.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        // A scan that confirmed many files (after a large import, say) merges their stamps
        // into the snapshot now, so the next scan settles them from raw snapshot lines.
        if stampsChanged && index.records.changedCount >= max(Int(options.snapshotInterval), index.records.count / 16) {
            try persistIndex()
        }
        return status
    }

    /// The seeded hash a scan keeps of a claimed file's sort key (`<entity>\t<encoded id>`).
    private static func claimHash(_ sortKey: ArraySlice<UInt8>) -> Int {
        var hasher = Hasher()
        sortKey.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    /// Lists an entity folder (and the `~` folders of long ids inside it), streamed, and adds
    /// to `files` each regular file whose sort key is not in `claimed` (sorted).
    private func collectUnclaimedFiles(
        entity: EntityName, path: String, relativePrefix: String, encodedPrefix: String?, claimed: [Int],
        into files: inout [RecordFileListing.File], status: inout StoreStatus
    ) throws(StoreError) {
        var folders: [String] = []
        var unclaimed: [String] = []
        do {
            try FileSystem.forEachEntry(ofDirectory: path) { entry in
                if entry.name.hasPrefix(".tmp-") { return }
                let relativeName = relativePrefix + entry.name
                if entry.kind == .directory {
                    if entry.name.hasSuffix("~") {
                        folders.append(entry.name)
                    } else {
                        status.problems.append(.init(path: "records/\(entity.rawValue)/\(relativeName)", reason: "unexpected folder"))
                    }
                    return
                }
                guard entry.kind == .regular else {
                    status.problems.append(.init(path: "records/\(entity.rawValue)/\(relativeName)", reason: "not a regular file"))
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
                claimed: claimed, into: &files, status: &status)
        }
    }

    /// Reads a file whose stamp did not match and decides what it is. A file that shows the
    /// record as the index has it is confirmed: its new stamp goes into the record's state, or,
    /// with `confirmInPlace` false, is returned for the caller to keep.
    @discardableResult
    private func examine(
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

    private func fileNameAdvice(_ name: String) -> String {
        let stem = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
        guard name.hasSuffix(".json"), let id = try? RecordID(stem) else {
            return "not a record file name (records/<Entity>/<encoded id>.json)"
        }
        return "not a canonical record file name; for id \(quoted(id.rawValue)) use \(RecordFileName.relativePath(for: id))"
    }
}
