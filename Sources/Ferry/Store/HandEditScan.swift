/// The scan behind `ferry status` and `ferry commit`: every record file created, changed or
/// deleted behind Ferry's back; its store's caller holds the lock.
///
/// It walks the index once, in the index file's order, and looks each record's file up by its
/// path (one `stat`); a record unchanged since the index file was written whose file matches
/// its stamp is settled from the raw index line: nothing is decoded, nothing read. Then the
/// entity folders are listed, streamed, for files no record claimed (new records, odd names).
/// Memory: 8 bytes per file found (a seeded hash of its record's sort key, sorted), not a
/// listing of the folders.
///
/// ```swift
/// let status = try HandEditScan(store: store, progress: nil).run()
/// ```
final class HandEditScan {
    /// A listed entity folder, open for `fstatat` relative to it, and its number in ``folders``.
    private typealias Folder = (handle: FileDescriptor, number: Int)

    private let store: Store
    private let progress: WorkProgressHandler?
    /// What under `records/` is neither a record nor a problem (read as the scan starts).
    private var ignoreRules = IgnoreRules()
    private let now = FileSystem.currentTimeNanoseconds()
    /// The walk goes over a copy of the table; confirming a file updates the store's own.
    private let records: RecordTable
    private var status = StoreStatus()
    private var visited = 0
    /// The entity folders under `records/`, sorted, and the same as a set.
    private var folders: [EntityName] = []
    private var entityFolders: Set<EntityName> = []
    private var folderNumbers: [EntityName: Int] = [:]
    private var folderHandles: [[UInt8]: Folder] = [:]
    /// Files confirmed for records unchanged since the index file was written, in the walk's
    /// sort order (see ``ConfirmedStamps``).
    private var confirmed: [ConfirmedStamps.Entry] = []
    /// The claim hashes (``Store/claimHash(_:)``) of the files the walk found for records.
    private var claimed: [Int] = []
    private var claimedSorted = false
    /// Per listed folder, the files claimed directly in it (not in the folders of long ids).
    private var claimedInFolder: [Int] = []
    private var statusError: SystemError?
    /// The first record file found to be a symbolic link, relative to the store.
    private var linkFound: String?
    private var lastEntity: (bytes: [UInt8], name: EntityName)?
    private var lastFolder: (bytes: [UInt8], folder: Folder?)?
    /// The batch of files being gathered, and the one being stated on another core.
    private var gathering = RecordFileStatBatch()
    private var stating: RecordFileStatBatch?

    init(store: Store, progress: WorkProgressHandler?) {
        self.store = store
        self.progress = progress
        records = store.index.records
    }

    /// Runs the scan.
    /// - Returns: the hand edits and the files that cannot be read as records, sorted by path.
    func run() throws(StoreError) -> StoreStatus {
        ignoreRules = try IgnoreRules.load(storeRoot: store.path)
        try listEntityFolders()
        openFolders()
        defer { for folder in folderHandles.values { folder.handle.close() } }
        // Meanwhile another thread counts what the folders hold.
        let listing = RecordFolderCount(recordsPath: store.layout.records, entities: folders, ignoring: ignoreRules)
        listing.start()
        walkIndex()
        let counted = listing.wait()
        if let statusError { throw .io(statusError) }
        if let link = linkFound ?? counted.lazy.compactMap({ $0?.links.first }).first {
            throw .linkInRecords(path: store.path + "/" + link)
        }
        if let damage = records.damage { throw .damagedIndex(reason: damage) }
        if !confirmed.isEmpty {
            store.index.records.confirm(confirmed)
            store.stampsChanged = true
        }
        try examineUnclaimedFiles(counted: counted)
        status.edits.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        status.problems.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        // A scan that confirmed many files (after a large import, say) merges their stamps
        // into the index file now, so the next scan settles them from raw index lines.
        let index = store.index.records
        if store.stampsChanged && index.changedCount >= max(Int(store.options.imageInterval), index.count / 16) {
            try store.persistIndex()
        }
        return status
    }

