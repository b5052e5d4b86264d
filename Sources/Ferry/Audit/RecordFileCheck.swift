/// The record-file part of ``StoreVerifier``: every live record's file must hold its winner's
/// document (in any layout), a deleted or unknown record must have no file, and a conflicted
/// record's losing versions must have their files under `conflicts/`.
///
/// A file that differs from the replay is an uncommitted hand edit, unless it holds an older
/// version of the same record that Ferry wrote: then a crash came between the journal append
/// and the file update, and opening the store repairs it.
///
/// Live records' files are opened by their expected paths, a chunk of records at a time spread
/// over the cores; the folders are then listed (names only, streamed) for files no live record
/// accounts for, each name looked up in the replay. Nothing per record is kept but findings.
struct RecordFileCheck {
    let layout: StoreLayout
    let scan: JournalScan
    let chain: JournalChainAnalysis.Result
    /// Called after each chunk of live records with the number checked and the number in all.
    var progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?

    /// Records checked together on the cores.
    static let chunkSize = 8192

    func run() -> [VerificationFinding] {
        let replay = scan.replay
        let liveCount = replay.liveRecordCount
        if liveCount > 0 && !FileSystem.isDirectory(layout.records) {
            return [
                VerificationFinding(
                    kind: .missingRecordFile, path: "records",
                    message: "deleted: the records folder is gone, with the files of \(liveCount) live records (uncommitted)")
            ]
        }
        var findings: [VerificationFinding] = []
        var done = 0
        var start = 0
        while start < replay.count {
            let end = min(replay.count, start + Self.chunkSize)
            let first = start
            let checked = ParallelWork.map(count: end - start, minimumChunk: 256) { [self] offset -> VerificationFinding? in
                let index = first + offset
                guard replay.slots[index].flags.contains(.live) else { return nil }
                return checkLive(index)
            }
            findings += checked.compactMap { $0 }
            for index in start..<end where replay.slots[index].flags.contains(.live) { done += 1 }
            progress?(done, liveCount)
            start = end
        }
        for entityFolder in (try? FileSystem.contents(ofDirectory: layout.records)) ?? [] {
            let folderPath = "records/" + entityFolder.name
            guard entityFolder.kind == .directory, let entity = try? EntityName(entityFolder.name) else {
                findings.append(
                    VerificationFinding(
                        kind: .unexpectedRecordFile, path: folderPath,
                        message: "unexpected: not an entity folder (records/<Entity>/<id>.json)"))
                continue
            }
            RecordFileWalker.forEach(under: layout.records + "/" + entityFolder.name) { file in
                // A live record's file (its canonical path) was checked above.
                if file.kind == .regular, let id = RecordFileName.id(fromRelativePath: file.relativePath),
                    let index = replay.index(of: RecordKey(entity: entity, id: id)), replay.slots[index].flags.contains(.live)
                {
                    return
                }
                if let finding = checkUnaccounted(file, entity: entity, path: folderPath + "/" + file.relativePath) {
                    findings.append(finding)
                }
            }
        }
        for (index, state) in replay.complex where state.isLive && state.versions.count > 1 {
            let key = replay.key(at: index)
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

    /// The state of the record in slot `index`, its current version read again from the journal
    /// when the replay keeps only its fingerprints.
    private func state(at index: Int) -> RecordState? {
        scan.replay.state(at: index) { sequence in scan.version(atSequence: sequence) }
    }

    private func relative(_ path: String) -> String {
        path.hasPrefix(layout.root + "/") ? String(path.dropFirst(layout.root.count + 1)) : path
    }

    /// Compares a live record's file with the replay's winner.
    private func checkLive(_ index: Int) -> VerificationFinding? {
        let key = scan.replay.key(at: index)
        let path = "records/" + key.entity.rawValue + "/" + RecordFileName.relativePath(for: key.id)
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
        if let expected = scan.replay.expectedFile(at: index), FileFingerprint(compacting: bytes) == expected { return nil }
        guard let state = state(at: index) else {
            return VerificationFinding(kind: .unreadableFile, path: path, record: key, message: "the journal entry of this record's version cannot be read again")
        }
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
        guard let index = scan.replay.index(of: key), let state = state(at: index) else {
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
            guard let index = chain.lineIndex(of: sequence, lineCount: scan.lineCount),
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
