/// The append-only change journal of one store: JSON Lines segments under `journal/`, one
/// entry per line, hash-chained.
///
/// The journal is the source of truth; record files and the index are derived from it.
/// A batch of entries is written with one `write` per segment and made durable with one
/// `fsync` before ``append(_:)`` returns. A torn last line left by a crash is cut off when
/// the journal is opened.
///
/// Not thread-safe: the store that owns it serializes access and holds the store lock while
/// appending.
final class Journal {
    /// Where a new segment starts: after this many entries or bytes in the current one.
    static let segmentEntryLimit = 4096
    static let segmentByteLimit: Int64 = 8 << 20
    /// How many bytes of encoded lines an append gathers before writing them.
    static let writeBufferSize = 1 << 20

    let directory: String
    private(set) var segments: [JournalSegment]
    /// The last entry's sequence (0 when empty).
    private(set) var headSequence: UInt64
    /// The last entry's hash (zeros when empty).
    private(set) var headHash: SHA256Digest
    private var lastSegmentSize: Int64 = 0
    private var lastSegmentCount: Int = 0
    private var writer: FileDescriptor?
    private var cache: SegmentCache?
    /// The segment bytes read to answer lookups (``loadSegment(at:)``), for tests.
    private(set) var segmentBytesRead = 0
    /// Where the journal starts when `ferry compact` archived its beginning (see ``JournalStart``).
    private(set) var start: JournalStart?
    /// The kept entries' files (sorted by first sequence), in ``keptDirectory``.
    private(set) var kept: [JournalSegment] = []
    private var keptCache: SegmentCache?

    /// The first sequence of the live segments (1 unless compacted).
    var firstLiveSequence: UInt64 { start?.first ?? 1 }
    /// The folder of the kept entries, when compacted.
    var keptDirectory: String? { start.map { directory + "/" + $0.keptFolder } }
    /// The sequence and hash the live segments chain onto.
    private var base: (sequence: UInt64, hash: SHA256Digest) { (firstLiveSequence - 1, start?.previous ?? .zero) }

    /// Opens the journal in `directory`, cutting off a torn last line.
    /// - Parameter warn: receives a one-line warning when a torn tail is cut.
    init(directory: String, warn: (String) -> Void) throws(JournalError) {
        self.directory = directory
        segments = []
        headSequence = 0
        headHash = .zero
        try loadSegments()
        try recoverTail(warn: warn)
    }

    deinit { writer?.close() }

    /// Closes the open segment file.
    func close() {
        writer?.close()
        writer = nil
    }

    private func path(of segment: JournalSegment) -> String { directory + "/" + segment.name }

    private func loadSegments() throws(JournalError) {
        let entries: [FileSystem.DirectoryEntry]
        do { entries = try FileSystem.contents(ofDirectory: directory) } catch { throw .io(error) }
        start = try JournalStart.read(directory: directory)
        let first = firstLiveSequence
        // Segments before the start were archived: a compaction stopped before deleting them.
        segments = entries.compactMap { JournalSegment(fileName: $0.name) }
            .filter { $0.firstSequence >= first }
            .sorted { $0.firstSequence < $1.firstSequence }
        kept = []
        keptCache = nil
        if let keptDirectory {
            let files: [FileSystem.DirectoryEntry]
            do { files = try FileSystem.contents(ofDirectory: keptDirectory) } catch {
                if error.isNotFound { throw .missingSegment(start?.keptFolder ?? "kept") }
                throw .io(error)
            }
            kept = files.compactMap { JournalSegment(fileName: $0.name) }.sorted { $0.firstSequence < $1.firstSequence }
        }
    }

