/// Decides, from every journal line's sequence number and hashes, what was done to the journal:
/// a pure function of what ``StoreVerifier`` read, so each kind of tampering can be tested on
/// made-up lines.
///
/// A sound journal is one chain: line *k* of the files (in segment order) has `seq` *k*, its
/// `prev` is the hash of line *k − 1*, its own hash matches its content, and each segment is
/// named after its first entry. When that fails, the analysis explains the damage with as few
/// findings as it can, each at the line where it is:
/// - a line that is not an entry, or whose content no longer matches its hash: malformed or
///   edited (a flipped byte);
/// - a sequence number missing: removed lines, a truncated segment, or a missing segment
///   (told apart by where the gap falls);
/// - two lines with one sequence number: the one that does not fit the chain was inserted;
/// - sequence numbers out of file order: the lines not on the longest ordered run were moved;
/// - an entry whose successor's `prev` disagrees with it although its own hash is right: it
///   was rewritten and its hash recomputed;
/// - a segment whose name is not its first entry's sequence: renamed.
struct JournalChainAnalysis {
    /// One segment file as read.
    struct Segment: Sendable {
        var name: String
        var firstSequence: UInt64
        var lineCount: Int
        var byteCount: Int
        /// Whether the file ends with bytes after its last newline.
        var endsMidLine: Bool
    }

    /// What is wrong with a line on its own.
    enum Problem: UInt8, Sendable {
        case malformed
        case edited
        case reformatted
    }

    /// One line as read: where it is, and for an entry its sequence and hashes.
    struct Line: Sendable {
        var segment: Int32
        /// 1-based within its segment.
        var number: Int32
        /// 0 for a malformed line.
        var sequence: UInt64
        var previousHash: SHA256Digest
        /// The `hash` written on the line.
        var hash: SHA256Digest
        var problem: Problem?
    }

    var segments: [Segment]
    var lines: [Line]
    /// For lines whose content hashes to something else than their `hash`: that other hash.
    var computedHashes: [Int: SHA256Digest]
    /// Why malformed lines are not entries.
    var malformedReasons: [Int: String]
    var segmentEntryLimit = Journal.segmentEntryLimit
    var segmentByteLimit = Int(Journal.segmentByteLimit)
    /// Where the chain starts: seq 1 after zeros, or a compacted journal's start (``JournalStart``).
    var firstSequence: UInt64 = 1
    var firstPrevious = SHA256Digest.zero

    /// The outcome: findings in file order, and where each sequence's genuine line is.
    struct Result: Sendable {
        var findings: [VerificationFinding]
        /// Whether lines are exactly 1, 2, 3, … in file order (then line index = seq − 1).
        var isContiguous: Bool
        /// Sequence → line index, when not contiguous.
        var genuine: [UInt64: Int]
        /// The highest sequence of a genuine line.
        var lastSequence: UInt64
        /// The first sequence of the chain (above 1 in a compacted journal).
        var firstSequence: UInt64 = 1

        /// The index of the genuine line with `sequence`.
        func lineIndex(of sequence: UInt64, lineCount: Int) -> Int? {
            if isContiguous {
                return sequence >= firstSequence && sequence - firstSequence < UInt64(lineCount) ? Int(sequence - firstSequence) : nil
            }
            return genuine[sequence]
        }
    }

    func segmentPath(_ index: Int) -> String { "journal/" + segments[index].name }

    func computed(_ index: Int) -> SHA256Digest { computedHashes[index] ?? lines[index].hash }

    /// Whether line `next` chains onto line `previous`.
    func links(_ previous: Int, _ next: Int) -> Bool {
        lines[next].previousHash == lines[previous].hash || lines[next].previousHash == computed(previous)
    }

    /// Runs the analysis.
    func analyze() -> Result {
        if let result = fastPath() { return result }
        var damage = DamageAnalysis(analysis: self)
        return damage.run()
    }

    /// The common case: everything in order, decided in one pass with no allocation.
    private func fastPath() -> Result? {
        var previousHash = firstPrevious
        for (index, line) in lines.enumerated() {
            guard line.problem == nil, line.sequence == firstSequence + UInt64(index), line.previousHash == previousHash else { return nil }
            previousHash = line.hash
        }
        var lineIndex = 0
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            if segment.endsMidLine && !isLast { return nil }
            if segment.lineCount == 0 {
                guard isLast, segment.firstSequence == firstSequence + UInt64(lines.count) else { return nil }
                continue
            }
            guard lines[lineIndex].sequence == segment.firstSequence else { return nil }
            lineIndex += segment.lineCount
        }
        return Result(
            findings: [], isContiguous: true, genuine: [:], lastSequence: firstSequence - 1 + UInt64(lines.count), firstSequence: firstSequence)
    }
}
