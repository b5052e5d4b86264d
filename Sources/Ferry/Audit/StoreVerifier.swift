/// Checks a store from its files alone, without opening it (so a damaged store can be
/// checked, and nothing is repaired or written): the journal's hash chain and sequence, that
/// the index (its image and delta) and the peers' checkpoints agree with it, and that every record file holds
/// what replaying the journal gives.
///
/// ```swift
/// let report = try StoreVerifier(path: "./data").verify()
/// for finding in report.findings { print(finding) }
/// // journal/00000000000000000001.jsonl:7: tampering: edited: the line's content does not match its hash (seq 7)
/// // records/Product/lamp.json: uncommitted edit (run ferry commit): …
/// ```
///
/// Findings tell tampering with the journal (a flipped byte, a removed, inserted, reordered or
/// rewritten line, a truncated or missing segment) apart from an uncommitted hand edit of a
/// record file, a write a crash interrupted, and a stale index. Record files are compared only
/// when the journal is intact: a damaged journal's replay proves nothing about them.
///
/// The journal is read once, one segment in memory at a time; each line is parsed once, its
/// hash checked on its bytes, and the document's content hash taken from the line's bytes, so
/// nothing is serialized again except each live record's expected file. Its entries are then
/// replayed one partition of records at a time from temporary files (``ReplaySpill``), so
/// memory stays flat however many records the store holds.
public struct StoreVerifier: Sendable {
    /// The store's paths.
    public let layout: StoreLayout
    /// How long to wait for a writer's lock, in seconds.
    public var lockTimeout: Double
    /// The entry count at which the journal starts a new segment (tests lower it to make
    /// small multi-segment journals).
    var segmentEntryLimit = Journal.segmentEntryLimit
    /// The records the replay holds at a time, about (see ``ReplaySpill``; tests lower it to
    /// replay small stores in several partitions).
    var recordsPerPartition = 32_768

    /// - Parameters:
    ///   - path: The store directory.
    ///   - lockTimeout: How long to wait when another process holds the store's lock.
    public init(path: String, lockTimeout: Double = 10) {
        layout = StoreLayout(root: path)
        self.lockTimeout = lockTimeout
    }

    /// Runs every check.
    ///
    /// - Parameter progress: Called as the journal is read (in bytes) and as the record files
    ///   are checked (in records).
    /// - Returns: The report; ``VerificationReport/isClean`` when nothing was found.
    /// - Throws: ``AuditError/store(_:)`` with ``StoreError/notAStore(path:)`` when the
    ///   directory has neither `ferry.json` nor `journal/`, or ``StoreError/locked(path:holder:waitedSeconds:)``.
    public func verify(progress: WorkProgressHandler? = nil) throws(AuditError) -> VerificationReport {
        guard FileSystem.exists(layout.manifest) || FileSystem.isDirectory(layout.journal) else {
            throw .store(.notAStore(path: layout.root))
        }
        // Hold the lock so no writer appends while the journal is read.
        var lock: StoreLock?
        if FileSystem.isDirectory(layout.engine) {
            lock = try? StoreLock(path: layout.lock, storePath: layout.root)
            do { try lock?.acquire(timeout: lockTimeout) } catch { throw .store(error) }
        }
        defer { lock?.release() }

        var report = VerificationReport()
        if FileSystem.exists(layout.snapshotJoins) {
            do {
                let bytes = try FileSystem.readFile(layout.snapshotJoins, limit: 16 << 20)
                report.snapshotJoins = try SnapshotJoins(json: try JSONParser.parse(bytes, options: .init(maximumDepth: 8, maximumByteCount: 16 << 20)))
            } catch {
                report.snapshotJoinsProblem = ".ferry/base.json cannot be read: \(error)"
            }
        }
        let checkpoints = Self.checkpoints(layout)
        let anchors = Set(checkpoints.map(\.checkpoint.localPosition))
        // The archive (a compacted journal's history) is checked on another thread while the
        // live journal is scanned: its chain is one of its own, joined at `start.json`.
        let archiveCheck = ArchiveVerifier(layout: layout)
        let startRead = archiveCheck.readStart()
        let archiveWork = startRead.start.map { _ in BackgroundWork { archiveCheck.verify(startRead) } }
        let firstSequence = startRead.start?.first ?? 1
        // A first scan keeps nothing per line; a journal that is not one chain is read again,
        // keeping every line, for the analysis to explain the damage.
        var journalProgress: (@Sendable (Int, Int) -> Void)?
        if let progress {
            journalProgress = { done, total in progress(WorkProgress(task: "journal", done: done, total: total, unit: .bytes)) }
        }
        var scan = JournalScan(layout: layout, start: startRead.start, anchorSequences: anchors)
        scan.progress = journalProgress
        scan.recordsPerPartition = recordsPerPartition
        scan.run()
        if scan.brokeChain {
            scan = JournalScan(layout: layout, start: startRead.start, retainsLines: true, anchorSequences: anchors)
            scan.progress = journalProgress
            scan.recordsPerPartition = recordsPerPartition
            scan.run()
        }
        let chain: JournalChainAnalysis.Result
        if scan.retainsLines {
            let analysis = JournalChainAnalysis(
                segments: scan.segments, lines: scan.lines, computedHashes: scan.computedHashes,
                malformedReasons: scan.malformedReasons, segmentEntryLimit: segmentEntryLimit,
                firstSequence: firstSequence, firstPrevious: startRead.start?.previous ?? .zero)
            chain = analysis.analyze()
        } else {
            chain = JournalChainAnalysis.Result(
                findings: [], isContiguous: true, genuine: [:], lastSequence: firstSequence - 1 + UInt64(scan.lineCount),
                firstSequence: firstSequence)
        }
        let archive = archiveWork?.value() ?? startRead
        report.archive = archive.summary
        report.findings += archive.findings + scan.journalFindings
        report.findings += chain.findings
        report.findings += anchorFindings(chain: chain, scan: scan, checkpoints: checkpoints)
        report.findings += scan.indexFindings
        let book = (try? ReplicaKeyBook.read(at: layout.keyBook)) ?? ReplicaKeyBook()
        report.findings += scan.signatures.findings(book: book) { sequence in
            guard let segment = scan.segments.last(where: { $0.firstSequence <= sequence }) else { return ("journal", nil) }
            return ("journal/\(segment.name)", Int(sequence - segment.firstSequence) + 1)
        }
        report.unsignedChanges = scan.signatures.unsignedChanges(book: book)
        report.checkedIndex = scan.comparedIndex
        report.entryCount = scan.lineCount
        report.segmentCount = scan.segments.count
        let checksRecordFiles = !report.hasTampering
        var replay = PartitionedReplay(layout: layout, scan: scan, chain: chain, checksRecordFiles: checksRecordFiles)
        if let progress {
            replay.progress = { done, total in
                progress(WorkProgress(task: "record files", done: done, total: total, unit: .items("records")))
            }
        }
        let outcome = replay.run()
        report.findings += outcome.indexFindings + outcome.recordFileFindings
        report.recordCount = outcome.liveRecordCount
        report.checkedRecords = checksRecordFiles
        return report
    }

