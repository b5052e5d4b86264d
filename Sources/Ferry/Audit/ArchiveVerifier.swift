/// Checks what `ferry compact` left before a journal's live segments, for ``StoreVerifier``:
/// `journal/start.json`, the kept entries in `journal/kept-<seq>/`, and, when the archive
/// folders are where the start file says, every archived segment (its SHA-256 against the
/// manifest, then each line's hash and its place in the chain), so the archive and the live
/// journal are checked as one chain. A flipped byte is reported at its file and line.
///
/// It holds one file at a time: the kept entries and the archived ones are both in ascending
/// order, so each kept entry is compared with the archived entry of its sequence as the two
/// are read side by side (dictionaries of every kept and every archived hash took 160 MB for
/// a million-entry archive, and grew with the history).
///
/// ```swift
/// let check = ArchiveVerifier(layout: StoreLayout(root: "./data")).verify()
/// check.summary?.isPresent   // false when the archive was moved away: the live journal alone is checked
/// ```
struct ArchiveVerifier: Sendable {
    let layout: StoreLayout

    /// What was checked and found.
    struct Outcome: Sendable {
        /// The compacted journal's start; `nil` when the journal was never compacted (or the
        /// start file cannot be read: then a finding says so).
        var start: JournalStart?
        var findings: [VerificationFinding] = []
        var summary: VerificationReport.Archive?
    }

    func verify() -> Outcome {
        verify(readStart())
    }

    /// `journal/start.json`, read: the outcome's `start`, or a finding when it cannot be read.
    /// Cheap; the caller may start the rest (``verify(_:)``) on another thread and go on.
    func readStart() -> Outcome {
        var outcome = Outcome()
        do { outcome.start = try JournalStart.read(directory: layout.journal) } catch {
            outcome.findings.append(
                VerificationFinding(kind: .unreadableFile, path: "journal/" + JournalStart.fileName, message: "unreadable: \(error)"))
        }
        return outcome
    }

    /// Checks the kept entries and the archive of the start that `read` (``readStart()``) found.
    func verify(_ read: Outcome) -> Outcome {
        var outcome = read
        guard let start = read.start else { return outcome }
        var summary = VerificationReport.Archive(
            firstLiveSequence: start.first, folders: start.archives.map(\.path), isPresent: true, archivedEntries: 0,
            keptEntries: start.keptEntries)
        var kept = KeptEntries(start: start, layout: layout)
        var comparison = KeptComparison(next: kept.next())
        var archiveFindings: [VerificationFinding] = []
        var expected: UInt64 = 1
        var previous = SHA256Digest.zero
        for archive in start.archives {
            let folder = JournalStart.resolve(archive.path, root: layout.root)
            guard FileSystem.isDirectory(folder) else {
                summary.isPresent = false
                continue
            }
            let manifest: ArchiveManifest
            do {
                guard let read = try ArchiveManifest.read(folder: folder) else {
                    archiveFindings.append(finding(.missingSegment, archive.path + "/" + ArchiveManifest.fileName, nil, "missing: the archive's manifest is gone"))
                    continue
                }
                manifest = read
            } catch {
                archiveFindings.append(finding(.malformedLine, archive.path + "/" + ArchiveManifest.fileName, nil, "unreadable: \(error)"))
                continue
            }
            for segment in manifest.segments where segment.first >= archive.first && segment.last <= archive.last {
                checkSegment(
                    segment, folder: archive.path, expected: &expected, previous: &previous, findings: &archiveFindings
                ) { sequence, hash in comparison.archived(sequence, hash, kept: &kept) }
            }
            summary.archivedEntries += Int(archive.last - archive.first + 1)
        }
        while kept.next() != nil {}
        outcome.findings += kept.finish() + archiveFindings
        if summary.isPresent {
            if expected != start.first {
                outcome.findings.append(
                    finding(.missingSegment, start.archives.last?.path ?? "archive", nil,
                        "missing: the archive ends at seq \(expected - 1) but the live journal starts at seq \(start.first)"))
            } else if previous != start.previous {
                outcome.findings.append(
                    finding(.rewrittenJournal, "journal/" + JournalStart.fileName, nil,
                        "rewritten: the last archived entry's hash is not the one journal/start.json names"))
            }
            for sequence in comparison.differing {
                outcome.findings.append(
                    finding(.rewrittenLine, "journal/" + start.keptFolder, nil, "rewritten: the kept entry seq \(sequence) differs from the archived one"))
            }
        }
        outcome.summary = summary
        return outcome
    }

