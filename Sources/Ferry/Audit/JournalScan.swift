import Dispatch
import Foundation

/// One pass over a store's journal files for ``StoreVerifier``: every line parsed once and its
/// hash checked on its bytes, and the entries sorted by record into the partitions of a
/// ``ReplaySpill``, for ``PartitionedReplay`` to replay one partition at a time. The scan notes
/// the point of the replay where the index image's head is (``indexPoint``), so that each
/// partition is compared with the index there.
///
/// Reads one segment file at a time. Parsing and hashing a segment's lines is spread over the
/// cores, a segment ahead of the replay, which is sequential. A first scan keeps nothing per
/// line: it checks the chain as it goes (line *k* has `seq` *k* and chains onto line *k − 1*)
/// and stops at the first line that does not, so that ``StoreVerifier`` scans again keeping
/// every line's place, sequence and hashes for ``JournalChainAnalysis`` to explain the damage.
struct JournalScan: Sendable {
    let layout: StoreLayout
    /// Whether every line's place and hashes are kept (for a journal that is not one chain).
    let retainsLines: Bool
    /// The sequences whose entries' hashes other files recorded (see ``anchorHashes``).
    private(set) var anchorSequences: Set<UInt64>

    var segments: [JournalChainAnalysis.Segment] = []
    /// Every line, when ``retainsLines``.
    var lines: [JournalChainAnalysis.Line] = []
    /// Byte offset of each line in its segment, to read an entry again in rare cases (when
    /// ``retainsLines``).
    var lineOffsets: [Int] = []
    var computedHashes: [Int: SHA256Digest] = [:]
    var malformedReasons: [Int: String] = [:]
    /// Called after each segment with the journal bytes read so far and in all.
    var progress: (@Sendable (_ done: Int, _ total: Int) -> Void)?
    /// The lines read (every line, or up to the first that broke the chain).
    private(set) var lineCount = 0
    /// Set by a scan that keeps no lines when a line broke the chain: it stopped there, and a
    /// scan keeping every line must explain the damage.
    private(set) var brokeChain = false
    /// For each of ``anchorSequences``, the hash of the line with that sequence (the last one
    /// read, in a scan that keeps no lines, where there is only one).
    private(set) var anchorHashes: [UInt64: SHA256Digest] = [:]
    /// Problems found while reading: unreadable files, odd segment names, a torn tail.
    var journalFindings: [VerificationFinding] = []
    /// The index image's problems and its differences from the replay.
    var indexFindings: [VerificationFinding] = []
    /// Where the index says the journal ended (the delta file's head when one applies to the
    /// image), when it could be read, and that file's path.
    private(set) var indexHead: StoreHead?
    private(set) var indexHeadPath = ".ferry/index"
    /// The journal's entries, by record, in replay order (file order).
    private(set) var spill = ReplaySpill(partitions: 1)
    /// The records a partition of ``spill`` should hold, about (tests lower it).
    var recordsPerPartition = 32_768
    /// Where the replay reaches the index's head, when it does: the index is compared there.
    private(set) var indexPoint: IndexPoint?
    var comparedIndex: Bool { indexPoint != nil }
    /// For each replica, the counter of its latest change (archived ones included).
    private(set) var knowledge = VersionVector()
    /// The highest clock stamp replayed.
    private(set) var latestModification = HybridTimestamp.zero
    /// Each origin's last change and last signed change, for the signature check.
    private(set) var signatures = SignatureLedger()

    /// The replay's state at the index's head, as far as the scan knows it.
    struct IndexPoint: Sendable {
        /// The entries replayed before the comparison (see ``ReplaySpill/Spilled/ordinal``).
        var ordinal: Int
        var knowledge: VersionVector
        var latestModification: HybridTimestamp
    }