    /// Finds the head: the last complete line of the last segment, reading only the end of
    /// the file. A partial line after the last newline (a write the crash interrupted, never
    /// acknowledged) is cut off, and so are trailing NUL-filled lines (a file that grew but
    /// whose data never reached the disk).
    private func recoverTail(warn: (String) -> Void) throws(JournalError) {
        guard let last = segments.last else {
            (headSequence, headHash) = base
            lastSegmentSize = 0
            lastSegmentCount = 0
            return
        }
        let file: FileDescriptor
        do { file = try FileDescriptor.open(path(of: last), .readWrite) } catch { throw .io(error) }
        defer { file.close() }
        var size: Int64
        do { size = try file.status().size } catch { throw .io(error) }
        let originalSize = size
        var lastLine: [UInt8]?
        var window = 64 * 1024
        while size > 0 {
            let start = max(0, size - Int64(window))
            let bytes: [UInt8]
            do { bytes = try file.read(at: start, count: Int(size - start)) } catch { throw .io(error) }
            // Drop the bytes after the last newline: a torn line.
            guard let newline = bytes.lastIndex(of: UInt8(ascii: "\n")) else {
                if start == 0 {
                    size = 0
                    break
                }
                window *= 4
                continue
            }
            size = start + Int64(newline) + 1
            var lineStart = newline
            while lineStart > 0 && bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
            if lineStart == 0 && start > 0 {
                window *= 4  // the whole line is not in the window yet
                continue
            }
            let line = Array(bytes[lineStart..<newline])
            if line.allSatisfy({ $0 == 0 }) {
                size = start + Int64(lineStart)
                continue
            }
            lastLine = line
            break
        }
        if size < originalSize {
            warn("warning: \(last.name): cut off a torn last line (\(originalSize - size) bytes) left by an interrupted write")
            do {
                try file.truncate(to: size)
                try file.synchronize()
            } catch { throw .io(error) }
        }
        lastSegmentSize = size
        guard let lastLine else {
            lastSegmentCount = 0
            headSequence = last.firstSequence - 1
            headHash = .zero
            if last.firstSequence == firstLiveSequence { (headSequence, headHash) = base }
            if segments.count >= 2 {
                let entry = try lastEntry(of: segments[segments.count - 2])
                headSequence = entry.sequence
                headHash = entry.hash
                // A batch that filled the previous segment and was cut as it opened this one.
                if let batch = entry.batch, batch.remaining > 0 {
                    try cutIncompleteBatch(batch, endingAt: entry.sequence, in: segments[segments.count - 2], warn: warn)
                }
            }
            return
        }
        let loaded = SegmentCache(segmentIndex: -1, segmentCount: 0, bytes: lastLine + [UInt8(ascii: "\n")])
        let entry = try loaded.decode(lineIndex: 0, segmentName: last.name)
        headSequence = entry.sequence
        headHash = entry.hash
        lastSegmentCount = Int(entry.sequence - last.firstSequence + 1)
        if let batch = entry.batch, batch.remaining > 0 {
            try cutIncompleteBatch(batch, endingAt: entry.sequence, in: last, warn: warn)
        }
    }

    /// A batch a crash cut short: none of it was acknowledged, so none of it stays.
    private func cutIncompleteBatch(
        _ batch: BatchPosition, endingAt sequence: UInt64, in segment: JournalSegment, warn: (String) -> Void
    ) throws(JournalError) {
        warn(
            "warning: \(segment.name): cut off an incomplete batch (seq \(batch.first) to \(sequence), \(batch.remaining) entries missing) left by an interrupted write"
        )
        try cut(before: batch.first)
        try recoverTail(warn: warn)
    }

    /// Removes every entry from `sequence` on (whole segments and the tail of one), durably.
    private func cut(before sequence: UInt64) throws(JournalError) {
        writer?.close()
        writer = nil
        cache = nil
        while let last = segments.last, last.firstSequence >= sequence, segments.count > 1 || last.firstSequence > sequence {
            do { try FileSystem.removeFile(path(of: last)) } catch { throw .io(error) }
            segments.removeLast()
        }
        guard let index = segments.lastIndex(where: { $0.firstSequence <= sequence }) else { return }
        let segment = segments[index]
        let loaded = try loadSegment(at: index)
        let lineIndex = Int(sequence - segment.firstSequence)
        let offset = lineIndex < loaded.lineStarts.count ? loaded.lineStarts[lineIndex] : loaded.bytes.count
        do {
            let file = try FileDescriptor.open(path(of: segment), .writeOnly)
            try file.closeAfter { () throws(SystemError) in
                try file.truncate(to: Int64(offset))
                try file.synchronize()
            }
            try FileSystem.synchronizeDirectory(directory)
        } catch { throw .io(error) }
        cache = nil
    }

    private func lastEntry(of segment: JournalSegment) throws(JournalError) -> JournalEntry {
        guard let index = segments.firstIndex(of: segment) else { throw .missingSegment(segment.name) }
        let loaded = try loadSegment(at: index)
        guard !loaded.lineStarts.isEmpty else { throw .missingSegment(segment.name) }
        return try loaded.decode(lineIndex: loaded.lineStarts.count - 1, segmentName: segment.name)
    }

    // MARK: Appending

