/// The record-file part of ``StoreVerifier``: every live record's file must hold its winner's
/// document (in any layout), a deleted or unknown record must have no file, and a conflicted
/// record's losing versions must have their files under `conflicts/`.
///
/// A file that differs from the replay is an uncommitted hand edit, unless it holds an older
/// version of the same record that Ferry wrote: then a crash came between the journal append
/// and the file update, and opening the store repairs it.
///
/// Live records' files are opened by their expected paths, spread over the cores; the folders
/// are then listed (names only) for files no live record accounts for.
struct RecordFileCheck: Sendable {
    let layout: StoreLayout
    let scan: JournalScan
    let chain: JournalChainAnalysis.Result

    func run() -> [VerificationFinding] {
        let live: [(key: RecordKey, state: RecordState)] = {
            var live: [(key: RecordKey, state: RecordState)] = []
            live.reserveCapacity(scan.replay.liveRecordCount)
            for (key, state) in scan.replay.records where state.isLive { live.append((key, state)) }
            return live
        }()
        if !live.isEmpty && !FileSystem.isDirectory(layout.records) {
            return [
                VerificationFinding(
                    kind: .missingRecordFile, path: "records",
                    message: "deleted: the records folder is gone, with the files of \(live.count) live records (uncommitted)")
            ]
        }
        let checked = ParallelWork.map(count: live.count) { index in
            let (key, state) = live[index]
            let relative = RecordFileName.relativePath(for: key.id)
            return (relative, checkLive(key, state: state, path: "records/" + key.entity.rawValue + "/" + relative))
        }
        var findings = checked.compactMap(\.1)
        // Each entity's live files, by path in its folder (short ids stay inline strings).
        var accounted: [EntityName: Set<String>] = [:]
        for (index, (relative, _)) in checked.enumerated() { accounted[live[index].key.entity, default: []].insert(relative) }
        for entityFolder in (try? FileSystem.contents(ofDirectory: layout.records)) ?? [] {
            let folderPath = "records/" + entityFolder.name
            guard entityFolder.kind == .directory, let entity = try? EntityName(entityFolder.name) else {
                findings.append(
                    VerificationFinding(
                        kind: .unexpectedRecordFile, path: folderPath,
                        message: "unexpected: not an entity folder (records/<Entity>/<id>.json)"))
                continue
            }
            let expected = accounted[entity] ?? []
            for file in RecordFileWalker.names(under: layout.records + "/" + entityFolder.name)
            where !expected.contains(file.relativePath) {
                if let finding = checkUnaccounted(file, entity: entity, path: folderPath + "/" + file.relativePath) {
                    findings.append(finding)
                }
            }
        }
        for (key, state) in live where state.versions.count > 1 {
            for loser in state.losers where !loser.isDelete {
                let conflictPath = layout.conflictFile(key, version: loser.identity)
                if !FileSystem.exists(conflictPath) {
                    findings.append(
                        VerificationFinding(
                            kind: .missingConflictFile, path: relative(conflictPath), record: key,
                            message: "deleted: the losing version \(loser.identity) of \(key) has no conflict file"))
                }
            }
        }
        return findings.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    private func relative(_ path: String) -> String {
        path.hasPrefix(layout.root + "/") ? String(path.dropFirst(layout.root.count + 1)) : path
    }

    /// Compares a live record's file with the replay's winner.
    private func checkLive(_ key: RecordKey, state: RecordState, path: String) -> VerificationFinding? {
        let bytes: [UInt8]
        switch Self.read(layout.root + "/" + path) {
        case .missing:
            return VerificationFinding(
                kind: .missingRecordFile, path: path, record: key,
                message: "deleted: the journal has this record but its file is gone; a deletion by hand, not committed")
        case .unreadable:
            return VerificationFinding(kind: .unreadableFile, path: path, record: key, message: "unreadable record file")
        case .bytes(let read):
            bytes = read
        }
        if let expected = scan.fileHashes[state.winner.sequence], FileFingerprint(compacting: bytes) == expected { return nil }
        // Same content in another layout is not an edit.
        if let parsed = try? JSONParser.parse(bytes), case .object = parsed,
            SHA256.hash(parsed.canonicalBytes()) == state.winner.contentHash
        {
            return nil
        }
        if isOlderVersion(bytes, of: state) {
            return VerificationFinding(
                kind: .staleRecordFile, path: path, record: key,
                message: "stale: the file holds an older version of \(key); a crash interrupted the update, opening the store repairs it")
        }
        return VerificationFinding(
            kind: .modifiedRecordFile, path: path, record: key,
            message: "modified: the file differs from the journal's version of \(key) (seq \(state.winner.sequence)); a hand edit, not committed")
    }

    /// A file under `records/<Entity>/` that no live record accounts for.
    private func checkUnaccounted(_ file: RecordFileWalker.File, entity: EntityName, path: String) -> VerificationFinding? {
        guard file.kind == .regular else {
            return VerificationFinding(kind: .unexpectedRecordFile, path: path, message: "unexpected: not a regular file")
        }
        guard let id = RecordFileName.id(fromRelativePath: file.relativePath) else {
            return VerificationFinding(kind: .unexpectedRecordFile, path: path, message: "unexpected: not a record file name")
        }
        let key = RecordKey(entity: entity, id: id)
        guard let state = scan.replay.records[key] else {
            return VerificationFinding(
                kind: .unexpectedRecordFile, path: path, record: key,
                message: "created: the journal has no record \(key); a file added by hand and not committed")
        }
        guard case .bytes(let bytes) = Self.read(layout.root + "/" + path) else {
            return VerificationFinding(kind: .unreadableFile, path: path, record: key, message: "unreadable record file")
        }
        if isOlderVersion(bytes, of: state) {
            return VerificationFinding(
                kind: .staleRecordFile, path: path, record: key,
                message: "stale: \(key) was deleted (seq \(state.winner.sequence)) but a crash left its file; opening the store removes it")
        }
        return VerificationFinding(
            kind: .fileOfDeletedRecord, path: path, record: key,
            message: "re-created: \(key) was deleted (seq \(state.winner.sequence)) but has a file; a hand edit, not committed")
    }

    /// What reading a record file gave.
    enum FileContent {
        case bytes([UInt8])
        case missing
        case unreadable
    }

    /// A small file's bytes: one `fstat` and one read of that size (plus a byte, to notice a
    /// file that grew meanwhile).
    static func read(_ path: String) -> FileContent {
        let file: FileDescriptor
        do { file = try FileDescriptor.open(path, .readOnly) } catch {
            return error.isNotFound ? .missing : .unreadable
        }
        defer { file.close() }
        guard let size = try? file.status().size, let bytes = try? file.read(at: 0, count: Int(max(size, 0)) + 1) else {
            return .unreadable
        }
        if bytes.count <= Int(size) { return .bytes(bytes) }
        guard let whole = try? FileSystem.readFile(path) else { return .unreadable }
        return .bytes(whole)
    }

    /// Whether `bytes` are the file Ferry wrote for an earlier version of the record (walking
    /// its `pseq` chain back through the journal, a few steps at most).
    private func isOlderVersion(_ bytes: [UInt8], of state: RecordState) -> Bool {
        let fileHash = SHA256.hash(bytes)
        var sequence = state.lastSequence
        var steps = 0
        while sequence > 0 && steps < 64 {
            guard let index = chain.lineIndex(of: sequence, lineCount: scan.lines.count),
                let entry = scan.reread(lineIndex: index), entry.sequence == sequence
            else { return false }
            if let document = entry.change.operation.document, !state.versions.contains(where: { $0.sequence == sequence }),
                SHA256.hash(document.prettyBytes()) == fileHash
            {
                return true
            }
            sequence = entry.previousSequenceOfRecord < sequence ? entry.previousSequenceOfRecord : 0
            steps += 1
        }
        return false
    }
}
