/// Compares the index on disk with the journal's replay at the head it covers, as text:
/// cheaper than decoding a million record lines into an index, streamed so that neither side
/// is held as lines, and each difference still names its record.
///
/// The index is the image (`.ferry/index`) plus, when one applies to it, the delta file
/// (`.ferry/index-delta`), whose records replace the image's (format in ``IndexFile``).
/// Each record line, without its file stamp (which the journal cannot know), must be the line
/// the replay would write, with the replica numbering of the file it is in; the image's
/// lines must also be sorted, since the store finds records by binary search. The header's
/// knowledge vector, clock, live counts and conflict list must be the replay's too.
///
/// The replay comes one partition of records at a time (see ``ReplaySpill``), so the index is
/// read once for sums of its lines' fingerprints per partition (``scanLines(_:partitioning:)``);
/// each partition's replay is summed the same way (``expectedTotals(_:path:)``), and only a
/// partition whose sums differ is compared line by line to name its records
/// (``recordFindings(_:replay:partition:partitioning:)``).
enum IndexComparison {
    /// The index files, read before the journal.
    struct IndexFiles: Sendable {
        var image: IndexFileText
        /// The delta file, when it applies to the image.
        var delta: IndexFileText?
        /// A delta file that could not be read.
        var unreadableDelta: VerificationFinding?

        /// The head the index covers: the delta's when there is one.
        var head: StoreHead { delta?.head ?? image.head }