    /// An entry to append: the change and the sequence of its record's previous entry.
    struct Pending {
        var change: Change
        var previousSequenceOfRecord: UInt64
        /// The document's canonical bytes when the caller has them already (saves writing
        /// them again).
        var canonicalDocument: [UInt8]? = nil
    }

    /// Appends entries, numbering and chaining them, and makes them durable before returning.
    /// On failure nothing is appended: a partly written batch is cut back off.
    func append(_ pending: [Pending]) throws(JournalError) -> [JournalEntry] {
        if pending.isEmpty { return [] }
        var entries: [JournalEntry] = []
        entries.reserveCapacity(pending.count)
        var sequence = headSequence
        var hash = headHash
        var encoder = JournalLineEncoder()
        // Lines are written as they are encoded, a buffer at a time, so a batch of any size
        // needs one buffer; each segment the batch touches is synced before the next is opened.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(Journal.writeBufferSize + 4096)
        var bufferedLines = 0
        var created: [JournalSegment] = []
        let rollbackSize = lastSegmentSize
        let firstOfBatch = headSequence + 1
        func flush(synchronizing: Bool) throws(SystemError) {
            guard let writer else { return }
            if !buffer.isEmpty {
                try writer.writeAll(buffer)
                lastSegmentSize += Int64(buffer.count)
                lastSegmentCount += bufferedLines
                buffer.removeAll(keepingCapacity: true)
                bufferedLines = 0
            }
            if synchronizing { try writer.synchronize() }
        }
        do throws(SystemError) {
            for (offset, item) in pending.enumerated() {
                sequence += 1
                if segments.isEmpty || lastSegmentCount + bufferedLines >= Journal.segmentEntryLimit
                    || lastSegmentSize + Int64(buffer.count) >= Journal.segmentByteLimit
                {
                    try flush(synchronizing: true)
                    writer?.close()
                    writer = nil
                    let segment = JournalSegment(firstSequence: sequence)
                    writer = try FileDescriptor.open(path(of: segment), .writeOnly, options: [.create, .exclusive, .append])
                    created.append(segment)
                    segments.append(segment)
                    lastSegmentSize = 0
                    lastSegmentCount = 0
                } else if writer == nil, let last = segments.last {
                    writer = try FileDescriptor.open(path(of: last), .writeOnly, options: [.append])
                }
                let batch =
                    pending.count > 1 ? BatchPosition(first: firstOfBatch, remaining: UInt64(pending.count - offset - 1)) : nil
                let entryHash = encoder.encode(
                    sequence: sequence, change: item.change,
                    previousSequenceOfRecord: item.previousSequenceOfRecord, previousHash: hash, batch: batch,
                    canonicalDocument: item.canonicalDocument, appendingTo: &buffer)
                bufferedLines += 1
                entries.append(
                    JournalEntry(
                        sequence: sequence, change: item.change,
                        previousSequenceOfRecord: item.previousSequenceOfRecord, previousHash: hash, hash: entryHash,
                        batch: batch))
                hash = entryHash
                if buffer.count >= Journal.writeBufferSize { try flush(synchronizing: false) }
            }
            try flush(synchronizing: true)
            if !created.isEmpty { try FileSystem.synchronizeDirectory(directory) }
        } catch {
            // Undo: remove segments this call created, cut the old last segment back.
            writer?.close()
            writer = nil
            for segment in created {
                try? FileSystem.removeFile(path(of: segment))
                segments.removeAll { $0 == segment }
            }
            if let last = segments.last, let file = try? FileDescriptor.open(path(of: last), .writeOnly) {
                try? file.truncate(to: rollbackSize)
                try? file.synchronize()
                file.close()
            }
            lastSegmentSize = rollbackSize
            try? recountLastSegment()
            throw .io(error)
        }
        headSequence = sequence
        headHash = hash
        // The cache stays: what was appended is read on when it is next asked for (``loadSegment(at:)``).
        return entries
    }

    /// Takes back, durably, the entries from `sequence` on that this journal just appended:
    /// a batch whose record files could not be written (no space left) leaves no trace.
    func takeBack(from sequence: UInt64) throws(JournalError) {
        guard sequence <= headSequence else { return }
        try cut(before: sequence)
        try recoverTail(warn: { _ in })
    }

    private func recountLastSegment() throws(JournalError) {
        try recoverTail(warn: { _ in })
    }

    // MARK: Noticing other processes

