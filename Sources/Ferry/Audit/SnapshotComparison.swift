/// Compares the index on disk with the journal's replay at the head it covers, as text:
/// cheaper than decoding a million record lines into an index, streamed so that neither side
/// is held as lines, and each difference still names its record.
///
/// The index is the snapshot (`.ferry/index`) plus, when one applies to it, the delta file
/// (`.ferry/index-delta`), whose records replace the snapshot's (format in ``SnapshotFile``).
/// Each record line, without its file stamp (which the journal cannot know), must be the line
/// the replay would write, with the replica numbering of the file it is in; the snapshot's
/// lines must also be sorted, since the store finds records by binary search. The header's
/// knowledge vector, clock, live counts and conflict list must be the replay's too.
enum SnapshotComparison {
    /// The index files, read before the journal.
    struct IndexFiles: Sendable {
        var snapshot: IndexFileText
        /// The delta file, when it applies to the snapshot.
        var delta: IndexFileText?
        /// A delta file that could not be read.
        var unreadableDelta: VerificationFinding?

        /// The head the index covers: the delta's when there is one.
        var head: StoreHead { delta?.head ?? snapshot.head }

        /// Reads the snapshot and the delta file. A delta written for another snapshot is
        /// ignored, as the store ignores it.
        static func read(_ layout: StoreLayout) -> Result<IndexFiles, IndexFileText.Unreadable> {
            let snapshot: IndexFileText
            do { snapshot = try IndexFileText(reading: layout.index, path: ".ferry/index", magic: SnapshotFile.magic) } catch {
                return .failure(error)
            }
            var files = IndexFiles(snapshot: snapshot)
            guard FileSystem.exists(layout.indexDelta) else { return .success(files) }
            do {
                let delta = try IndexFileText(reading: layout.indexDelta, path: ".ferry/index-delta", magic: SnapshotFile.deltaMagic)
                if let base = delta.baseHead, base.sequence == snapshot.head.sequence, base.hash == snapshot.head.hash,
                    delta.totalRecords != nil
                {
                    files.delta = delta
                }
            } catch {
                files.unreadableDelta = finding(
                    ".ferry/index-delta", nil, "unreadable: \(error.reason); remove .ferry/index to rebuild the index")
            }
            return .success(files)
        }
    }

    /// The replica numbering the replay writes its expected lines with: the delta's, which
    /// extends the snapshot's as Ferry writes it, else the snapshot's (a delta numbered
    /// otherwise has its lines renumbered as they are read).
    static func lineNumbers(_ files: IndexFiles) -> [ReplicaID: Int] {
        if let delta = files.delta, delta.replicas.starts(with: files.snapshot.replicas) { return numbers(delta.replicas) }
        return numbers(files.snapshot.replicas)
    }