    /// The index files, when they could be read.
    private(set) var indexFiles: IndexComparison.IndexFiles?
    /// Whether every line so far continued the chain (then file order is journal order).
    private var orderly = true
    private var lastSequence: UInt64 = 0
    private var lastHash = SHA256Digest.zero
    /// Line starts of segments read again, for ``reread(lineIndex:)``.
    private let rereads = RereadCache()

    /// A compacted journal's start (see ``JournalStart``): its kept entries are replayed
    /// before the segments, which start at its `first` sequence.
    var start: JournalStart?

    /// - Parameters:
    ///   - start: A compacted journal's start, when there is one.
    ///   - retainsLines: Keep every line's place and hashes (see ``brokeChain``).
    ///   - anchorSequences: Sequences whose hashes to note in ``anchorHashes``.
    init(layout: StoreLayout, start: JournalStart? = nil, retainsLines: Bool = false, anchorSequences: Set<UInt64> = []) {
        self.layout = layout
        self.retainsLines = retainsLines
        self.anchorSequences = anchorSequences
        self.start = start
        if let start {
            lastSequence = start.first - 1
            lastHash = start.previous
        }
    }

    mutating func run() {
        if FileSystem.exists(layout.index) {
            switch IndexComparison.IndexFiles.read(layout) {
            case .success(let files):
                indexFiles = files
                indexHead = files.head
                indexHeadPath = files.delta?.path ?? files.image.path
                anchorSequences.insert(files.head.sequence)
            case .failure(let unreadable):
                indexFindings.append(
                    VerificationFinding(
                        kind: .indexMismatch, path: ".ferry/index",
                        message: "unreadable index snapshot (\(unreadable.reason)); opening the store rebuilds it"))
            }
        }
        spill = ReplaySpill(partitions: partitionCount())
        if indexHead?.sequence == 0 { compareIndex() }
        if let start {
            replayKept(start)
            if let head = indexHead, head.sequence == lastSequence, head.hash == lastHash { compareIndex() }
        }
        readSegments()
    }

    /// The records expected, from the index, else from the journal's size (an entry takes a
    /// few hundred bytes), over the records a partition should hold.
    private func partitionCount() -> Int {
        let expected: Int
        if let indexFiles {
            expected = indexFiles.delta?.totalRecords ?? indexFiles.image.recordCount
        } else {
            let files = (try? FileSystem.contents(ofDirectory: layout.journal)) ?? []
            let bytes = files.filter { $0.name.hasSuffix(".jsonl") }.reduce(0) { total, file in
                total + Int((try? FileSystem.status(layout.journal + "/" + file.name))??.size ?? 0)
            }
            expected = bytes / 256
        }
        let perPartition = max(1, recordsPerPartition)
        return max(1, (expected + perPartition - 1) / perPartition)
    }

    /// Notes that the index is compared with the replay as it is now (at the index's head).
    private mutating func compareIndex() {
        guard indexFiles != nil, indexPoint == nil else { return }
        indexPoint = IndexPoint(ordinal: spill.entryCount, knowledge: knowledge, latestModification: latestModification)
    }