    /// Whether another process appended since this journal last looked. Cheap: one `stat` of the
    /// last segment and one of the next segment's name.
    func hasExternalAppends() -> Bool {
        let next = JournalSegment(firstSequence: headSequence + 1)
        if FileSystem.exists(directory + "/" + next.name) { return true }
        guard let last = segments.last else { return start == nil && FileSystem.exists(directory + "/" + JournalStart.fileName) }
        // A last segment that is gone was archived by `ferry compact` in another process.
        guard let status = try? FileSystem.status(path(of: last)) else { return true }
        let size = status.size
        return size != lastSegmentSize
    }

    /// Reads the journal's files again (after `ferry compact` changed where it starts).
    func reload() throws(JournalError) {
        writer?.close()
        writer = nil
        cache = nil
        try loadSegments()
        try recoverTail(warn: { _ in })
    }

    /// Re-reads the journal's files after another process appended; returns the new entries.
    func readExternalAppends() throws(JournalError) -> [JournalEntry] {
        let previousHead = headSequence
        writer?.close()
        writer = nil
        cache = nil
        try loadSegments()
        try recoverTail(warn: { _ in })
        guard headSequence > previousHead else { return [] }
        var cursor = try entries(after: previousHead)
        var result: [JournalEntry] = []
        while let entry = try cursor.next() { result.append(entry) }
        return result
    }

    // MARK: Reading

    /// A cursor over the entries after `sequence` (0 for all), in order.
    func entries(after sequence: UInt64) throws(JournalError) -> JournalCursor {
        guard sequence <= headSequence else { throw .positionOutOfRange(sequence, head: headSequence) }
        if sequence + 1 < firstLiveSequence, !kept.isEmpty {
            // The kept entries first (what the archived part left current), then every segment.
            let keptIndex = kept.lastIndex(where: { $0.firstSequence <= sequence + 1 }) ?? 0
            return JournalCursor(journal: self, segmentIndex: 0, skipThrough: sequence, keptIndex: keptIndex)
        }
        guard let index = segments.lastIndex(where: { $0.firstSequence <= sequence + 1 }) else {
            return JournalCursor(journal: self, segmentIndex: 0, skipThrough: sequence)
        }
        return JournalCursor(journal: self, segmentIndex: index, skipThrough: sequence)
    }

    /// The entry at `sequence`.
    func entry(at sequence: UInt64) throws(JournalError) -> JournalEntry {
        guard sequence >= 1, sequence <= headSequence else {
            throw .positionOutOfRange(sequence, head: headSequence)
        }
        if sequence < firstLiveSequence { return try keptEntry(at: sequence) }
        guard let index = segments.lastIndex(where: { $0.firstSequence <= sequence }) else {
            throw .missingSegment(JournalSegment(firstSequence: sequence).name)
        }
        let segment = segments[index]
        let loaded = try loadSegment(at: index)
        let lineIndex = Int(sequence - segment.firstSequence)
        guard lineIndex < loaded.lineStarts.count else {
            throw .malformedEntry(segment: segment.name, line: lineIndex + 1, reason: "segment ends early")
        }
        let entry = try loaded.decode(lineIndex: lineIndex, segmentName: segment.name)
        guard entry.sequence == sequence else {
            throw .sequenceGap(segment: segment.name, line: lineIndex + 1, expected: sequence, found: entry.sequence)
        }
        return entry
    }

