/// The record-file part of ``StoreVerifier``: every live record's file must hold its winner's
/// document (in any layout), a deleted or unknown record must have no file, and a conflicted
/// record's losing versions must have their files under `conflicts/`.
///
/// A file that differs from the replay is an uncommitted hand edit, unless it holds an older
/// version of the same record that Ferry wrote: then a crash came between the journal append
/// and the file update, and opening the store repairs it.
///
/// Works one partition of records at a time (see ``ReplaySpill``): first the folders are
/// listed and every record file read, in the order the files lie on disk, its name and
/// fingerprint sent to its record's partition (``readRecordFiles(into:progress:)``); then each
/// partition's names are looked up in its replay, and the few files whose fingerprints do not
/// settle the matter are read again. Nothing per record is kept but findings.
struct RecordFileCheck {
    let layout: StoreLayout
    let scan: JournalScan
    let chain: JournalChainAnalysis.Result
    /// How the record files are read before the replay.
    var reading = Reading()

    /// How a record file is parsed when its bytes are not the ones Ferry wrote: as large and
    /// as deep as a store accepts by default.
    static let parsing = StoreOptions().recordFileParsing

    /// Checks the files of one partition's records, from the names and fingerprints
    /// ``readRecordFiles(into:progress:)`` sent to it: a live record's file whose fingerprint
    /// is its winner's is done; every other live record's file is read again and compared in
    /// full (spread over the cores), as are the names no live record accounts for; then the
    /// conflict files of its conflicted records.
    func check(_ replay: ReplayTable, partition: Int, spill: ReplaySpill) -> [VerificationFinding] {
        var findings: [VerificationFinding] = []
        var matched = [Bool](repeating: false, count: replay.count)
        spill.forEachFileName(in: partition) { name in
            guard let id = RecordFileName.id(fromRelativePath: name.relativePath) else { return }
            let key = RecordKey(entity: name.entity, id: id)
            if let index = replay.index(of: key), replay.slots[index].flags.contains(.live) {
                // Another name of a live record (not its canonical path) is left alone; the
                // canonical one matches, or it is read again below.
                if let fingerprint = name.fingerprint, let expected = replay.expectedFile(at: index), fingerprint == expected,
                    name.relativePath == RecordFileName.relativePath(for: id)
                {
                    matched[index] = true
                }
                return
            }
            let path = "records/" + name.entity.rawValue + "/" + name.relativePath
            findings.append(checkUnaccounted(key, path: path, in: replay))
        }
        let unmatched = replay.slots.indices.filter { replay.slots[$0].flags.contains(.live) && !matched[$0] }
        let results = ParallelWork.map(count: unmatched.count, minimumChunk: 256) { [self] offset -> VerificationFinding? in
            checkLive(unmatched[offset], in: replay)
        }
        findings += results.compactMap { $0 }
        for (index, state) in replay.complex where state.isLive && state.versions.count > 1 {
            let key = replay.key(at: index)
            for loser in state.losers where !loser.isDelete {
                let conflictPath = layout.conflictFile(key, version: loser.identity)
                if !FileSystem.exists(conflictPath) {
                    findings.append(
                        VerificationFinding(
                            kind: .missingConflictFile, path: relative(conflictPath), record: key,
                            message: "deleted: the losing version \(loser.identity) of \(key) has no conflict file; "
                                + "'ferry resolve \([layout.root, key.entity.rawValue, key.id.rawValue].map(Self.shellWord).joined(separator: " ")) --take winner' "
                                + "ends the conflict (the losing version stays in 'ferry show --history')"))
                }
            }
        }
        return findings
    }

    /// The state of the record in slot `index`, its current version read again from the journal
    /// when the replay keeps only its fingerprints.
    private func state(at index: Int, in replay: ReplayTable) -> RecordState? {
        replay.state(at: index) { sequence in scan.version(atSequence: sequence) }
    }

    private func relative(_ path: String) -> String {
        path.hasPrefix(layout.root + "/") ? String(path.dropFirst(layout.root.count + 1)) : path
    }

    /// The command that writes the journal's version of `key` to its file at `path` (relative
    /// to the store), quoted as `verify` advises it.
    private func restoreCommand(_ key: RecordKey, path: String) -> String {
        let words = [layout.root, key.entity.rawValue, key.id.rawValue].map(Self.shellWord)
        return "'ferry get \(words.joined(separator: " ")) > \(Self.shellWord(layout.root + "/" + path))'"
    }