    private mutating func readSegments() {
        let files: [FileSystem.DirectoryEntry]
        do { files = try FileSystem.contents(ofDirectory: layout.journal) } catch {
            journalFindings.append(
                VerificationFinding(kind: .missingSegment, path: "journal", message: "missing: the journal folder cannot be read (\(error))"))
            return
        }
        var found: [JournalSegment] = []
        for file in files where file.name.hasSuffix(".jsonl") {
            if let segment = JournalSegment(fileName: file.name) {
                found.append(segment)
            } else {
                journalFindings.append(
                    VerificationFinding(
                        kind: .misnamedSegment, path: "journal/" + file.name,
                        message: "renamed: not a segment name (20 digits of its first seq, then .jsonl); the store ignores it"))
            }
        }
        found.sort { $0.firstSequence < $1.firstSequence }
        // Segments before a compacted journal's start were archived (a compaction stopped before deleting them).
        if let start { found.removeAll { $0.firstSequence < start.first } }
        var sizes: [Int] = []
        if progress != nil {
            sizes = found.map { segment in Int((try? FileSystem.status(layout.journal + "/" + segment.name))??.size ?? 0) }
        }
        let totalBytes = sizes.reduce(0, +)
        var doneBytes = 0
        // Pipelined: while the lines of one segment are replayed here, the next segment is read,
        // parsed and hashed on the other cores.
        let directory = layout.journal
        func prepare(_ index: Int) -> BackgroundWork<PreparedSegment> {
            let segment = found[index]
            let isLast = index == found.count - 1
            return BackgroundWork { PreparedSegment(segment, directory: directory, isLast: isLast) }
        }
        var next = found.isEmpty ? nil : prepare(0)
        for index in found.indices {
            guard let prepared = next?.value() else { break }
            next = index + 1 < found.count ? prepare(index + 1) : nil
            absorb(prepared, index: index, isLast: index == found.count - 1)
            if let progress {
                doneBytes += index < sizes.count ? sizes[index] : 0
                progress(doneBytes, totalBytes)
            }
            if brokeChain {
                _ = next?.value()
                return
            }
        }
    }

    /// One segment read, split into lines and its lines parsed and hashed: everything but the
    /// replay, which must go in order.
    private struct PreparedSegment: Sendable {
        var segment: JournalSegment
        var byteCount = 0
        var lineStarts: [Int] = []
        var decoded: [DecodedLine] = []
        var endsMidLine = false
        var findings: [VerificationFinding] = []

        init(_ segment: JournalSegment, directory: String, isLast: Bool) {
            self.segment = segment
            let path = "journal/" + segment.name
            let bytes: [UInt8]
            do { bytes = try FileSystem.readFile(directory + "/" + segment.name) } catch {
                findings.append(VerificationFinding(kind: .unreadableFile, path: path, message: "unreadable: \(error)"))
                return
            }
            byteCount = bytes.count
            var ends: [Int] = []
            ends.reserveCapacity(Journal.segmentEntryLimit)
            var complete = 0
            var torn: VerificationFinding?
            var endsMidLine = false
            bytes.withUnsafeBytes { raw in
                for offset in 0..<raw.count where raw[offset] == UInt8(ascii: "\n") { ends.append(offset) }
                complete = ends.count
                if isLast {
                    // A crash can leave NUL-filled lines at the end (space allocated, data never
                    // written) and a partial last line: both are cut off when the store opens.
                    while complete > 0 {
                        let start = complete >= 2 ? ends[complete - 2] + 1 : 0
                        let line = UnsafeRawBufferPointer(rebasing: raw[start..<ends[complete - 1]])
                        guard !line.isEmpty, line.allSatisfy({ $0 == 0 }) else { break }
                        complete -= 1
                    }
                    let usedEnd = complete > 0 ? ends[complete - 1] + 1 : 0
                    if usedEnd < raw.count {
                        torn = VerificationFinding(
                            kind: .tornTail, path: path, line: complete + 1,
                            message: "torn: \(raw.count - usedEnd) bytes after the last complete line, left by an interrupted write; opening the store cuts them off")
                    }
                } else if let last = ends.last, last + 1 < raw.count {
                    endsMidLine = true
                } else if ends.isEmpty && raw.count > 0 {
                    endsMidLine = true
                }
            }
            if let torn { findings.append(torn) }
            self.endsMidLine = endsMidLine
            let lineEnds = Array(ends.prefix(complete))
            lineStarts = lineEnds.indices.map { $0 == 0 ? 0 : lineEnds[$0 - 1] + 1 }
            decoded = ParallelWork.map(count: lineEnds.count) { number in
                let start = number == 0 ? 0 : lineEnds[number - 1] + 1
                return bytes.withUnsafeBytes { raw in
                    DecodedLine(UnsafeRawBufferPointer(rebasing: raw[start..<lineEnds[number]]))
                }
            }
        }
    }

