/// Checks what `ferry compact` left before a journal's live segments, for ``StoreVerifier``:
/// `journal/start.json`, the kept entries in `journal/kept-<seq>/`, and, when the archive
/// folders are where the start file says, every archived segment (its SHA-256 against the
/// manifest, then each line's hash and its place in the chain), so the archive and the live
/// journal are checked as one chain. A flipped byte is reported at its file and line.
///
/// ```swift
/// let check = ArchiveVerifier(layout: StoreLayout(root: "./data")).verify()
/// check.summary?.isPresent   // false when the archive was moved away: the live journal alone is checked
/// ```
struct ArchiveVerifier {
    let layout: StoreLayout

    /// What was checked and found.
    struct Outcome {
        /// The compacted journal's start; `nil` when the journal was never compacted (or the
        /// start file cannot be read: then a finding says so).
        var start: JournalStart?
        var findings: [VerificationFinding] = []
        var summary: VerificationReport.Archive?
    }

    func verify() -> Outcome {
        var outcome = Outcome()
        let start: JournalStart?
        do { start = try JournalStart.read(directory: layout.journal) } catch {
            outcome.findings.append(
                VerificationFinding(kind: .unreadableFile, path: "journal/" + JournalStart.fileName, message: "unreadable: \(error)"))
            return outcome
        }
        guard let start else { return outcome }
        outcome.start = start
        var summary = VerificationReport.Archive(
            firstLiveSequence: start.first, folders: start.archives.map(\.path), isPresent: true, archivedEntries: 0,
            keptEntries: start.keptEntries)
        let kept = checkKept(start, findings: &outcome.findings)
        var hashes: [UInt64: SHA256Digest] = [:]
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
                    outcome.findings.append(finding(.missingSegment, archive.path + "/" + ArchiveManifest.fileName, nil, "missing: the archive's manifest is gone"))
                    continue
                }
                manifest = read
            } catch {
                outcome.findings.append(finding(.malformedLine, archive.path + "/" + ArchiveManifest.fileName, nil, "unreadable: \(error)"))
                continue
            }
            for segment in manifest.segments where segment.first >= archive.first && segment.last <= archive.last {
                checkSegment(segment, folder: archive.path, expected: &expected, previous: &previous, hashes: &hashes, findings: &outcome.findings)
            }
            summary.archivedEntries += Int(archive.last - archive.first + 1)
        }
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
            for (sequence, hash) in kept where hashes[sequence].map({ $0 != hash }) ?? false {
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

    /// Each kept entry's hash, ascending sequences before the start; their hashes by sequence.
    private func checkKept(_ start: JournalStart, findings: inout [VerificationFinding]) -> [UInt64: SHA256Digest] {
        let folder = layout.journal + "/" + start.keptFolder
        guard let files = try? FileSystem.contents(ofDirectory: folder) else {
            findings.append(finding(.missingSegment, "journal/" + start.keptFolder, nil, "missing: the kept entries' folder is gone"))
            return [:]
        }
        var hashes: [UInt64: SHA256Digest] = [:]
        var last: UInt64 = 0
        for file in files.compactMap({ JournalSegment(fileName: $0.name) }).sorted(by: { $0.firstSequence < $1.firstSequence }) {
            let path = "journal/" + start.keptFolder + "/" + file.name
            guard let bytes = try? FileSystem.readFile(folder + "/" + file.name) else {
                findings.append(finding(.unreadableFile, path, nil, "unreadable"))
                continue
            }
            let loaded = SegmentCache(segmentIndex: -1, segmentCount: 0, bytes: bytes)
            for line in loaded.lineStarts.indices {
                guard let entry = try? loaded.decode(lineIndex: line, segmentName: path) else {
                    findings.append(finding(.malformedLine, path, line + 1, "malformed: not a journal entry"))
                    continue
                }
                if !lineMatchesHash(loaded, line: line, entry: entry) {
                    findings.append(finding(.editedLine, path, line + 1, "edited: the kept entry's content does not match its hash (seq \(entry.sequence))"))
                } else if entry.sequence <= last || entry.sequence >= start.first {
                    findings.append(finding(.reorderedLine, path, line + 1, "reordered: kept seq \(entry.sequence) is out of order or past the start"))
                }
                last = max(last, entry.sequence)
                hashes[entry.sequence] = entry.hash
            }
        }
        if hashes.count != start.keptEntries {
            findings.append(
                finding(.removedLines, "journal/" + start.keptFolder, nil,
                    "removed: journal/start.json counts \(start.keptEntries) kept entries, the folder holds \(hashes.count)"))
        }
        return hashes
    }

    /// One archived segment: its bytes against the manifest, and each line in the chain.
    private func checkSegment(
        _ segment: ArchiveManifest.Segment, folder: String, expected: inout UInt64, previous: inout SHA256Digest,
        hashes: inout [UInt64: SHA256Digest], findings: inout [VerificationFinding]
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
            guard let entry = try? loaded.decode(lineIndex: line, segmentName: path) else {
                findings.append(finding(.malformedLine, path, line + 1, "malformed: not a journal entry (archived seq \(sequence))"))
                located = true
                sequence += 1
                continue
            }
            if !lineMatchesHash(loaded, line: line, entry: entry) {
                findings.append(finding(.editedLine, path, line + 1, "edited: the archived line's content does not match its hash (seq \(entry.sequence))"))
                located = true
            } else if entry.sequence != sequence {
                findings.append(finding(.reorderedLine, path, line + 1, "reordered: expected archived seq \(sequence), found \(entry.sequence)"))
                located = true
            } else if entry.previousHash != chained {
                findings.append(finding(.rewrittenLine, path, line + 1, "rewritten: seq \(entry.sequence)'s prev is not the previous entry's hash"))
                located = true
            }
            hashes[entry.sequence] = entry.hash
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

    private func lineMatchesHash(_ loaded: SegmentCache, line: Int, entry: JournalEntry) -> Bool {
        loaded.withLine(line) { bytes -> Bool in
            guard let member = CanonicalJournalLine.hashMemberStart(bytes) else { return entry.computedHash() == entry.hash }
            return CanonicalJournalLine.hashWithoutHashMember(bytes, memberStart: member) == entry.hash
        }
    }
}