    /// The bytes and line offsets of segment `index`, cached for repeated lookups.
    func loadSegment(at index: Int) throws(JournalError) -> SegmentCache {
        if let cache, cache.segmentIndex == index, cache.segmentCount == segments.count,
            index < segments.count - 1 || cache.byteCount == lastSegmentSize
        {
            return cache
        }
        let segment = segments[index]
        // The last segment grew since it was read (appends, this process's or another's): only
        // what was appended is read, so a store that syncs after each write (a watch, a
        // server) reads what it wrote, not the whole segment again.
        if let cache, cache.segmentIndex == index, cache.segmentCount == segments.count, cache.firstSequence == segment.firstSequence,
            index == segments.count - 1, cache.completeByteCount < lastSegmentSize
        {
            do {
                let file = try FileDescriptor.open(path(of: segment), .readOnly)
                defer { file.close() }
                let start = cache.completeByteCount
                let appended = try file.read(at: start, count: Int(lastSegmentSize - start))
                segmentBytesRead += appended.count
                let loaded = SegmentCache(extending: cache, with: appended)
                self.cache = loaded
                return loaded
            } catch {
                if error.isNotFound { throw .missingSegment(segment.name) }
                throw .io(error)
            }
        }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path(of: segment)) } catch {
            if error.isNotFound { throw .missingSegment(segment.name) }
            throw .io(error)
        }
        segmentBytesRead += bytes.count
        let loaded = SegmentCache(segmentIndex: index, segmentCount: segments.count, firstSequence: segment.firstSequence, bytes: bytes)
        cache = loaded
        return loaded
    }

    /// The path of segment `index`, for reports.
    func segmentName(at index: Int) -> String { segments[index].name }

    // MARK: Kept entries (a compacted journal)

    /// The bytes and line offsets of kept file `index`.
    func loadKept(at index: Int) throws(JournalError) -> SegmentCache {
        if let keptCache, keptCache.segmentIndex == index { return keptCache }
        guard let keptDirectory else { throw .missingSegment("kept") }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(keptDirectory + "/" + kept[index].name) } catch {
            if error.isNotFound { throw .missingSegment(keptName(at: index)) }
            throw .io(error)
        }
        let loaded = SegmentCache(segmentIndex: index, segmentCount: kept.count, bytes: bytes)
        keptCache = loaded
        return loaded
    }

    /// `kept-…/<file>`, for reports.
    func keptName(at index: Int) -> String { (start?.keptFolder ?? "kept") + "/" + kept[index].name }

    /// The kept entry at `sequence`, found by binary search (kept lines are in sequence order);
    /// ``JournalError/archived(_:first:)`` when the archive holds it and the journal does not.
    private func keptEntry(at sequence: UInt64) throws(JournalError) -> JournalEntry {
        guard let index = kept.lastIndex(where: { $0.firstSequence <= sequence }) else {
            throw .archived(sequence, first: firstLiveSequence)
        }
        let loaded = try loadKept(at: index)
        var low = 0
        var high = loaded.lineStarts.count
        while low < high {
            let middle = (low + high) / 2
            let entry = try loaded.decode(lineIndex: middle, segmentName: keptName(at: index))
            if entry.sequence == sequence { return entry }
            if entry.sequence < sequence { low = middle + 1 } else { high = middle }
        }
        throw .archived(sequence, first: firstLiveSequence)
    }
}

/// One segment's bytes with the offset of each line.
final class SegmentCache: @unchecked Sendable {
    let segmentIndex: Int
    let segmentCount: Int
    /// The first sequence of the segment (0 when not known: kept and archived files).
    let firstSequence: UInt64
    let bytes: [UInt8]
    /// Start offset of each complete line.
    let lineStarts: [Int]
    /// The bytes up to the end of the last complete line.
    let completeByteCount: Int64

    var byteCount: Int64 { Int64(bytes.count) }

    init(segmentIndex: Int, segmentCount: Int, firstSequence: UInt64 = 0, bytes: [UInt8]) {
        self.segmentIndex = segmentIndex
        self.segmentCount = segmentCount
        self.firstSequence = firstSequence
        self.bytes = bytes
        var starts: [Int] = []
        starts.reserveCapacity(Journal.segmentEntryLimit)
        completeByteCount = Int64(Self.findLines(in: bytes, from: 0, into: &starts))
        lineStarts = starts
    }

    /// `cached`'s complete lines, then `appended` (the bytes after them).
    init(extending cached: SegmentCache, with appended: [UInt8]) {
        segmentIndex = cached.segmentIndex
        segmentCount = cached.segmentCount
        firstSequence = cached.firstSequence
        var bytes = cached.bytes
        bytes.removeSubrange(Int(cached.completeByteCount)...)
        bytes += appended
        var starts = cached.lineStarts
        completeByteCount = Int64(Self.findLines(in: bytes, from: Int(cached.completeByteCount), into: &starts))
        self.bytes = bytes
        lineStarts = starts
    }

    /// Appends the start of each complete line of `bytes` from `offset` (a line's start) to
    /// `starts`; returns the offset after the last complete line.
    private static func findLines(in bytes: [UInt8], from offset: Int, into starts: inout [Int]) -> Int {
        var start = offset
        bytes.withUnsafeBufferPointer { buffer in
            for index in offset..<buffer.count where buffer[index] == UInt8(ascii: "\n") {
                starts.append(start)
                start = index + 1
            }
        }
        return start
    }

