extension Store {
    /// Finds record files created, changed or deleted outside Ferry.
    ///
    /// A file whose size, modification time and inode match what Ferry wrote is not read; any
    /// other file is hashed, so a `touch` is not a change. A file modified within the file
    /// system's timestamp granularity of when Ferry last confirmed it is hashed too, so an edit
    /// that keeps the size and lands in the same tick is still caught.
    public func status() throws(StoreError) -> StoreStatus {
        try withWriteLock { () throws(StoreError) -> StoreStatus in try scanForEdits() }
    }

    /// Journals every hand edit as an ordinary change from this replica, in one batch.
    /// Files that are not valid JSON objects are reported and left untouched; the other edits
    /// still commit.
    @discardableResult
    public func commit() throws(StoreError) -> CommitReport {
        try withWriteLock { () throws(StoreError) -> CommitReport in
            let status = try scanForEdits()
            var writes: [RecordWrite] = []
            for edit in status.edits {
                switch edit.kind {
                case .created, .modified:
                    if let document = edit.document { writes.append(.put(edit.key, document)) }
                case .deleted:
                    writes.append(.delete(edit.key))
                }
            }
            _ = try performLocalWrites(writes)
            return CommitReport(committed: status.edits, problems: status.problems)
        }
    }

    /// The scan behind `status` and `commit`; caller holds the lock.
    func scanForEdits() throws(StoreError) -> StoreStatus {
        var status = StoreStatus()
        var seen = Set<RecordKey>()
        let now = FileSystem.currentTimeNanoseconds()
        let entityDirectories: [FileSystem.DirectoryEntry]
        do {
            entityDirectories = FileSystem.exists(layout.records) ? try FileSystem.contents(ofDirectory: layout.records) : []
        } catch { throw .io(error) }
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
            try scanEntityDirectory(
                entity: entity, path: layout.records + "/" + directory.name, relativePrefix: "",
                status: &status, seen: &seen, now: now)
        }
        for (key, state) in index.records where state.isLive && !seen.contains(key) {
            status.edits.append(.init(kind: .deleted, key: key, path: layout.relativeRecordPath(key), document: nil))
        }
        status.edits.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        status.problems.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return status
    }

    private func scanEntityDirectory(
        entity: EntityName, path: String, relativePrefix: String, status: inout StoreStatus,
        seen: inout Set<RecordKey>, now: Int64
    ) throws(StoreError) {
        let entries: [FileSystem.ScannedEntry]
        do { entries = try FileSystem.scan(directory: path) } catch { throw .io(error) }
        for entry in entries {
            let relativeName = relativePrefix + entry.name
            let displayPath = "records/\(entity.rawValue)/\(relativeName)"
            if entry.name.hasPrefix(".tmp-") { continue }
            if entry.status.kind == .directory {
                if entry.name.hasSuffix("~") {
                    try scanEntityDirectory(
                        entity: entity, path: path + "/" + entry.name, relativePrefix: relativeName + "/",
                        status: &status, seen: &seen, now: now)
                } else {
                    status.problems.append(.init(path: displayPath, reason: "unexpected folder"))
                }
                continue
            }
            guard entry.status.kind == .regular else {
                status.problems.append(.init(path: displayPath, reason: "not a regular file"))
                continue
            }
            guard let id = RecordFileName.id(fromRelativePath: relativeName) else {
                status.problems.append(.init(path: displayPath, reason: fileNameAdvice(relativeName)))
                continue
            }
            let key = RecordKey(entity: entity, id: id)
            seen.insert(key)
            let state = index.records[key]
            if let state, state.isLive, let stamp = state.file, stamp.matches(entry.status) { continue }
            try examine(key, state: state, path: path + "/" + entry.name, displayPath: displayPath, fileStatus: entry.status, into: &status, now: now)
        }
    }

    /// Reads a file whose stamp did not match and decides what it is.
    private func examine(
        _ key: RecordKey, state: RecordState?, path: String, displayPath: String, fileStatus: FileStatus,
        into status: inout StoreStatus, now: Int64
    ) throws(StoreError) {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path, limit: options.maximumDocumentBytes * 4) } catch {
            status.problems.append(.init(path: displayPath, reason: error.message))
            return
        }
        let fileHash = SHA256.hash(bytes)
        func confirm() {
            index.records[key]?.file = FileStamp(
                size: fileStatus.size, modificationNanoseconds: fileStatus.modificationNanoseconds, inode: fileStatus.inode,
                contentHash: fileHash, takenAtNanoseconds: now)
            stampsChanged = true
        }
        if let state, state.isLive, state.file?.contentHash == fileHash {
            confirm()
            return
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(
                bytes, options: .init(maximumDepth: options.maximumDepth, maximumByteCount: options.maximumDocumentBytes))
        } catch {
            status.problems.append(.init(path: displayPath, reason: "invalid JSON at line \(error.line), column \(error.column): \(error.reason)"))
            return
        }
        guard case .object = document else {
            status.problems.append(.init(path: displayPath, reason: "a record must be a JSON object, not \(document.kindName)"))
            return
        }
        if let state, state.isLive {
            if SHA256.hash(document.canonicalBytes()) == state.winner.contentHash {
                confirm()  // the winner's content, perhaps reformatted: not an edit (even when conflicted)
                return
            }
            status.edits.append(.init(kind: .modified, key: key, path: displayPath, document: document))
        } else {
            status.edits.append(.init(kind: .created, key: key, path: displayPath, document: document))
        }
    }

    private func fileNameAdvice(_ name: String) -> String {
        let stem = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
        guard name.hasSuffix(".json"), let id = try? RecordID(stem) else {
            return "not a record file name (records/<Entity>/<encoded id>.json)"
        }
        return "not a canonical record file name; for id \(quoted(id.rawValue)) use \(RecordFileName.relativePath(for: id))"
    }
}