        /// Reads the image and the delta file. A delta written for another image is
        /// ignored, as the store ignores it.
        static func read(_ layout: StoreLayout) -> Result<IndexFiles, IndexFileText.Unreadable> {
            let image: IndexFileText
            do { image = try IndexFileText(reading: layout.index, path: ".ferry/index", level: .image) } catch {
                return .failure(error)
            }
            var files = IndexFiles(image: image)
            guard FileSystem.exists(layout.indexDelta) else { return .success(files) }
            do {
                let delta = try IndexFileText(reading: layout.indexDelta, path: ".ferry/index-delta", level: .delta)
                if let base = delta.baseHead, base.sequence == image.head.sequence, base.hash == image.head.hash,
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
    /// extends the image's as Ferry writes it, else the image's (a delta numbered
    /// otherwise has its lines renumbered as they are read).
    static func lineNumbers(_ files: IndexFiles) -> [ReplicaID: Int] {
        if let delta = files.delta, delta.replicas.starts(with: files.image.replicas) { return numbers(delta.replicas) }
        return numbers(files.image.replicas)
    }

    /// Sums that stand for a multiset of line fingerprints, one per partition of records:
    /// the index's lines and the replay's expected lines match when their sums do (the
    /// fingerprints are seeded per process, so no file can be made to collide).
    struct LineTotals: Sendable, Equatable {
        var count = 0
        var sum: UInt64 = 0
        var mixedSum: UInt64 = 0
        /// A line that can match no expected line (a renumbered line names a replica the
        /// numbering lacks): the partition must be compared line by line.
        var hasUnmatchable = false

        mutating func add(_ fingerprint: Int) {
            let value = UInt64(bitPattern: Int64(fingerprint))
            count += 1
            sum &+= value
            var mixed = value ^ (value >> 31)
            mixed &*= 0x9E37_79B9_7F4A_7C15
            mixed ^= mixed >> 29
            mixedSum &+= mixed
        }
    }

    /// What one pass over the index's lines found: each partition's totals, and the findings
    /// about lines as lines (not record lines, bad stamps, out of order).
    struct LineScan: Sendable {
        var totals: [LineTotals]
        var findings: [VerificationFinding] = []
        /// The index could not be read to its end: this is the only finding about it.
        var unreadable: VerificationFinding?
    }

    /// Reads the index's record lines once, streamed: the delta's, then the image's lines it
    /// does not replace, each added to its record's partition's totals.
    static func scanLines(_ files: IndexFiles, partitioning: ReplayPartitioning) -> LineScan {
        var scan = LineScan(totals: Array(repeating: LineTotals(), count: partitioning.count))
        var replaced = ReplacedKeys()
        func take(_ facts: LineFacts, number: Int, bytes: [UInt8], in file: IndexFileText) {
            guard let fields = facts.fields else {
                scan.findings.append(finding(file.path, nil, "unreadable: line \(number) is not a record line; remove .ferry/index to rebuild it"))
                return
            }
            if !facts.hasValidStamp {
                scan.findings.append(finding(file.path, nil, "unreadable: line \(number) has a malformed file stamp; remove .ferry/index to rebuild it"))
            }
            let partition = partitioning.partition(ofSortKey: fields.sortKey(bytes))
            if let fingerprint = facts.fingerprint { scan.totals[partition].add(fingerprint) } else { scan.totals[partition].hasUnmatchable = true }
        }
        do throws(IndexFileText.Unreadable) {
            if let delta = files.delta {
                let renumbering = renumbering(files)
                try delta.forEachPieceOfLines { lines, bytes in
                    for (line, facts) in zip(lines, LineFacts.of(lines.map(\.range), in: bytes, renumbering: renumbering)) {
                        take(facts, number: line.number, bytes: bytes, in: delta)
                        if let fields = facts.fields { replaced.insert(fields.sortKey(bytes)) }
                    }
                }
            }
            let image = files.image
            var previous: [UInt8]?
            var reportedOrder = false
            try image.forEachPieceOfLines { lines, bytes in
                for (line, facts) in zip(lines, LineFacts.of(lines.map(\.range), in: bytes, renumbering: nil)) {
                    let sortKey = facts.fields?.sortKey(bytes)
                    if let sortKey, let before = previous, !reportedOrder, !before.lexicographicallyPrecedes(sortKey) {
                        reportedOrder = true
                        scan.findings.append(
                            finding(image.path, nil, "unsorted: line \(line.number) is out of order, so lookups by binary search miss records; remove .ferry/index to rebuild it"))
                    }
                    if let sortKey { previous = Array(sortKey) }
                    if let sortKey, replaced.contains(sortKey) { continue }
                    take(facts, number: line.number, bytes: bytes, in: image)
                }
            }
        } catch {
            scan.unreadable = finding(files.image.path, nil, "unreadable index snapshot (\(error.reason)); opening the store rebuilds it")
        }
        return scan
    }

    /// The totals of the lines one partition's replay expects, and a finding for each record
    /// whose versions name a replica the index does not number (no line can match it).
    static func expectedTotals(_ replay: ReplayTable, path: String) -> (totals: LineTotals, findings: [VerificationFinding]) {
        var totals = LineTotals()
        var findings: [VerificationFinding] = []
        forEachExpectedFingerprint(replay) { index, fingerprint in
            if let fingerprint {
                totals.add(fingerprint)
            } else {
                let key = replay.key(at: index)
                findings.append(
                    finding(path, key, "stale: the index's replica list lacks a replica in the versions of \(key); remove .ferry/index to rebuild it"))
            }
        }
        return (totals, findings)
    }

    /// Calls `body` with each record's expected line fingerprint (`nil` for an unnumbered
    /// one), fingerprinted a chunk at a time on the cores.
    private static func forEachExpectedFingerprint(_ replay: ReplayTable, _ body: (Int, Int?) -> Void) {
        var start = 0
        while start < replay.count {
            let end = min(replay.count, start + 65_536)
            let first = start
            let chunk = ParallelWork.map(count: end - first, minimumChunk: 4096) { offset -> Int? in
                replay.slots[first + offset].flags.contains(.unnumbered) ? nil : lineFingerprint(replay, at: first + offset)
            }
            for (offset, fingerprint) in chunk.enumerated() { body(first + offset, fingerprint) }
            start = end
        }
    }

    /// The differences between one partition's replay and the index's lines of that partition,
    /// named by record: read again when the partition's totals differ.
    ///
    /// The replay's expected lines are reduced to a fingerprint each, sorted; the files' lines,
    /// streamed, are looked up in them. Findings about lines as lines are ``scanLines(_:partitioning:)``'s.
    static func recordFindings(
        _ files: IndexFiles, replay: ReplayTable, partition: Int, partitioning: ReplayPartitioning
    ) -> [VerificationFinding] {
        var findings: [VerificationFinding] = []
        var expected: [Int] = []
        expected.reserveCapacity(replay.count)
        forEachExpectedFingerprint(replay) { _, fingerprint in
            if let fingerprint { expected.append(fingerprint) }
        }
        expected.sort()
        var matched = [UInt64](repeating: 0, count: expected.count / 64 + 1)
        var matchedCount = 0
        /// Marks `fingerprint` seen; `false` when the replay has no such line (left).
        func take(_ fingerprint: Int) -> Bool {
            var low = lowerBound(of: fingerprint, in: expected)
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

        // Each record line of the partition must be one of them: the delta's first, then the
        // image's lines it does not replace.
        var mismatched = Set<RecordKey>()
        var replaced = ReplacedKeys()
        func check(_ facts: LineFacts, bytes: [UInt8], in file: IndexFileText) {
            guard let fields = facts.fields, partitioning.partition(ofSortKey: fields.sortKey(bytes)) == partition else { return }
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
                let renumbering = renumbering(files)
                try delta.forEachPieceOfLines { lines, bytes in
                    for facts in LineFacts.of(lines.map(\.range), in: bytes, renumbering: renumbering) {
                        check(facts, bytes: bytes, in: delta)
                        if let fields = facts.fields { replaced.insert(fields.sortKey(bytes)) }
                    }
                }
            }
            try files.image.forEachPieceOfLines { lines, bytes in
                for facts in LineFacts.of(lines.map(\.range), in: bytes, renumbering: nil) {
                    if let sortKey = facts.fields?.sortKey(bytes), replaced.contains(sortKey) { continue }
                    check(facts, bytes: bytes, in: files.image)
                }
            }
        } catch {
            return []  // ``scanLines(_:partitioning:)`` read the whole index and reported it.
        }
        if matchedCount < expected.count {
            // The replay's lines no file line matched: find their records.
            for index in 0..<replay.count where !replay.slots[index].flags.contains(.unnumbered) {
                let low = lowerBound(of: lineFingerprint(replay, at: index), in: expected)
                guard low < expected.count, matched[low / 64] & (UInt64(1) << UInt64(low % 64)) == 0 else { continue }
                let key = replay.key(at: index)
                if !mismatched.contains(key) {
                    findings.append(finding(files.image.path, key, "stale: the index lacks \(key); remove .ferry/index to rebuild it"))
                }
            }
        }
        return findings
    }

    /// The sort keys of the delta's lines, whose image lines they replace: a seeded hash
    /// of each, 8 bytes a key however long (a delta of 64k records held 6 MB as a set of keys).
    struct ReplacedKeys {
        private var hashes: [Int] = []
        private var sorted = true

        mutating func insert(_ sortKey: ArraySlice<UInt8>) {
            let hash = Self.hash(sortKey)
            if let last = hashes.last, last > hash { sorted = false }
            hashes.append(hash)
        }

        /// Whether `sortKey` is one of the delta's (a false match needs a collision of a
        /// hash seeded per process).
        mutating func contains(_ sortKey: ArraySlice<UInt8>) -> Bool {
            guard !hashes.isEmpty else { return false }
            if !sorted {
                hashes.sort()
                sorted = true
            }
            let hash = Self.hash(sortKey)
            let low = lowerBound(of: hash, in: hashes)
            return low < hashes.count && hashes[low] == hash
        }

        private static func hash(_ sortKey: ArraySlice<UInt8>) -> Int {
            var hasher = Hasher()
            sortKey.withUnsafeBytes { hasher.combine(bytes: $0) }
            return hasher.finalize()
        }
    }

    /// The first index of `sorted` whose value is not below `value` (`sorted.count` when none).
    static func lowerBound(of value: Int, in sorted: [Int]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// A delta numbered otherwise than the image has its lines renumbered as they are read.
    private static func renumbering(_ files: IndexFiles) -> (replicas: [ReplicaID], numbers: [ReplicaID: Int])? {
        guard let delta = files.delta, !delta.replicas.starts(with: files.image.replicas) else { return nil }
        return (delta.replicas, numbers(files.image.replicas))
    }

    /// The fingerprint of the index line the replay expects for the record in slot `index`
    /// (see ``RecordLineFields/fingerprintWithoutStamp(_:)``).
    static func lineFingerprint(_ replay: ReplayTable, at index: Int) -> Int {
        let slot = replay.slots[index]
        let key = replay.key(at: index)
        var prefix: [UInt8] = []
        prefix.reserveCapacity(64)
        IndexRecordLine.appendPrefix(key, lastSequence: slot.lastSequence, to: &prefix)
        return prefix.withUnsafeBytes { RecordLineFields.combine(prefix: $0, versions: slot.versionsHash) }
    }

    /// What the whole replay held at the index's head, summed over its partitions, for the
    /// index header's check.
    struct ReplayFacts: Sendable {
        var knowledge = VersionVector()
        var latestModification = HybridTimestamp.zero
        var liveCounts: [EntityName: Int] = [:]
        var conflicted = Set<RecordKey>()
        var recordCount = 0
    }

    /// The header of the file that describes the whole index (the delta's, when there is one)
    /// against the replay.
    static func headerFindings(_ files: IndexFiles, replay: ReplayFacts) -> [VerificationFinding] {
        var findings: [VerificationFinding] = []
        if let unreadable = files.unreadableDelta { findings.append(unreadable) }
        let top = files.delta ?? files.image
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
        if let delta = files.delta, let total = delta.totalRecords, total != replay.recordCount {
            findings.append(
                finding(delta.path, nil, "stale: the index-delta counts \(total) records, the journal has \(replay.recordCount); remove .ferry/index to rebuild it"))
        }
        return findings
    }

    static func finding(_ path: String, _ key: RecordKey?, _ message: String) -> VerificationFinding {
        VerificationFinding(kind: .indexMismatch, path: path, record: key, message: message)
    }

    private static func numbers(_ replicas: [ReplicaID]) -> [ReplicaID: Int] {
        Dictionary(replicas.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }
}
