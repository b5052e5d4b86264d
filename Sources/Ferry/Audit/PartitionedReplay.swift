/// The second half of ``StoreVerifier``, after ``JournalScan`` has read the journal into a
/// ``ReplaySpill``: the replay, one partition of records at a time, and the checks that need
/// it. For each partition it replays the entries up to the index's head and compares them with
/// the index's lines of that partition, replays the rest, then checks that partition's record
/// files (read beforehand, in the order they lie on disk, by ``RecordFileCheck``). Memory
/// holds one partition's ``ReplayTable`` (about 80 bytes a record of it), whatever the
/// store's size.
struct PartitionedReplay {
    let layout: StoreLayout
    let scan: JournalScan
    let chain: JournalChainAnalysis.Result
    /// Whether record files are checked (not when the journal was tampered with: its replay
    /// proves nothing about them).
    let checksRecordFiles: Bool
    /// Called as the record files are read, before the replay, with the number read and the
    /// number listed.
    var progress: ((_ done: Int, _ total: Int) -> Void)?
    /// How the record files are read (tests lower the batch and watch the order).
    var fileReading = RecordFileCheck.Reading()

    /// What the replay found.
    struct Outcome {
        /// The index's differences from the replay at its head, sorted by record (findings
        /// about no record first).
        var indexFindings: [VerificationFinding] = []
        /// The record files' differences from the replay, sorted by path.
        var recordFileFindings: [VerificationFinding] = []
        /// The live records at the journal's end.
        var liveRecordCount = 0
        /// The most records one partition's replay held.
        var mostRecordsHeld = 0
    }

    func run() -> Outcome {
        let spill = scan.spill
        let partitioning = spill.partitioning
        var outcome = Outcome()
        let files = scan.indexFiles
        let lineNumbers = files.map(IndexComparison.lineNumbers)
        var lineScan: IndexComparison.LineScan?
        if let files, scan.indexPoint != nil { lineScan = IndexComparison.scanLines(files, partitioning: partitioning) }
        var facts = IndexComparison.ReplayFacts()
        if let point = scan.indexPoint {
            facts.knowledge = point.knowledge
            facts.latestModification = point.latestModification
        }
        var recordIndexFindings: [VerificationFinding] = []

        let recordFiles = RecordFileCheck(layout: layout, scan: scan, chain: chain, reading: fileReading)
        let hasRecordsFolder = FileSystem.isDirectory(layout.records)
        if checksRecordFiles && hasRecordsFolder {
            outcome.recordFileFindings += recordFiles.readRecordFiles(into: spill, progress: progress)
        }
        let expectedRecords = files.map { $0.delta?.totalRecords ?? $0.image.recordCount } ?? 0

        for partition in 0..<partitioning.count {
            var table = ReplayTable(lineNumbers: lineNumbers, expectedCount: expectedRecords / partitioning.count)
            var compared = false
            /// Compares the partition's replay, as it is now, with the index's lines of the partition.
            func compare() {
                compared = true
                facts.recordCount += table.count
                for (entity, count) in table.liveCounts { facts.liveCounts[entity, default: 0] += count }
                facts.conflicted.formUnion(table.conflicted)
                guard let files, let lineScan, lineScan.unreadable == nil else { return }
                let expected = IndexComparison.expectedTotals(table, path: files.image.path)
                recordIndexFindings += expected.findings
                var found = lineScan.totals[partition]
                let unmatchable = found.hasUnmatchable
                found.hasUnmatchable = false
                if unmatchable || found != expected.totals {
                    recordIndexFindings += IndexComparison.recordFindings(
                        files, replay: table, partition: partition, partitioning: partitioning)
                }
            }
            spill.forEachEntry(in: partition) { spilled in
                if let point = scan.indexPoint, !compared, spilled.ordinal >= point.ordinal { compare() }
                apply(spilled, to: &table)
            }
            if scan.indexPoint != nil && !compared { compare() }
            outcome.liveRecordCount += table.liveRecordCount
            outcome.mostRecordsHeld = max(outcome.mostRecordsHeld, table.count)
            if checksRecordFiles && hasRecordsFolder {
                outcome.recordFileFindings += recordFiles.check(table, partition: partition, spill: spill)
            }
            spill.discard(partition)
        }

        if checksRecordFiles && !hasRecordsFolder && outcome.liveRecordCount > 0 {
            outcome.recordFileFindings.append(
                VerificationFinding(
                    kind: .missingRecordFile, path: "records",
                    message: "deleted: the records folder is gone, with the files of \(outcome.liveRecordCount) live records (uncommitted)"))
        }
        outcome.recordFileFindings.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        if let files, let lineScan {
            if let unreadable = lineScan.unreadable {
                outcome.indexFindings = [unreadable]
            } else {
                let findings = IndexComparison.headerFindings(files, replay: facts) + lineScan.findings + recordIndexFindings
                outcome.indexFindings = findings.sorted {
                    ($0.record?.description ?? "").utf8.lexicographicallyPrecedes(($1.record?.description ?? "").utf8)
                }
            }
        }
        return outcome
    }

    /// Replays one entry as the store does, reading the record's current version again from
    /// the journal when the replay needs it in full (a concurrent version).
    private func apply(_ spilled: ReplaySpill.Spilled, to table: inout ReplayTable) {
        let outcome = table.apply(spilled.entry, content: spilled.content, file: spilled.file)
        guard case .needsVersion(let sequence) = outcome else { return }
        let current = scan.version(atSequence: sequence)
            ?? RecordVersion(
                identity: ChangeIdentity(origin: spilled.entry.origin, counter: 0), timestamp: .zero, version: VersionVector(),
                isDelete: false, contentHash: .zero, sequence: sequence)
        _ = table.apply(spilled.entry, content: spilled.content, file: spilled.file, current: current)
    }
}