    private func finding(_ kind: VerificationFinding.Kind, _ path: String, _ line: Int?, _ message: String) -> VerificationFinding {
        VerificationFinding(kind: kind, path: path, line: line, message: message)
    }

    /// Matches the kept entries, in ascending order, with the archived entries as they are
    /// read, also in ascending order: the sequences whose kept entry differs from the archived.
    private struct KeptComparison {
        /// The next kept entry not yet matched.
        var next: (sequence: UInt64, hash: SHA256Digest)?
        var differing: [UInt64] = []

        mutating func archived(_ sequence: UInt64, _ hash: SHA256Digest, kept: inout KeptEntries) {
            while let pending = next, pending.sequence < sequence { next = kept.next() }
            guard let pending = next, pending.sequence == sequence else { return }
            if pending.hash != hash { differing.append(sequence) }
            next = kept.next()
        }
    }

    /// One archived segment: its bytes against the manifest, and each line in the chain.
    /// - Parameter archived: called with each entry read, its sequence and hash, in order.
    private func checkSegment(
        _ segment: ArchiveManifest.Segment, folder: String, expected: inout UInt64, previous: inout SHA256Digest,
        findings: inout [VerificationFinding], archived: (UInt64, SHA256Digest) -> Void
    ) {
        let path = folder + "/" + segment.file
        if segment.first != expected {
            findings.append(finding(.missingSegment, path, nil, "missing: archived seq \(expected)…\(segment.first - 1) are not in the manifest"))
        }
        guard let bytes = try? FileSystem.readFile(JournalStart.resolve(folder, root: layout.root) + "/" + segment.file) else {
            findings.append(finding(.missingSegment, path, nil, "missing: the archived segment holding seq \(segment.first)…\(segment.last) is gone"))
            expected = segment.last + 1
            previous = segment.lastHash
            return
        }
        let intactFile = SHA256.hash(bytes) == segment.sha256 && Int64(bytes.count) == segment.bytes
        let loaded = SegmentCache(segmentIndex: -1, segmentCount: 0, bytes: bytes)
        var located = intactFile
        var sequence = segment.first
        var chained = segment.previous
        if segment.previous != previous && segment.first == expected {
            findings.append(finding(.rewrittenLine, path, 1, "rewritten: the manifest's previous hash does not continue the chain"))
        }
        for line in loaded.lineStarts.indices {
            guard let entry = Self.entry(loaded, line: line) else {
                findings.append(finding(.malformedLine, path, line + 1, "malformed: not a journal entry (archived seq \(sequence))"))
                located = true
                sequence += 1
                continue
            }
            if !Self.lineMatchesHash(loaded, line: line, entry: entry) {
                findings.append(finding(.editedLine, path, line + 1, "edited: the archived line's content does not match its hash (seq \(entry.sequence))"))
                located = true
            } else if entry.sequence != sequence {
                findings.append(finding(.reorderedLine, path, line + 1, "reordered: expected archived seq \(sequence), found \(entry.sequence)"))
                located = true
            } else if entry.previousHash != chained {
                findings.append(finding(.rewrittenLine, path, line + 1, "rewritten: seq \(entry.sequence)'s prev is not the previous entry's hash"))
                located = true
            }
            archived(entry.sequence, entry.hash)
            chained = entry.hash
            sequence += 1
        }
        if !located {
            findings.append(finding(.editedLine, path, nil, "edited: the file does not match its SHA-256 in the archive's manifest"))
        } else if sequence != segment.last + 1 {
            findings.append(finding(.truncatedSegment, path, nil, "truncated: the manifest says seq \(segment.first)…\(segment.last), the file ends at seq \(sequence - 1)"))
        } else if chained != segment.lastHash {
            findings.append(finding(.rewrittenLine, path, loaded.lineStarts.count, "rewritten: the last entry's hash is not the manifest's"))
        }
        expected = segment.last + 1
        previous = segment.lastHash
    }