    // MARK: Folders

    /// The entity folders under `records/`; anything else there is a problem.
    private func listEntityFolders() throws(StoreError) {
        let layout = store.layout
        let entries: [FileSystem.DirectoryEntry]
        do {
            if try FileSystem.status(layout.records)?.kind == .symbolicLink { throw StoreError.linkInRecords(path: layout.records) }
            entries = FileSystem.exists(layout.records) ? try FileSystem.contents(ofDirectory: layout.records) : []
        } catch let error as StoreError {
            throw error
        } catch let error as SystemError {
            throw .io(error)
        } catch {
            throw .coding("\(error)")
        }
        for directory in entries.sorted(by: { $0.name < $1.name }) {
            let relative = "records/" + directory.name
            if directory.name.hasPrefix(".tmp-") || ignoreRules.ignores(relative, isFolder: directory.kind == .directory) { continue }
            // Its files would be missed, so read as deleted, and deleted through the link.
            if directory.kind == .symbolicLink { throw .linkInRecords(path: store.path + "/" + relative) }
            guard directory.kind == .directory else {
                status.problems.append(.init(path: relative, reason: "not inside an entity folder (records/<Entity>/<id>.json): move it out of records/, or list it in .ferryignore"))
                continue
            }
            guard let entity = try? EntityName(directory.name) else {
                status.problems.append(.init(path: relative, reason: "folder name is not a valid entity name (a letter, then letters, digits or _): move it out of records/, or list it in .ferryignore"))
                continue
            }
            folders.append(entity)
        }
        entityFolders = Set(folders)
        claimedInFolder = [Int](repeating: 0, count: folders.count)
    }

    /// Opens each entity folder, for stating its files relative to it (a folder that cannot
    /// be opened has its files stated by path).
    private func openFolders() {
        for (number, entity) in folders.enumerated() {
            folderNumbers[entity] = number
            if let handle = try? FileDescriptor.open(store.layout.records + "/" + entity.rawValue, .readOnly, options: .directory) {
                folderHandles[Array(entity.rawValue.utf8)] = (handle, number)
            }
        }
    }

    // MARK: The walk

    /// Matches every record the index knows with its file (or its absence). The quick way for
    /// most records: their file is `<encoded id>.json` in a listed entity folder, stated
    /// relative to that folder (on another core, a batch at a time, see
    /// ``RecordFileStatBatch``), and settled if it matches its stamp. The others go through the
    /// batches too, unstated, so that every record is settled in index order.
    private func walkIndex() {
        records.forEachForScan(
            unchanged: { sortKey, line, confirmedStamp in
                self.visit()
                var folder: Folder?
                var encodedID = sortKey[sortKey.endIndex...]
                if let tab = sortKey.firstIndex(of: 9), sortKey.endIndex - tab - 1 <= RecordFileName.pieceLength {
                    folder = self.folder(named: sortKey[..<tab])
                    encodedID = sortKey[(tab + 1)...]
                }
                self.gathering.append(
                    folder: folder?.handle.rawValue ?? -1, folderNumber: folder?.number ?? -1, encodedID: encodedID,
                    sortKey: sortKey, line: line, confirmedStamp: confirmedStamp)
                if self.gathering.isFull { self.submit() }
            },
            changed: { key, state in
                // The unchanged lines all come first: settle the last batches of them.
                self.finishBatches()
                self.visit()
                self.settleChanged(key, state: state)
            })
        finishBatches()
    }

    private func visit() {
        visited += 1
        if visited % 16_384 == 0 || visited == records.count {
            progress?(WorkProgress(task: "record files", done: visited, total: records.count, unit: .items("records")))
        }
    }