    /// The differences, sorted by record (findings about no record first).
    ///
    /// Both sides are reduced to a fingerprint per record line: the replay's, one `Int` each,
    /// sorted; the files' lines, streamed, are looked up in them. Memory: 8 bytes and a bit per
    /// record, whatever the index's size.
    static func findings(_ files: IndexFiles, replay: ReplayTable) -> [VerificationFinding] {
        var findings = headerFindings(files, replay: replay)

        // The lines the replay would write, fingerprinted a chunk at a time on the cores.
        var expected: [Int] = []
        expected.reserveCapacity(replay.count)
        var start = 0
        while start < replay.count {
            let end = min(replay.count, start + 65_536)
            let first = start
            let chunk = ParallelWork.map(count: end - first, minimumChunk: 4096) { offset -> Int in
                replay.slots[first + offset].flags.contains(.unnumbered) ? 0 : lineFingerprint(replay, at: first + offset)
            }
            for (offset, fingerprint) in chunk.enumerated() {
                guard replay.slots[first + offset].flags.contains(.unnumbered) else {
                    expected.append(fingerprint)
                    continue
                }
                let key = replay.key(at: first + offset)
                findings.append(
                    finding(files.snapshot.path, key, "stale: the index's replica list lacks a replica in the versions of \(key); remove .ferry/index to rebuild it"))
            }
            start = end
        }
        expected.sort()
        var matched = [UInt64](repeating: 0, count: expected.count / 64 + 1)
        var matchedCount = 0
        /// Marks `fingerprint` seen; `false` when the replay has no such line (left).
        func take(_ fingerprint: Int) -> Bool {
            var low = 0
            var high = expected.count
            while low < high {
                let middle = (low + high) / 2
                if expected[middle] < fingerprint { low = middle + 1 } else { high = middle }
            }
            while low < expected.count && expected[low] == fingerprint {
                let (word, bit) = (low / 64, UInt64(1) << UInt64(low % 64))
                if matched[word] & bit == 0 {
                    matched[word] |= bit
                    matchedCount += 1
                    return true
                }
                low += 1
            }
            return false
        }

        // Each record line must be one of them: the delta's first, then the snapshot's lines
        // it does not replace.
        var mismatched = Set<RecordKey>()
        var replaced = Set<[UInt8]>()
        func check(_ facts: LineFacts, number: Int, bytes: [UInt8], in file: IndexFileText) {
            guard let fields = facts.fields else {
                findings.append(finding(file.path, nil, "unreadable: line \(number) is not a record line; remove .ferry/index to rebuild it"))
                return
            }
            if !facts.hasValidStamp {
                findings.append(finding(file.path, nil, "unreadable: line \(number) has a malformed file stamp; remove .ferry/index to rebuild it"))
            }
            if let fingerprint = facts.fingerprint, take(fingerprint) { return }
            let key = fields.key(bytes)
            if let key, replay.index(of: key) != nil {
                mismatched.insert(key)
                findings.append(finding(file.path, key, "stale: the index's versions of \(key) differ from the journal's; remove .ferry/index to rebuild it"))
            } else {
                let name = key?.description ?? String(decoding: fields.sortKey(bytes), as: UTF8.self)
                findings.append(finding(file.path, key, "stale: the index lists \(name), which the journal never had; remove .ferry/index to rebuild it"))
            }
        }
        do throws(IndexFileText.Unreadable) {
            if let delta = files.delta {
                let renumbering = delta.replicas.starts(with: files.snapshot.replicas) ? nil : (delta.replicas, numbers(files.snapshot.replicas))
                try delta.forEachPieceOfLines { lines, bytes in
                    for (line, facts) in zip(lines, LineFacts.of(lines.map(\.range), in: bytes, renumbering: renumbering)) {
                        check(facts, number: line.number, bytes: bytes, in: delta)
                        if let fields = facts.fields { replaced.insert(Array(fields.sortKey(bytes))) }
                    }
                }
            }
            let snapshot = files.snapshot
            var previous: [UInt8]?
            var reportedOrder = false
            try snapshot.forEachPieceOfLines { lines, bytes in
                for (line, facts) in zip(lines, LineFacts.of(lines.map(\.range), in: bytes, renumbering: nil)) {
                    let sortKey = facts.fields?.sortKey(bytes)
                    if let sortKey, let before = previous, !reportedOrder, !before.lexicographicallyPrecedes(sortKey) {
                        reportedOrder = true
                        findings.append(
                            finding(snapshot.path, nil, "unsorted: line \(line.number) is out of order, so lookups by binary search miss records; remove .ferry/index to rebuild it"))
                    }
                    if let sortKey { previous = Array(sortKey) }
                    if let sortKey, !replaced.isEmpty, replaced.contains(Array(sortKey)) { continue }
                    check(facts, number: line.number, bytes: bytes, in: snapshot)
                }
            }
        } catch {
            return [finding(files.snapshot.path, nil, "unreadable index snapshot (\(error.reason)); opening the store rebuilds it")]
        }
        if matchedCount < expected.count {
            // The replay's lines no file line matched: find their records.
            for index in 0..<replay.count where !replay.slots[index].flags.contains(.unnumbered) {
                let fingerprint = lineFingerprint(replay, at: index)
                var low = 0
                var high = expected.count
                while low < high {
                    let middle = (low + high) / 2
                    if expected[middle] < fingerprint { low = middle + 1 } else { high = middle }
                }
                guard low < expected.count, matched[low / 64] & (UInt64(1) << UInt64(low % 64)) == 0 else { continue }
                let key = replay.key(at: index)
                if !mismatched.contains(key) {
                    findings.append(finding(files.snapshot.path, key, "stale: the index lacks \(key); remove .ferry/index to rebuild it"))
                }
            }
        }
        return findings.sorted { ($0.record?.description ?? "").utf8.lexicographicallyPrecedes(($1.record?.description ?? "").utf8) }
    }