    /// Positions other files recorded (the index head, each peer's checkpoint) must still hold
    /// the same entry: a journal cut at its end, or rebuilt with recomputed hashes, fails this.
    private func anchorFindings(
        chain: JournalChainAnalysis.Result, scan: JournalScan, checkpoints: [(checkpoint: SyncCheckpoint, relativePath: String)]
    ) -> [VerificationFinding] {
        var anchors: [(path: String, what: String, sequence: UInt64, hash: SHA256Digest)] = []
        if let head = scan.indexHead, head.sequence > 0 {
            anchors.append((scan.indexHeadPath, "the index", head.sequence, head.hash))
        }
        for (checkpoint, path) in checkpoints where checkpoint.localPosition > 0 {
            anchors.append((
                path, "the checkpoint for peer \(checkpoint.peerName ?? checkpoint.peer.short)",
                checkpoint.localPosition, checkpoint.localHash))
        }
        var findings: [VerificationFinding] = []
        for anchor in anchors {
            if anchor.sequence > chain.lastSequence {
                findings.append(
                    VerificationFinding(
                        kind: .truncatedJournal, path: anchor.path,
                        message: "truncated: \(anchor.what) covers seq \(anchor.sequence) but the journal ends at seq \(chain.lastSequence); entries were removed from its end"))
            } else if let index = chain.lineIndex(of: anchor.sequence, lineCount: scan.lineCount),
                let hash = scan.hash(ofSequence: anchor.sequence, lineIndex: index), hash != anchor.hash
            {
                let place = scan.place(ofLineIndex: index)
                findings.append(
                    VerificationFinding(
                        kind: .rewrittenJournal, path: "journal/" + place.segment, line: place.number,
                        message: "rewritten: \(anchor.what) (\(anchor.path)) recorded another hash for seq \(anchor.sequence); the chain up to here was rebuilt"))
            }
        }
        return findings
    }

    /// The checkpoints under `.ferry/peers/` that can be read, in either layout (verify does
    /// not open, so does not migrate, the store), with their paths relative to the store.
    static func checkpoints(_ layout: StoreLayout) -> [(checkpoint: SyncCheckpoint, relativePath: String)] {
        ((try? PeerMemory.checkpointFiles(in: layout)) ?? []).compactMap { file in
            guard let bytes = try? FileSystem.readFile(layout.root + "/" + file.relativePath, limit: 1 << 16),
                let json = try? JSONParser.parse(bytes), let checkpoint = SyncCheckpoint(json: json)
            else { return nil }
            return (checkpoint, file.relativePath)
        }
    }
}

extension Store {
    /// Verifies the store at `path` from its files (see ``StoreVerifier``); the store need not
    /// open.
    ///
    /// ```swift
    /// let report = try Store.verify(at: "./data")
    /// ```
    public static func verify(
        at path: String, lockTimeout: Double = 10, progress: WorkProgressHandler? = nil
    ) throws(AuditError) -> VerificationReport {
        try StoreVerifier(path: path, lockTimeout: lockTimeout).verify(progress: progress)
    }
}