    /// The open folder of the entity whose name is `entityBytes` (the last one found kept).
    private func folder(named entityBytes: ArraySlice<UInt8>) -> Folder? {
        if lastFolder == nil || !lastFolder!.bytes.elementsEqual(entityBytes) {
            let bytes = Array(entityBytes)
            lastFolder = (bytes, folderHandles[bytes])
        }
        return lastFolder?.folder
    }

    /// Starts stating the batch gathered, and settles the one stated before it.
    private func submit() {
        gathering.start()
        if let stating { settle(stating) }
        stating = gathering
        gathering = RecordFileStatBatch()
    }

    /// Settles every batch still gathered or being stated.
    private func finishBatches() {
        if gathering.count > 0 { submit() }
        if let batch = stating {
            settle(batch)
            stating = nil
        }
    }

    /// Settles a stated batch: a file that matches its stamp is claimed; any other record is
    /// settled the slow way.
    private func settle(_ batch: RecordFileStatBatch) {
        batch.finish()
        for item in 0..<batch.count {
            let sortKey = batch.sortKey(item)
            let line = batch.line(item)
            let confirmedStamp = batch.confirmedStamps[item]
            if case .found(let fileStatus) = batch.outcome(item), fileStatus.kind == .regular {
                let matches =
                    if let confirmedStamp { confirmedStamp.matches(fileStatus) && IndexRecordLine.lineIsLive(line) } else {
                        IndexRecordLine.stampOfLine(line, matches: fileStatus)
                    }
                if matches {
                    claimed.append(Store.claimHash(sortKey))
                    claimedInFolder[batch.folderNumbers[item]] += 1
                    continue
                }
            }
            settleSlowly(sortKey, line: line, confirmedStamp: confirmedStamp)
        }
    }

    /// Settles a record unchanged since the index file was written whose file the batch could
    /// not vouch for: its file stated by path, and read when its stamp does not match.
    private func settleSlowly(_ sortKey: ArraySlice<UInt8>, line: ArraySlice<UInt8>, confirmedStamp: FileStamp?) {
        guard let key = key(ofSortKey: sortKey) else {
            store.index.records.markDamaged("malformed record line in the index")
            return
        }
        let file = file(of: key, sortKey: sortKey)
        if let file {
            claimedDirectly(key)
            if let confirmedStamp {
                if confirmedStamp.matches(file.status) && IndexRecordLine.lineIsLive(line) { return }
            } else if IndexRecordLine.stampOfLine(line, matches: file.status) {
                return
            }
        }
        guard let (_, decoded) = records.decode(line: line) else { return }
        var state = decoded
        if let confirmedStamp { state.file = confirmedStamp }
        if let file {
            let stamp = store.examine(key, state: state, file: file, into: &status, now: now, confirmInPlace: false)
            if let stamp { confirmed.append(ConfirmedStamps.Entry(sortKey: Array(sortKey), stamp: stamp)) }
        } else if state.isLive {
            status.edits.append(.init(kind: .deleted, key: key, path: store.layout.relativeRecordPath(key), document: nil))
        }
    }

    /// Settles a record changed since the index file was written (its state is in memory).
    private func settleChanged(_ key: RecordKey, state: RecordState) {
        let file = file(of: key, sortKey: IndexRecordLine.sortKey(key)[...])
        if let file {
            claimedDirectly(key)
            if state.isLive, let stamp = state.file, stamp.matches(file.status) { return }
            store.examine(key, state: state, file: file, into: &status, now: now)
        } else if state.isLive {
            status.edits.append(.init(kind: .deleted, key: key, path: store.layout.relativeRecordPath(key), document: nil))
        }
    }

    /// The record of a sort key, `<entity>\t<encoded id>` (the entity's name kept from the last).
    private func key(ofSortKey sortKey: ArraySlice<UInt8>) -> RecordKey? {
        guard let tab = sortKey.firstIndex(of: 9), let id = RecordFileName.decode(bytes: sortKey[(tab + 1)...]) else { return nil }
        let entityBytes = sortKey[..<tab]
        if let lastEntity, lastEntity.bytes.elementsEqual(entityBytes) { return RecordKey(entity: lastEntity.name, id: id) }
        guard let entity = try? EntityName(String(decoding: entityBytes, as: UTF8.self)) else { return nil }
        lastEntity = (Array(entityBytes), entity)
        return RecordKey(entity: entity, id: id)
    }