    /// `text` as one word of a POSIX shell: as it is when it holds only characters the shell
    /// takes literally, else in double quotes (an id such as `Shopping List`).
    static func shellWord(_ text: String) -> String {
        let literal = !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_./%@+,:=-".unicodeScalars.contains(scalar)
        }
        if literal { return text }
        var quoted = "\""
        for character in text {
            if "\"\\$`".contains(character) { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// Compares a live record's file with the replay's winner.
    private func checkLive(_ index: Int, in replay: ReplayTable) -> VerificationFinding? {
        let key = replay.key(at: index)
        let path = "records/" + key.entity.rawValue + "/" + RecordFileName.relativePath(for: key.id)
        let bytes: [UInt8]
        switch Self.read(layout.root + "/" + path) {
        case .missing:
            return VerificationFinding(
                kind: .missingRecordFile, path: path, record: key,
                message: "the journal has this record but its file is gone (a write that failed, or a deletion by hand): "
                    + "\(restoreCommand(key, path: path)) restores it; "
                    + "to delete the record, 'ferry delete' it (a 'ferry commit' now would journal the loss)")
        case .unreadable:
            return VerificationFinding(kind: .unreadableFile, path: path, record: key, message: "unreadable record file")
        case .bytes(let read):
            bytes = read
        }
        if let expected = replay.expectedFile(at: index), FileFingerprint(compacting: bytes) == expected { return nil }
        guard let state = state(at: index, in: replay) else {
            return VerificationFinding(kind: .unreadableFile, path: path, record: key, message: "the journal entry of this record's version cannot be read again")
        }
        // Same content in another layout is not an edit.
        if let parsed = try? JSONParser.parse(bytes, options: Self.parsing), case .object = parsed,
            SHA256.hash(parsed.canonicalBytes()) == state.winner.contentHash
        {
            return nil
        }
        if isOlderVersion(bytes, of: state) {
            return VerificationFinding(
                kind: .staleRecordFile, path: path, record: key,
                message: "stale: the file holds an older version of \(key), from a crash during the update or put back by hand; "
                    + "\(restoreCommand(key, path: path)) puts the journal's version back, or 'ferry commit' journals the older content")
        }
        if let problem = Self.problem(in: bytes) {
            return VerificationFinding(
                kind: .invalidRecordFile, path: path, record: key,
                message: "edited by hand: \(problem); or \(restoreCommand(key, path: path)) puts the journal's version back")
        }
        return VerificationFinding(
            kind: .modifiedRecordFile, path: path, record: key,
            message: "modified: the file differs from the journal's version of \(key) (seq \(state.winner.sequence)); a hand edit, not committed")
    }

    /// A regular file under `records/<Entity>/`, named for `key`, that no live record accounts for.
    private func checkUnaccounted(_ key: RecordKey, path: String, in replay: ReplayTable) -> VerificationFinding {
        if case .bytes(let bytes) = Self.read(layout.root + "/" + path), let problem = Self.problem(in: bytes) {
            return VerificationFinding(kind: .invalidRecordFile, path: path, record: key, message: "created by hand: \(problem)")
        }
        guard let index = replay.index(of: key), let state = state(at: index, in: replay) else {
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
                message: "stale: \(key) was deleted (seq \(state.winner.sequence)) but its file is there, from a crash during the "
                    + "deletion or put back by hand; remove the file, or 'ferry commit' journals the record again")
        }
        return VerificationFinding(
            kind: .fileOfDeletedRecord, path: path, record: key,
            message: "re-created: \(key) was deleted (seq \(state.winner.sequence)) but has a file; a hand edit, not committed")
    }

    /// Why `commit` would refuse a record file of these bytes (not JSON, or not an object), or
    /// `nil`.
    static func problem(in bytes: [UInt8]) -> String? {
        let parsed: JSONValue
        do { parsed = try JSONParser.parse(bytes, options: parsing) } catch {
            return "invalid JSON at line \(error.line), column \(error.column): \(error.reason)"
        }
        guard case .object = parsed else { return "a record must be a JSON object, not \(parsed.kindName)" }
        return nil
    }

    /// ``problem(in:)`` for the file at `path`; `nil` when it cannot be read.
    static func problem(inFileAt path: String) -> String? {
        guard case .bytes(let bytes) = read(path) else { return nil }
        return problem(in: bytes)
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
