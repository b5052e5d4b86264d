import Dispatch

/// One pass over a store's journal files for ``StoreVerifier``: every line parsed once and its
/// hash checked on its bytes, the entries replayed into an index as the store would, and the
/// index snapshot compared with the replay at the snapshot's position.
///
/// Reads one segment file at a time. Parsing and hashing a segment's lines is spread over the
/// cores, a segment ahead of the replay, which is sequential. The index files are read first
/// and compared as text at the end. Keeps per line only its place, sequence and hashes, and
/// the record file hashes of the records' current versions.
struct JournalScan: Sendable {
    let layout: StoreLayout

    var segments: [JournalChainAnalysis.Segment] = []
    var lines: [JournalChainAnalysis.Line] = []
    /// Byte offset of each line in its segment, to read an entry again in rare cases.
    var lineOffsets: [Int] = []
    var computedHashes: [Int: SHA256Digest] = [:]
    var malformedReasons: [Int: String] = [:]
    /// Problems found while reading: unreadable files, odd segment names, a torn tail.
    var journalFindings: [VerificationFinding] = []
    /// The index snapshot's problems and its differences from the replay.
    var indexFindings: [VerificationFinding] = []
    /// Where the index says the journal ended (the delta file's head when one applies to the
    /// snapshot), when it could be read, and that file's path.
    private(set) var snapshotHead: StoreHead?
    private(set) var snapshotHeadPath = ".ferry/index"
    var comparedIndex = false
    /// The index the journal replays to (in file order).
    var replay = StoreIndex()
    /// For every current version, the fingerprint of its document's canonical bytes, which a
    /// record file Ferry wrote has once its layout whitespace is taken out, by sequence.
    var fileHashes: [UInt64: FileFingerprint] = [:]

    /// The replay's state at the snapshot's head.
    private var replayAtSnapshot: StoreIndex?
    /// Whether every line so far continued the chain (then file order is journal order).
    private var orderly = true
    private var lastSequence: UInt64 = 0
    private var lastHash = SHA256Digest.zero

    /// A compacted journal's start (see ``JournalStart``): its kept entries are replayed
    /// before the segments, which start at its `first` sequence.
    var start: JournalStart?

    init(layout: StoreLayout, start: JournalStart? = nil) {
        self.layout = layout
        self.start = start
        if let start {
            lastSequence = start.first - 1
            lastHash = start.previous
        }
    }

    mutating func run() {
        var indexFiles: SnapshotComparison.IndexFiles?
        if FileSystem.exists(layout.index) {
            switch SnapshotComparison.IndexFiles.read(layout) {
            case .success(let files):
                indexFiles = files
                snapshotHead = files.head
                snapshotHeadPath = files.delta?.path ?? files.snapshot.path
            case .failure(let unreadable):
                indexFindings.append(
                    VerificationFinding(
                        kind: .indexMismatch, path: ".ferry/index",
                        message: "unreadable index snapshot (\(unreadable.reason)); opening the store rebuilds it"))
            }
        }
        if snapshotHead?.sequence == 0 { replayAtSnapshot = replay }
        if let start {
            replayKept(start)
            if let head = snapshotHead, head.sequence == lastSequence, head.hash == lastHash { replayAtSnapshot = replay }
        }
        readSegments()
        if let indexFiles, let replayAtSnapshot {
            comparedIndex = true
            indexFindings += SnapshotComparison.findings(indexFiles, replay: replayAtSnapshot)
        }
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
        // Pipelined: while the lines of one segment are replayed here, the next segment is read,
        // parsed and hashed on the other cores.
        let directory = layout.journal
        func prepare(_ index: Int) -> Pending<PreparedSegment> {
            let segment = found[index]
            let isLast = index == found.count - 1
            return Pending { PreparedSegment(segment, directory: directory, isLast: isLast) }
        }
        var next = found.isEmpty ? nil : prepare(0)
        for index in found.indices {
            guard let prepared = next?.value() else { break }
            next = index + 1 < found.count ? prepare(index + 1) : nil
            absorb(prepared, index: index)
        }
    }

    /// Work started on another thread, collected later with ``value()``.
    private final class Pending<T: Sendable>: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var result: T?

        init(_ work: @escaping @Sendable () -> T) {
            DispatchQueue.global().async {
                self.result = work()
                self.done.signal()
            }
        }

        /// Waits for the work and returns its result.
        func value() -> T? {
            done.wait()
            defer { done.signal() }
            return result
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

    /// Replays a prepared segment's lines, in order.
    private mutating func absorb(_ prepared: PreparedSegment, index: Int) {
        journalFindings += prepared.findings
        for (number, line) in prepared.decoded.enumerated() {
            record(line, segment: index, number: number + 1, offset: prepared.lineStarts[number])
        }
        segments.append(
            .init(
                name: prepared.segment.name, firstSequence: prepared.segment.firstSequence, lineCount: prepared.decoded.count,
                byteCount: prepared.byteCount, endsMidLine: prepared.endsMidLine))
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
        let lineIndex = lines.count
        lineOffsets.append(offset)
        switch decoded {
        case .malformed(let reason):
            malformedReasons[lineIndex] = reason
            lines.append(.init(segment: Int32(segment), number: Int32(number), sequence: 0, previousHash: .zero, hash: .zero, problem: .malformed))
            orderly = false
        case .entry(let entry, let hashes):
            let problem = hashes.problem
            if let computed = hashes.computed { computedHashes[lineIndex] = computed }
            lines.append(
                .init(
                    segment: Int32(segment), number: Int32(number), sequence: entry.sequence, previousHash: entry.previousHash,
                    hash: entry.hash, problem: problem))
            orderly = orderly && problem == nil && entry.sequence == lastSequence + 1 && entry.previousHash == lastHash
            lastSequence = entry.sequence
            lastHash = entry.hash
            apply(entry, hashes: hashes)
            if orderly, let head = snapshotHead, entry.sequence == head.sequence, entry.hash == head.hash {
                replayAtSnapshot = replay
            }
        }
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
        let raised = StoreBase.raise(ReplicaFrontier(knowledge: replay.knowledge, digests: replay.digests), to: start.frontier)
        replay.knowledge = raised.knowledge
        replay.digests = raised.digests
    }

    /// Replays one entry as the store does, keeping the file hashes of current versions.
    private mutating func apply(_ entry: JournalEntry, hashes: DecodedLine.Hashes) {
        let application = replay.apply(entry, contentHash: hashes.content)
        if let before = application.before {
            for version in before.versions where !application.after.versions.contains(where: { $0.sequence == version.sequence }) {
                fileHashes[version.sequence] = nil
            }
        }
        if let file = hashes.file, application.after.versions.contains(where: { $0.sequence == entry.sequence }) {
            fileHashes[entry.sequence] = file
        }
    }

    /// The entry on line `lineIndex`, read again from its segment (for rare checks).
    func reread(lineIndex: Int) -> JournalEntry? {
        let line = lines[lineIndex]
        let segment = segments[Int(line.segment)]
        guard let file = try? FileDescriptor.open(layout.journal + "/" + segment.name, .readOnly) else { return nil }
        defer { file.close() }
        let start = lineOffsets[lineIndex]
        let end = lineIndex + 1 < lines.count && lines[lineIndex + 1].segment == line.segment
            ? lineOffsets[lineIndex + 1] - 1 : segment.byteCount
        guard end > start, let bytes = try? file.read(at: Int64(start), count: end - start) else { return nil }
        let content = bytes.prefix { $0 != UInt8(ascii: "\n") }
        return Array(content).withUnsafeBytes { try? JournalEntry.decode(line: $0) }
    }
}