    /// Replays a prepared segment's lines, in order. A scan that keeps no lines checks the
    /// segment as ``JournalChainAnalysis`` would find it sound, and stops when it is not.
    private mutating func absorb(_ prepared: PreparedSegment, index: Int, isLast: Bool) {
        journalFindings += prepared.findings
        let segment = JournalChainAnalysis.Segment(
            name: prepared.segment.name, firstSequence: prepared.segment.firstSequence, lineCount: prepared.decoded.count,
            byteCount: prepared.byteCount, endsMidLine: prepared.endsMidLine)
        if !retainsLines {
            let expected = (start?.first ?? 1) + UInt64(lineCount)
            let startsRight = segment.lineCount == 0 ? isLast && segment.firstSequence == expected : segment.firstSequence == expected
            guard startsRight, !segment.endsMidLine || isLast else {
                brokeChain = true
                return
            }
        }
        // Listed before its lines are replayed, so that an entry of it can be read again.
        segments.append(segment)
        for (number, line) in prepared.decoded.enumerated() {
            record(line, segment: index, number: number + 1, offset: prepared.lineStarts[number])
            if brokeChain { return }
        }
    }

    /// A line parsed and hashed, before it is replayed: the part done in parallel. A put's
    /// document is reduced to the hashes replay needs (its content hash and the fingerprint of
    /// its record file's content), so the document itself is freed on the worker that parsed it.
    private enum DecodedLine: Sendable {
        case malformed(String)
        case entry(JournalEntry, Hashes)

        struct Hashes: Sendable {
            var problem: JournalChainAnalysis.Problem?
            /// What the line's content hashes to, when it is not its `hash`.
            var computed: SHA256Digest?
            var content: SHA256Digest = .zero
            var file: FileFingerprint?
        }

        init(_ line: UnsafeRawBufferPointer) {
            var entry: JournalEntry
            if let fast = CanonicalEntryDecoder.decode(line) {
                entry = fast
            } else {
                do { entry = try JournalEntry.decode(line: line) } catch {
                    self = .malformed(error.reason)
                    return
                }
            }
            var hashes = Hashes()
            var canonicalDocument: UnsafeRawBufferPointer?
            if let member = CanonicalJournalLine.hashMemberStart(line),
                CanonicalJournalLine.hashWithoutHashMember(line, memberStart: member) == entry.hash
            {
                if entry.change.operation.document != nil,
                    let range = CanonicalJournalLine.documentRange(line, memberStart: member, entity: entry.change.key.entity)
                {
                    canonicalDocument = UnsafeRawBufferPointer(rebasing: line[range])
                }
            } else {
                let computed = entry.computedHash()
                if computed == entry.hash {
                    hashes.problem = .reformatted
                } else {
                    hashes.problem = .edited
                    hashes.computed = computed
                }
            }
            if let document = entry.change.operation.document {
                // The record file is the document's pretty form: canonical bytes plus whitespace
                // (see ``FileFingerprint``), so the canonical bytes serve for both hashes.
                if let canonicalDocument {
                    hashes.content = SHA256.hash(canonicalDocument)
                    hashes.file = FileFingerprint(canonicalDocument)
                } else {
                    let canonical = document.canonicalBytes()
                    hashes.content = SHA256.hash(canonical)
                    hashes.file = canonical.withUnsafeBytes { FileFingerprint($0) }
                }
                entry.change.operation = .put(.object([:]))
            }
            self = .entry(entry, hashes)
        }
    }

