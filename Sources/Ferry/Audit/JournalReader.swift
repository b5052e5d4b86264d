/// Read access to a journal for audit queries: entries newest first, and random access by
/// sequence with a few segments kept in memory, so walking a record's `pseq` chain or looking up
/// the version before a change rarely reads a segment twice.
///
/// Not thread-safe; used under the store's mutex.
final class JournalReader {
    private let journal: Journal
    /// Recently used segments, most recent last.
    private var cached: [SegmentCache] = []
    private let cacheLimit: Int

    init(journal: Journal, cacheLimit: Int = 8) {
        self.journal = journal
        self.cacheLimit = max(1, cacheLimit)
    }

    /// The last sequence.
    var headSequence: UInt64 { journal.headSequence }

    /// The segment holding `sequence`, by binary search over the segments' first sequences.
    private func segmentIndex(of sequence: UInt64) -> Int? {
        let segments = journal.segments
        var low = 0
        var high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].firstSequence <= sequence { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    private func segment(at index: Int) throws(JournalError) -> SegmentCache {
        if let position = cached.firstIndex(where: { $0.segmentIndex == index }) {
            let found = cached.remove(at: position)
            cached.append(found)
            return found
        }
        let loaded = try journal.loadSegment(at: index)
        cached.append(loaded)
        if cached.count > cacheLimit { cached.removeFirst() }
        return loaded
    }

    /// The entry at `sequence`.
    /// - Throws: ``JournalError`` when it is past the head, its segment is missing, or the line
    ///   found there is not that entry.
    func entry(at sequence: UInt64) throws(JournalError) -> JournalEntry {
        guard sequence >= 1, sequence <= journal.headSequence else {
            throw .positionOutOfRange(sequence, head: journal.headSequence)
        }
        // Before a compacted journal's start: a kept entry, or archived.
        if sequence < journal.firstLiveSequence { return try journal.entry(at: sequence) }
        guard let index = segmentIndex(of: sequence) else {
            throw .missingSegment(JournalSegment(firstSequence: sequence).name)
        }
        let name = journal.segmentName(at: index)
        let loaded = try segment(at: index)
        let lineIndex = Int(sequence - journal.segments[index].firstSequence)
        guard lineIndex < loaded.lineStarts.count else {
            throw .malformedEntry(segment: name, line: lineIndex + 1, reason: "segment ends early")
        }
        let entry = try loaded.decode(lineIndex: lineIndex, segmentName: name)
        guard entry.sequence == sequence else {
            throw .sequenceGap(segment: name, line: lineIndex + 1, expected: sequence, found: entry.sequence)
        }
        return entry
    }

    /// Calls `body` with every entry from the head back to the first, newest first, one segment
    /// in memory at a time. Return `false` from `body` to stop.
    func forEachEntryBackwards(_ body: (JournalEntry) throws(JournalError) -> Bool) throws(JournalError) {
        var index = journal.segments.count - 1
        while index >= 0 {
            let loaded = try journal.loadSegment(at: index)
            let name = journal.segmentName(at: index)
            var line = loaded.lineStarts.count - 1
            while line >= 0 {
                let entry = try loaded.decode(lineIndex: line, segmentName: name)
                if try !body(entry) { return }
                line -= 1
            }
            index -= 1
        }
    }

    /// Calls `body` with every entry in journal order, one segment in memory at a time.
    /// Return `false` from `body` to stop.
    func forEachEntry(_ body: (JournalEntry) throws(JournalError) -> Bool) throws(JournalError) {
        var cursor = try journal.entries(after: 0)
        while let entry = try cursor.next() {
            if try !body(entry) { return }
        }
    }
}