    /// The entry on a line: by the canonical fast path, or the general decoder for a line not
    /// laid out canonically; `nil` when it is not a journal entry.
    fileprivate static func entry(_ loaded: SegmentCache, line: Int) -> JournalEntry? {
        loaded.withLine(line) { bytes in CanonicalEntryDecoder.decode(bytes) ?? (try? JournalEntry.decode(line: bytes)) }
    }

    fileprivate static func lineMatchesHash(_ loaded: SegmentCache, line: Int, entry: JournalEntry) -> Bool {
        loaded.withLine(line) { bytes -> Bool in
            guard let member = CanonicalJournalLine.hashMemberStart(bytes) else { return entry.computedHash() == entry.hash }
            return CanonicalJournalLine.hashWithoutHashMember(bytes, memberStart: member) == entry.hash
        }
    }
}

/// The kept entries of a compacted journal (`journal/kept-<seq>/`), read one file at a time in
/// the order of their names, each line checked (its hash, and that sequences ascend and stay
/// before the journal's start) as it is handed out.
private struct KeptEntries {
    let start: JournalStart
    /// The folder's path, and its name in findings (`journal/kept-<seq>`).
    private let folder: String
    private let relative: String
    private var files: [JournalSegment] = []
    private var fileNumber = 0
    private var loaded: SegmentCache?
    private var path = ""
    private var line = 0
    private var last: UInt64 = 0
    private var count = 0
    private var findings: [VerificationFinding] = []
    /// The folder is gone (a finding says so): nothing to count.
    private var isMissing = false

    init(start: JournalStart, layout: StoreLayout) {
        self.start = start
        folder = layout.journal + "/" + start.keptFolder
        relative = "journal/" + start.keptFolder
        guard let listing = try? FileSystem.contents(ofDirectory: folder) else {
            findings.append(VerificationFinding(kind: .missingSegment, path: relative, message: "missing: the kept entries' folder is gone"))
            isMissing = true
            return
        }
        files = listing.compactMap { JournalSegment(fileName: $0.name) }.sorted { $0.firstSequence < $1.firstSequence }
    }

    /// The next kept entry that decodes: its sequence and hash.
    mutating func next() -> (sequence: UInt64, hash: SHA256Digest)? {
        while true {
            if let loaded, line < loaded.lineStarts.count {
                let number = line
                line += 1
                guard let entry = ArchiveVerifier.entry(loaded, line: number) else {
                    findings.append(VerificationFinding(kind: .malformedLine, path: path, line: number + 1, message: "malformed: not a journal entry"))
                    continue
                }
                if !ArchiveVerifier.lineMatchesHash(loaded, line: number, entry: entry) {
                    findings.append(
                        VerificationFinding(
                            kind: .editedLine, path: path, line: number + 1,
                            message: "edited: the kept entry's content does not match its hash (seq \(entry.sequence))"))
                } else if entry.sequence <= last || entry.sequence >= start.first {
                    findings.append(
                        VerificationFinding(
                            kind: .reorderedLine, path: path, line: number + 1,
                            message: "reordered: kept seq \(entry.sequence) is out of order or past the start"))
                }
                if entry.sequence > last { count += 1 }
                last = max(last, entry.sequence)
                return (entry.sequence, entry.hash)
            }
            loaded = nil
            guard fileNumber < files.count else { return nil }
            let file = files[fileNumber]
            fileNumber += 1
            path = relative + "/" + file.name
            line = 0
            guard let bytes = try? FileSystem.readFile(folder + "/" + file.name) else {
                findings.append(VerificationFinding(kind: .unreadableFile, path: path, message: "unreadable"))
                continue
            }
            loaded = SegmentCache(segmentIndex: -1, segmentCount: 0, bytes: bytes)
        }
    }

    /// What was found in the entries read, and whether as many were read as `start.json` counts.
    /// Call once every entry was read.
    mutating func finish() -> [VerificationFinding] {
        if !isMissing && count != start.keptEntries {
            findings.append(
                VerificationFinding(
                    kind: .removedLines, path: relative,
                    message: "removed: journal/start.json counts \(start.keptEntries) kept entries, the folder holds \(count)"))
        }
        return findings
    }
}
