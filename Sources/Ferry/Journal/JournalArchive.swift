/// Reading a compacted journal's archived segments, when their folders are where
/// `journal/start.json` says (see ``JournalStart``): to serve a peer that lacks archived
/// changes, and to answer for the hash of an archived position.
///
/// Each segment file is checked against the SHA-256 its manifest gives before a line of it is
/// used; a folder that was moved away, or a manifest that does not cover its range, makes the
/// archive absent (``open(start:root:)`` returns `nil`).
struct JournalArchive {
    /// One archived segment and the folder holding it.
    struct Located {
        var folder: String
        var segment: ArchiveManifest.Segment
    }

    /// Every archived segment, in sequence order, from 1 (or the first archived) to `start.first - 1`.
    let segments: [Located]

    /// The archive of `start`'s journal, or `nil` when a folder or a segment is missing.
    static func open(start: JournalStart, root: String) -> JournalArchive? {
        var located: [Located] = []
        for archive in start.archives {
            let folder = JournalStart.resolve(archive.path, root: root)
            guard let manifest = try? ArchiveManifest.read(folder: folder) else { return nil }
            let inRange = manifest.segments.filter { $0.first >= archive.first && $0.last <= archive.last }
            guard inRange.first?.first == archive.first, inRange.last?.last == archive.last else { return nil }
            for segment in inRange {
                guard FileSystem.exists(folder + "/" + segment.file) else { return nil }
                located.append(Located(folder: folder, segment: segment))
            }
        }
        // One chain: each segment follows the one before.
        for (previous, next) in zip(located, located.dropFirst()) where previous.segment.last + 1 != next.segment.first {
            return nil
        }
        guard let last = located.last, last.segment.last + 1 == start.first, located.first?.segment.first == 1 else { return nil }
        return JournalArchive(segments: located)
    }

    /// The bytes of an archived segment, checked against its manifest.
    func load(_ located: Located) throws(JournalError) -> SegmentCache {
        let path = located.folder + "/" + located.segment.file
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path) } catch { throw .damagedArchive(reason: "\(path): \(error)") }
        guard SHA256.hash(bytes) == located.segment.sha256 else {
            throw .damagedArchive(reason: "\(path) does not match its SHA-256 in the manifest (run ferry verify)")
        }
        return SegmentCache(segmentIndex: -1, segmentCount: 0, bytes: bytes)
    }

    /// The archived entry at `sequence`.
    func entry(at sequence: UInt64) throws(JournalError) -> JournalEntry? {
        guard let located = segments.first(where: { $0.segment.first <= sequence && sequence <= $0.segment.last }) else { return nil }
        let loaded = try load(located)
        let line = Int(sequence - located.segment.first)
        guard line < loaded.lineStarts.count else { return nil }
        let entry = try loaded.decode(lineIndex: line, segmentName: located.segment.file)
        return entry.sequence == sequence ? entry : nil
    }

    /// Calls `body` with each archived entry after `sequence`, in order; return `false` to stop.
    func forEachEntry(after sequence: UInt64, _ body: (JournalEntry) throws(StoreError) -> Bool) throws(StoreError) {
        for located in segments where located.segment.last > sequence {
            let loaded: SegmentCache
            do { loaded = try load(located) } catch { throw .journal(error) }
            for line in loaded.lineStarts.indices {
                let entry: JournalEntry
                do { entry = try loaded.decode(lineIndex: line, segmentName: located.segment.file) } catch { throw .journal(error) }
                if entry.sequence <= sequence { continue }
                if try !body(entry) { return }
            }
        }
    }
}