    private mutating func record(_ decoded: DecodedLine, segment: Int, number: Int, offset: Int) {
        let lineIndex = lineCount
        switch decoded {
        case .malformed(let reason):
            guard retainsLines else {
                brokeChain = true
                return
            }
            lineOffsets.append(offset)
            malformedReasons[lineIndex] = reason
            lines.append(.init(segment: Int32(segment), number: Int32(number), sequence: 0, previousHash: .zero, hash: .zero, problem: .malformed))
            orderly = false
        case .entry(let entry, let hashes):
            let problem = hashes.problem
            let continues = problem == nil && entry.sequence == lastSequence + 1 && entry.previousHash == lastHash
            if retainsLines {
                lineOffsets.append(offset)
                if let computed = hashes.computed { computedHashes[lineIndex] = computed }
                lines.append(
                    .init(
                        segment: Int32(segment), number: Int32(number), sequence: entry.sequence, previousHash: entry.previousHash,
                        hash: entry.hash, problem: problem))
            } else if !continues {
                brokeChain = true
                return
            }
            orderly = orderly && continues
            lastSequence = entry.sequence
            lastHash = entry.hash
            if anchorSequences.contains(entry.sequence) { anchorHashes[entry.sequence] = entry.hash }
            apply(entry, hashes: hashes)
            if orderly, let head = indexHead, entry.sequence == head.sequence, entry.hash == head.hash {
                compareIndex()
            }
        }
        lineCount += 1
    }

    /// Replays a compacted journal's kept entries (each checked by ``ArchiveVerifier``).
    private mutating func replayKept(_ start: JournalStart) {
        let folder = layout.journal + "/" + start.keptFolder
        let files = ((try? FileSystem.contents(ofDirectory: folder)) ?? []).compactMap { JournalSegment(fileName: $0.name) }
        for file in files.sorted(by: { $0.firstSequence < $1.firstSequence }) {
            guard let bytes = try? FileSystem.readFile(folder + "/" + file.name) else { continue }
            let loaded = SegmentCache(segmentIndex: -1, segmentCount: 0, bytes: bytes)
            for line in loaded.lineStarts.indices {
                if case .entry(let entry, let hashes) = loaded.withLine(line, { DecodedLine($0) }) { apply(entry, hashes: hashes) }
            }
        }
        // The store holds every archived change, as its index says.
        for (origin, counter) in start.frontier.knowledge.sortedCounters where counter > knowledge[origin] { knowledge[origin] = counter }
    }

    /// A kept entry's version (a compacted journal's entries before its start), read again
    /// from the kept folder: rare, only for a record with concurrent versions.
    private func keptVersion(atSequence sequence: UInt64) -> RecordVersion? {
        guard let start, sequence < start.first else { return nil }
        let folder = layout.journal + "/" + start.keptFolder
        let files = ((try? FileSystem.contents(ofDirectory: folder)) ?? []).compactMap { JournalSegment(fileName: $0.name) }
        guard let file = files.filter({ $0.firstSequence <= sequence }).max(by: { $0.firstSequence < $1.firstSequence }),
            let bytes = try? FileSystem.readFile(folder + "/" + file.name)
        else { return nil }
        let loaded = SegmentCache(segmentIndex: -1, segmentCount: 0, bytes: bytes)
        for line in loaded.lineStarts.indices {
            guard case .entry(let entry, _) = loaded.withLine(line, { DecodedLine($0) }), entry.sequence == sequence else { continue }
            let change = entry.change
            return RecordVersion(
                identity: change.identity, timestamp: change.timestamp, version: change.version, isDelete: change.isDelete,
                contentHash: change.operation.document.map { SHA256.hash($0.canonicalBytes()) } ?? .zero, sequence: sequence)
        }
        return nil
    }

    /// Adds one entry to the replay, in order.
    private mutating func apply(_ entry: JournalEntry, hashes: DecodedLine.Hashes) {
        spill.add(ReplayTable.Entry(entry), content: hashes.content, file: hashes.file)
        signatures.add(entry)
        let change = entry.change
        if knowledge[change.origin] < change.counter { knowledge[change.origin] = change.counter }
        if change.timestamp > latestModification { latestModification = change.timestamp }
    }