    /// The bytes of line `lineIndex` (0-based), without its newline.
    func withLine<R>(_ lineIndex: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let start = lineStarts[lineIndex]
        let end = lineIndex + 1 < lineStarts.count ? lineStarts[lineIndex + 1] - 1 : bytes.count - 1
        return try bytes.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[start..<end]))
        }
    }

    func decode(lineIndex: Int, segmentName: String) throws(JournalError) -> JournalEntry {
        let result: Result<JournalEntry, EntryDecodingFailure> = withLine(lineIndex) { line in
            do throws(EntryDecodingFailure) { return .success(try JournalEntry.decode(line: line)) } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let entry): return entry
        case .failure(let failure):
            throw .malformedEntry(segment: segmentName, line: lineIndex + 1, reason: failure.reason)
        }
    }
}

/// Reads journal entries in order, one segment in memory at a time.
struct JournalCursor {
    private let journal: Journal
    private var segmentIndex: Int
    private var lineIndex = 0
    private var loaded: SegmentCache?
    private let skipThrough: UInt64
    /// The segment of the entry `next()` returned last.
    private(set) var segmentIndexOfLastEntry = 0
    /// The kept file being read, before the segments (a compacted journal read from before its start).
    private var keptIndex: Int?

    init(journal: Journal, segmentIndex: Int, skipThrough: UInt64 = 0, keptIndex: Int? = nil) {
        self.journal = journal
        self.segmentIndex = segmentIndex
        self.skipThrough = skipThrough
        self.keptIndex = keptIndex
        if keptIndex == nil, segmentIndex < journal.segments.count, skipThrough >= journal.segments[segmentIndex].firstSequence {
            lineIndex = Int(skipThrough - journal.segments[segmentIndex].firstSequence + 1)
        }
    }

    /// The next entry, or `nil` at the end of the journal.
    mutating func next() throws(JournalError) -> JournalEntry? {
        while let kept = keptIndex {
            guard kept < journal.kept.count else {
                keptIndex = nil
                lineIndex = 0
                loaded = nil
                break
            }
            let file: SegmentCache
            if let loaded { file = loaded } else { file = try journal.loadKept(at: kept) }
            loaded = file
            if lineIndex < file.lineStarts.count {
                let entry = try file.decode(lineIndex: lineIndex, segmentName: journal.keptName(at: kept))
                lineIndex += 1
                if entry.sequence <= skipThrough { continue }
                return entry
            }
            keptIndex = kept + 1
            lineIndex = 0
            loaded = nil
        }
        while segmentIndex < journal.segments.count {
            let segment: SegmentCache
            if let loaded { segment = loaded } else { segment = try journal.loadSegment(at: segmentIndex) }
            loaded = segment
            if lineIndex < segment.lineStarts.count {
                let entry = try segment.decode(lineIndex: lineIndex, segmentName: journal.segmentName(at: segmentIndex))
                lineIndex += 1
                segmentIndexOfLastEntry = segmentIndex
                if entry.sequence <= skipThrough { continue }
                return entry
            }
            segmentIndex += 1
            lineIndex = 0
            loaded = nil
        }
        return nil
    }

    /// What ``next(unless:)`` found.
    enum Step {
        /// An entry, decoded whole.
        case entry(JournalEntry)
        /// The entry at this position, whose origin and counter `unless` matched: not decoded.
        case passedOver(sequence: UInt64)
    }

    /// The next entry, or `nil` at the end of the journal; an entry of a segment whose origin
    /// and counter (``JournalLineHeader``) satisfy `skip` is passed over without its document
    /// being parsed. A line the header cannot be read from is decoded whole, as by ``next()``.
    mutating func next(unless skip: (ReplicaID, UInt64) -> Bool) throws(JournalError) -> Step? {
        while keptIndex == nil, segmentIndex < journal.segments.count {
            let segment: SegmentCache
            if let loaded { segment = loaded } else { segment = try journal.loadSegment(at: segmentIndex) }
            loaded = segment
            guard lineIndex < segment.lineStarts.count else {
                segmentIndex += 1
                lineIndex = 0
                loaded = nil
                continue
            }
            let sequence = journal.segments[segmentIndex].firstSequence + UInt64(lineIndex)
            guard sequence > skipThrough, let header = segment.withLine(lineIndex, JournalLineHeader.read),
                skip(header.origin, header.counter)
            else { break }
            lineIndex += 1
            segmentIndexOfLastEntry = segmentIndex
            return .passedOver(sequence: sequence)
        }
        return try next().map { .entry($0) }
    }
}
