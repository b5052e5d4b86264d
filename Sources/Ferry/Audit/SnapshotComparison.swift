/// Compares the index on disk with the journal's replay at the head it covers, as text:
/// cheaper than decoding 100,000 record lines into an index, and each difference still names
/// its record.
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

    /// The differences, sorted by record (findings about no record first).
    static func findings(_ files: IndexFiles, replay: StoreIndex) -> [VerificationFinding] {
        var findings = headerFindings(files, replay: replay)

        // The lines the replay would write. Ferry numbers a delta's replicas as its snapshot
        // does, then any new ones, so one numbering usually serves both files; otherwise each
        // record is written with the numbering of the file that holds it.
        let snapshotNumbers = numbers(files.snapshot.replicas)
        let deltaNumbers = files.delta.map { numbers($0.replicas) } ?? snapshotNumbers
        let shared = files.delta.map { $0.replicas.starts(with: files.snapshot.replicas) } ?? true
        let keysInDelta = shared
            ? [] : Set(files.delta.map { delta in delta.recordLines.compactMap { RecordLineFields($0, in: delta.bytes)?.key(delta.bytes) } } ?? [])
        let states = Array(replay.records)
        let fingerprints = ParallelWork.map(count: states.count, minimumChunk: 4096) { offset in
            let (key, state) = states[offset]
            var writer = LineWriter()
            return writer.fingerprint(key, state, numbers: shared || keysInDelta.contains(key) ? deltaNumbers : snapshotNumbers)
        }
        // Fingerprint → offset in `states`.
        var expected: [Int: Int] = [:]
        expected.reserveCapacity(states.count)
        for (offset, fingerprint) in fingerprints.enumerated() {
            guard let fingerprint else {
                let key = states[offset].key
                findings.append(
                    finding(files.snapshot.path, key, "stale: the index's replica list lacks a replica in the versions of \(key); remove .ferry/index to rebuild it"))
                continue
            }
            expected[fingerprint] = offset
        }

        // Each record line must be one of them: the delta's first, then the snapshot's lines
        // it does not replace.
        var mismatched = Set<RecordKey>()
        var replaced = Set<ArraySlice<UInt8>>()
        func check(_ facts: LineFacts, number: Int, in file: IndexFileText) {
            let bytes = file.bytes
            guard let fields = facts.fields else {
                findings.append(finding(file.path, nil, "unreadable: line \(number) is not a record line; remove .ferry/index to rebuild it"))
                return
            }
            if !facts.hasValidStamp {
                findings.append(finding(file.path, nil, "unreadable: line \(number) has a malformed file stamp; remove .ferry/index to rebuild it"))
            }
            if expected.removeValue(forKey: facts.fingerprint) != nil { return }
            let key = fields.key(bytes)
            if let key, replay.records[key] != nil {
                mismatched.insert(key)
                findings.append(finding(file.path, key, "stale: the index's versions of \(key) differ from the journal's; remove .ferry/index to rebuild it"))
            } else {
                let name = key?.description ?? String(decoding: fields.sortKey(bytes), as: UTF8.self)
                findings.append(finding(file.path, key, "stale: the index lists \(name), which the journal never had; remove .ferry/index to rebuild it"))
            }
        }
        if let delta = files.delta {
            for (offset, facts) in LineFacts.of(delta).enumerated() {
                check(facts, number: delta.firstRecordLineNumber + offset, in: delta)
                if let fields = facts.fields { replaced.insert(fields.sortKey(delta.bytes)) }
            }
        }
        let snapshot = files.snapshot
        var previous: ArraySlice<UInt8>?
        var reportedOrder = false
        for (offset, facts) in LineFacts.of(snapshot).enumerated() {
            let number = snapshot.firstRecordLineNumber + offset
            let sortKey = facts.fields?.sortKey(snapshot.bytes)
            if let sortKey, let before = previous, !before.lexicographicallyPrecedes(sortKey), !reportedOrder {
                reportedOrder = true
                findings.append(
                    finding(snapshot.path, nil, "unsorted: line \(number) is out of order, so lookups by binary search miss records; remove .ferry/index to rebuild it"))
            }
            previous = sortKey ?? previous
            if let sortKey, !replaced.isEmpty, replaced.contains(sortKey) { continue }
            check(facts, number: number, in: snapshot)
        }
        for offset in expected.values where !mismatched.contains(states[offset].key) {
            let key = states[offset].key
            findings.append(finding(snapshot.path, key, "stale: the index lacks \(key); remove .ferry/index to rebuild it"))
        }
        return findings.sorted { ($0.record?.description ?? "").utf8.lexicographicallyPrecedes(($1.record?.description ?? "").utf8) }
    }

    /// The header of the file that describes the whole index (the delta's, when there is one)
    /// against the replay.
    private static func headerFindings(_ files: IndexFiles, replay: StoreIndex) -> [VerificationFinding] {
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
        if top.liveCounts != replay.liveCounts {
            let entities = Set(top.liveCounts.keys).union(replay.liveCounts.keys).sorted().filter { top.liveCounts[$0] != replay.liveCounts[$0] }
            let counts = entities.map { "\($0): \(top.liveCounts[$0] ?? 0) in the index, \(replay.liveCounts[$0] ?? 0) in the journal" }
            findings.append(
                finding(top.path, nil, "stale: the index's live record counts differ from the journal's (\(counts.joined(separator: "; "))); remove .ferry/index to rebuild it"))
        }
        for key in top.conflicted.subtracting(replay.conflicted) {
            findings.append(finding(top.path, key, "stale: the index lists \(key) as conflicted, but the journal's versions of it agree; remove .ferry/index to rebuild it"))
        }
        for key in replay.conflicted.subtracting(top.conflicted) {
            findings.append(finding(top.path, key, "stale: the index does not list \(key) as conflicted, but the journal's versions of it differ; remove .ferry/index to rebuild it"))
        }
        if let delta = files.delta, let total = delta.totalRecords, total != replay.records.count {
            findings.append(
                finding(delta.path, nil, "stale: the index-delta counts \(total) records, the journal has \(replay.records.count); remove .ferry/index to rebuild it"))
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