    /// The file of the record with `key` (its entity folder must be a listed one), claimed.
    private func file(of key: RecordKey, sortKey: ArraySlice<UInt8>) -> RecordFileListing.File? {
        guard entityFolders.contains(key.entity) else { return nil }
        let layout = store.layout
        let path = layout.recordFile(key)
        let fileStatus: FileStatus?
        do { fileStatus = try FileSystem.status(path) } catch {
            statusError = statusError ?? error
            return nil
        }
        if fileStatus?.kind == .symbolicLink {
            linkFound = linkFound ?? layout.relativeRecordPath(key)
            return nil
        }
        guard let fileStatus, fileStatus.kind == .regular else { return nil }
        claimed.append(Store.claimHash(sortKey))
        let relative = String(layout.relativeRecordPath(key).dropFirst("records/\(key.entity.rawValue)/".count))
        return RecordFileListing.File(
            entity: key.entity, directory: FileSystem.parentPath(of: path), name: FileSystem.lastComponent(of: path),
            relativeName: relative, status: fileStatus)
    }

    private func claimedDirectly(_ key: RecordKey) {
        if let number = folderNumbers[key.entity], RecordFileName.encode(key.id).utf8.count <= RecordFileName.pieceLength {
            claimedInFolder[number] += 1
        }
    }

    // MARK: Files no record claims

    /// Files no record claims: new records, or names that are not record file names. A folder
    /// holding exactly as many record-shaped files as the scan claimed in it holds no others
    /// (each claimed file was found there, under its own name): only its folders of long ids
    /// are listed again. Any other folder is listed again and each of its files looked up
    /// among the claimed.
    private func examineUnclaimedFiles(counted: [RecordFolderCount.Folder?]) throws(StoreError) {
        var unclaimed: [RecordFileListing.File] = []
        for (number, entity) in folders.enumerated() {
            let path = store.layout.records + "/" + entity.rawValue
            guard let folder = counted[number], folder.recordFiles == claimedInFolder[number] else {
                try store.collectUnclaimedFiles(
                    entity: entity, path: path, relativePrefix: "", encodedPrefix: "", claimed: sortedClaims(), ignoring: ignoreRules,
                    into: &unclaimed, status: &status)
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
                try store.collectUnclaimedFiles(
                    entity: entity, path: path + "/" + longIDs, relativePrefix: longIDs + "/",
                    encodedPrefix: longIDs.utf8.count == RecordFileName.pieceLength + 1 ? String(longIDs.dropLast()) : nil,
                    claimed: sortedClaims(), ignoring: ignoreRules, into: &unclaimed, status: &status)
            }
        }
        var handNamed = HandNamedFiles(store: store)
        for file in unclaimed {
            guard let id = RecordFileName.id(fromRelativePath: file.relativeName) else {
                // A name Ferry writes is always a record's; any other may be a leftover.
                if ignoreRules.ignores(file.displayPath) { continue }
                if !file.relativeName.contains("/"), let id = RecordFileName.handMadeID(fromFileName: file.name) {
                    handNamed.add(file, id: id)
                } else {
                    status.problems.append(.init(path: file.displayPath, reason: RecordFileName.advice(forOddName: file.relativeName)))
                }
                continue
            }
            let key = RecordKey(entity: file.entity, id: id)
            store.examine(key, state: store.index.records[key], file: file, into: &status, now: now)
        }
        handNamed.settle(into: &status, now: now)
    }

    /// The claims, sorted once for look-ups.
    private func sortedClaims() -> [Int] {
        if !claimedSorted {
            claimed.sort()
            claimedSorted = true
        }
        return claimed
    }
}