    /// The version the entry with `sequence` made, read again from its segment.
    func version(atSequence sequence: UInt64) -> RecordVersion? {
        if let start, sequence < start.first { return keptVersion(atSequence: sequence) }
        let first = start?.first ?? 1
        let lineIndex: Int?
        if retainsLines {
            lineIndex = lines.lastIndex { $0.sequence == sequence && $0.problem == nil }
        } else {
            lineIndex = sequence >= first && sequence - first < UInt64(lineCount) ? Int(sequence - first) : nil
        }
        guard let lineIndex, let entry = reread(lineIndex: lineIndex), entry.sequence == sequence else { return nil }
        let change = entry.change
        return RecordVersion(
            identity: change.identity, timestamp: change.timestamp, version: change.version, isDelete: change.isDelete,
            contentHash: change.operation.document.map { SHA256.hash($0.canonicalBytes()) } ?? .zero, sequence: sequence)
    }

    /// The entry on line `lineIndex`, read again from its segment (for rare checks).
    func reread(lineIndex: Int) -> JournalEntry? {
        let segmentIndex: Int
        let start: Int
        let end: Int
        if retainsLines {
            guard lineIndex < lines.count else { return nil }
            let line = lines[lineIndex]
            segmentIndex = Int(line.segment)
            start = lineOffsets[lineIndex]
            end = lineIndex + 1 < lines.count && lines[lineIndex + 1].segment == line.segment
                ? lineOffsets[lineIndex + 1] - 1 : segments[segmentIndex].byteCount
        } else {
            // Lines are 1, 2, 3, … in segment order: find the segment, then the line in it.
            var first = 0
            var found: Int?
            for (index, segment) in segments.enumerated() {
                if lineIndex < first + segment.lineCount {
                    found = index
                    break
                }
                first += segment.lineCount
            }
            guard let found, let starts = rereads.lineStarts(of: found, path: layout.journal + "/" + segments[found].name) else { return nil }
            let number = lineIndex - first
            guard number < starts.count else { return nil }
            segmentIndex = found
            start = starts[number]
            end = number + 1 < starts.count ? starts[number + 1] - 1 : segments[found].byteCount
        }
        let segment = segments[segmentIndex]
        guard let file = try? FileDescriptor.open(layout.journal + "/" + segment.name, .readOnly) else { return nil }
        defer { file.close() }
        guard end > start, let bytes = try? file.read(at: Int64(start), count: end - start) else { return nil }
        let content = bytes.prefix { $0 != UInt8(ascii: "\n") }
        return Array(content).withUnsafeBytes { try? JournalEntry.decode(line: $0) }
    }

    /// The segment file name and line number (from 1) of line `lineIndex`.
    func place(ofLineIndex lineIndex: Int) -> (segment: String, number: Int) {
        if retainsLines {
            let line = lines[lineIndex]
            return (segments[Int(line.segment)].name, Int(line.number))
        }
        var first = 0
        for segment in segments {
            if lineIndex < first + segment.lineCount { return (segment.name, lineIndex - first + 1) }
            first += segment.lineCount
        }
        return (segments.last?.name ?? "", 0)
    }

    /// The hash of the line holding `sequence`, for a position another file recorded.
    func hash(ofSequence sequence: UInt64, lineIndex: Int) -> SHA256Digest? {
        retainsLines ? (lineIndex < lines.count ? lines[lineIndex].hash : nil) : anchorHashes[sequence]
    }

    /// The line starts of segments read again (a few segments at most are kept), shared by
    /// the checks that run on several cores.
    private final class RereadCache: @unchecked Sendable {
        private let lock = NSLock()
        private var starts: [Int: [Int]] = [:]

        func lineStarts(of segment: Int, path: String) -> [Int]? {
            if let known = lock.withLock({ starts[segment] }) { return known }
            guard let bytes = try? FileSystem.readFile(path) else { return nil }
            var found = [0]
            for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") && offset + 1 < bytes.count { found.append(offset + 1) }
            lock.withLock {
                if starts.count >= 16 { starts.removeAll() }
                starts[segment] = found
            }
            return found
        }
    }
}