    /// The fingerprint of the index line the replay expects for the record in slot `index`
    /// (see ``RecordLineFields/fingerprintWithoutStamp(_:)``).
    static func lineFingerprint(_ replay: ReplayTable, at index: Int) -> Int {
        let slot = replay.slots[index]
        let key = replay.key(at: index)
        var prefix: [UInt8] = []
        prefix.reserveCapacity(64)
        prefix += key.entity.rawValue.utf8
        prefix.append(9)
        RecordFileName.appendEncoded(key.id, to: &prefix)
        prefix.append(9)
        prefix.appendDecimal(slot.lastSequence)
        return prefix.withUnsafeBytes { RecordLineFields.combine(prefix: $0, versions: slot.versionsHash) }
    }

    /// The header of the file that describes the whole index (the delta's, when there is one)
    /// against the replay.
    private static func headerFindings(_ files: IndexFiles, replay: ReplayTable) -> [VerificationFinding] {
        var findings: [VerificationFinding] = []
        if let unreadable = files.unreadableDelta { findings.append(unreadable) }
        let top = files.delta ?? files.snapshot
        if top.knowledge != replay.knowledge {
            findings.append(finding(top.path, nil, "stale: the index's knowledge vector differs from the journal's; remove .ferry/index to rebuild it"))
        }
        if top.head.latestModification != replay.latestModification {
            findings.append(
                finding(top.path, nil, "stale: the index's latest clock stamp is \(top.head.latestModification), the journal's \(replay.latestModification); remove .ferry/index to rebuild it"))
        }
        let replayLiveCounts = replay.liveCounts
        let replayConflicted = replay.conflicted
        if top.liveCounts != replayLiveCounts {
            let entities = Set(top.liveCounts.keys).union(replayLiveCounts.keys).sorted().filter { top.liveCounts[$0] != replayLiveCounts[$0] }
            let counts = entities.map { "\($0): \(top.liveCounts[$0] ?? 0) in the index, \(replayLiveCounts[$0] ?? 0) in the journal" }
            findings.append(
                finding(top.path, nil, "stale: the index's live record counts differ from the journal's (\(counts.joined(separator: "; "))); remove .ferry/index to rebuild it"))
        }
        for key in top.conflicted.subtracting(replayConflicted) {
            findings.append(finding(top.path, key, "stale: the index lists \(key) as conflicted, but the journal's versions of it agree; remove .ferry/index to rebuild it"))
        }
        for key in replayConflicted.subtracting(top.conflicted) {
            findings.append(finding(top.path, key, "stale: the index does not list \(key) as conflicted, but the journal's versions of it differ; remove .ferry/index to rebuild it"))
        }
        if let delta = files.delta, let total = delta.totalRecords, total != replay.count {
            findings.append(
                finding(delta.path, nil, "stale: the index-delta counts \(total) records, the journal has \(replay.count); remove .ferry/index to rebuild it"))
        }
        return findings
    }

    private static func finding(_ path: String, _ key: RecordKey?, _ message: String) -> VerificationFinding {
        VerificationFinding(kind: .indexMismatch, path: path, record: key, message: message)
    }

    private static func numbers(_ replicas: [ReplicaID]) -> [ReplicaID: Int] {
        Dictionary(replicas.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }
}
