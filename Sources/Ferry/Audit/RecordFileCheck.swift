/// The record-file part of ``StoreVerifier``: every live record's file must hold its winner's
/// document (in any layout), a deleted or unknown record must have no file, and a conflicted
/// record's losing versions must have their files under `conflicts/`.
///
/// A file that differs from the replay is an uncommitted hand edit, unless it holds an older
/// version of the same record that Ferry wrote: then a crash came between the journal append
/// and the file update, and opening the store repairs it.
struct RecordFileCheck: Sendable {
    let layout: StoreLayout
    let scan: JournalScan
    let chain: JournalChainAnalysis.Result

    func run() -> [VerificationFinding] {
        var findings: [VerificationFinding] = []
        let replay = scan.replay
        let liveCount = replay.liveRecordCount
        if liveCount > 0 && !FileSystem.isDirectory(layout.records) {
            return [
                VerificationFinding(
                    kind: .missingRecordFile, path: "records",
                    message: "deleted: the records folder is gone, with the files of \(liveCount) live records (uncommitted)")
            ]
        }
        // Every record's expected file, so most files are matched without decoding their names.
        var expected: [String: RecordKey] = [:]
        expected.reserveCapacity(replay.records.count)
        for key in replay.records.keys {
            expected[key.entity.rawValue + "/" + RecordFileName.relativePath(for: key.id)] = key
        }
        var seen = Set<RecordKey>()
        seen.reserveCapacity(liveCount)
        var work: [(key: RecordKey, state: RecordState, path: String, size: Int64)] = []
        work.reserveCapacity(liveCount)
        for entityFolder in (try? FileSystem.contents(ofDirectory: layout.records)) ?? [] {
            let folderPath = "records/" + entityFolder.name
            guard entityFolder.kind == .directory, let entity = try? EntityName(entityFolder.name) else {
                findings.append(
                    VerificationFinding(
                        kind: .unexpectedRecordFile, path: folderPath,
                        message: "unexpected: not an entity folder (records/<Entity>/<id>.json)"))
                continue
            }
            for file in RecordFileWalker.files(under: layout.records + "/" + entityFolder.name, sorted: false) {
                let path = folderPath + "/" + file.relativePath
                guard file.status.kind == .regular else {
                    findings.append(VerificationFinding(kind: .unexpectedRecordFile, path: path, message: "unexpected: not a regular file"))
                    continue
                }
                guard let key = expected[entityFolder.name + "/" + file.relativePath], let state = replay.records[key] else {
                    if let id = RecordFileName.id(fromRelativePath: file.relativePath) {
                        let key = RecordKey(entity: entity, id: id)
                        findings.append(
                            VerificationFinding(
                                kind: .unexpectedRecordFile, path: path, record: key,
                                message: "created: the journal has no record \(key); a file added by hand and not committed"))
                    } else {
                        findings.append(
                            VerificationFinding(kind: .unexpectedRecordFile, path: path, message: "unexpected: not a record file name"))
                    }
                    continue
                }
                work.append((key, state, path, file.status.size))
                if state.isLive { seen.insert(key) }
            }
        }
        // Reading and comparing the files is spread over the cores.
        let items = work
        findings += ParallelWork.map(count: items.count) { index in
            check(items[index].key, state: items[index].state, path: items[index].path, size: items[index].size)
        }.compactMap { $0 }
        var missing: [VerificationFinding] = []
        for (key, state) in replay.records where state.isLive {
            if !seen.contains(key) {
                missing.append(
                    VerificationFinding(
                        kind: .missingRecordFile, path: layout.relativeRecordPath(key), record: key,
                        message: "deleted: the journal has this record but its file is gone; a deletion by hand, not committed"))
            }
            for loser in state.losers where !loser.isDelete {
                let conflictPath = layout.conflictFile(key, version: loser.identity)
                if !FileSystem.exists(conflictPath) {
                    missing.append(
                        VerificationFinding(
                            kind: .missingConflictFile, path: relative(conflictPath), record: key,
                            message: "deleted: the losing version \(loser.identity) of \(key) has no conflict file"))
                }
            }
        }
        findings += missing
        return findings.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }

    private func relative(_ path: String) -> String {
        path.hasPrefix(layout.root + "/") ? String(path.dropFirst(layout.root.count + 1)) : path
    }

    /// Compares one record file with the replay.
    private func check(_ key: RecordKey, state: RecordState, path: String, size: Int64) -> VerificationFinding? {
        guard let bytes = Self.read(layout.root + "/" + path, size: size) else {
            return VerificationFinding(kind: .unreadableFile, path: path, record: key, message: "unreadable record file")
        }
        if !state.isLive {
            if isOlderVersion(bytes, of: state) {
                return VerificationFinding(
                    kind: .staleRecordFile, path: path, record: key,
                    message: "stale: \(key) was deleted (seq \(state.winner.sequence)) but a crash left its file; opening the store removes it")
            }
            return VerificationFinding(
                kind: .fileOfDeletedRecord, path: path, record: key,
                message: "re-created: \(key) was deleted (seq \(state.winner.sequence)) but has a file; a hand edit, not committed")
        }
        if let document = scan.documents[state.winner.sequence], document.prettyBytes() == bytes { return nil }
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

    /// A small file's bytes, read in one call of the size `scan` reported (plus one byte, to
    /// notice a file that grew since).
    static func read(_ path: String, size: Int64) -> [UInt8]? {
        guard let file = try? FileDescriptor.open(path, .readOnly) else { return nil }
        defer { file.close() }
        guard let bytes = try? file.read(at: 0, count: Int(max(size, 0)) + 1) else { return nil }
        if bytes.count <= Int(size) { return bytes }
        return try? FileSystem.readFile(path)
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
