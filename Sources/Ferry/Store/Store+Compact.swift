import Foundation

/// `ferry compact`: moving old journal segments into an archive, keeping what the store needs.
///
/// Whole segments at the start of the journal whose every entry is older than the horizon
/// (the last segment too: the next write then starts a new one) are copied to the archive
/// folder byte for byte, with a manifest. The entries among them that are still some record's
/// current version (tombstones included) are copied, as the same lines, to
/// `journal/kept-<first live seq>/`, and `journal/start.json` names the first live position and
/// the hash of the last archived entry. Only then are the segments deleted. Each step is durable
/// before the next starts, so a crash at any point leaves a store that opens and verifies, and
/// running the compaction again finishes it (see ``JournalStart``).
extension Store {
    /// Archives journal history older than `options.keep` (see ``CompactionOptions``).
    ///
    /// ```swift
    /// let report = try store.compact(CompactionOptions(keep: 0))
    /// print(report.archivedSegments, report.firstLiveSequence)
    /// ```
    /// A tombstone is kept, like any current version, until every peer this store has a sync
    /// checkpoint for has been sent the deletion; then, once older than the horizon, it is
    /// dropped. A record's live versions are always kept.
    ///
    /// - Parameter progress: Called as segments are archived (`archive`, in bytes) and as the
    ///   current versions among them are copied (`current versions`, in entries).
    /// - Throws: ``StoreError/archiveNotWritable(path:reason:)`` (nothing changed), journal
    ///   errors when a segment to archive does not check (run `ferry verify`).
    public func compact(_ compaction: CompactionOptions, progress: WorkProgressHandler? = nil) throws(StoreError) -> CompactionReport {
        try withWriteLock { () throws(StoreError) -> CompactionReport in
            let now = options.clock.milliseconds()
            let horizon = now > compaction.keep ? now - compaction.keep : 0
            let (recorded, archivePath) = archiveLocation(compaction.archiveFolder)
            var report = CompactionReport(
                horizon: horizon, archive: recorded, archivePath: archivePath, firstLiveSequence: journal.firstLiveSequence)
            report.dryRun = compaction.dryRun
            let plan = try compactionPlan(horizon: horizon)
            report.archivedSegments = plan.map(\.segment.name)
            report.archivedEntries = plan.reduce(0) { $0 + Int($1.last - $1.first + 1) }
            report.archivedBytes = plan.reduce(0) { $0 + $1.bytes }
            guard let lastArchived = plan.last else {
                if !compaction.dryRun { report.finishedLeftovers = try removeCompactionLeftovers() }
                report.liveSegments = journal.segments.count
                report.keptEntries = journal.start?.keptEntries ?? 0
                return report
            }
            let newFirst = lastArchived.last + 1
            let (kept, dropped) = try keptSequences(before: newFirst, horizon: horizon)
            report.keptEntries = kept.count
            report.droppedTombstones = dropped
            report.firstLiveSequence = newFirst
            report.liveSegments = journal.segments.count - plan.count
            if compaction.dryRun { return report }

            func stop(after step: CompactionOptions.Step) throws(StoreError) {
                if compaction.stopAfter == step { throw .io(SystemError("compact (stopped for a test)", path: layout.root, code: EINTR)) }
            }
            try prepareArchiveFolder(archivePath)
            // 1. The segments, then 2. the manifest: durable before the journal changes.
            var manifest: ArchiveManifest
            do throws(JournalError) { manifest = try ArchiveManifest.read(folder: archivePath) ?? ArchiveManifest(replica: replicaID, segments: []) } catch {
                throw .archiveNotWritable(path: archivePath, reason: error.description)
            }
            guard manifest.replica == replicaID else {
                throw .archiveNotWritable(path: archivePath, reason: "it holds the archive of another store (\(manifest.replica.short))")
            }
            do throws(SystemError) {
                var archived: Int64 = 0
                for item in plan {
                    try archive(item, to: archivePath)
                    archived += item.bytes
                    progress?(WorkProgress(task: "archive", done: Int(clamping: archived), total: Int(clamping: report.archivedBytes), unit: .bytes))
                }
                try FileSystem.synchronizeDirectory(archivePath)
            } catch { throw .archiveNotWritable(path: archivePath, reason: error.description) }
            try stop(after: .archiveSegments)
            let names = Set(plan.map(\.segment.name))
            manifest.segments = (manifest.segments.filter { !names.contains($0.file) } + plan.map(\.manifestEntry)).sorted { $0.first < $1.first }
            do throws(SystemError) {
                try FileSystem.writeFileAtomically(archivePath + "/" + ArchiveManifest.fileName, manifest.jsonValue.prettyBytes(), durable: true)
            } catch { throw .archiveNotWritable(path: archivePath, reason: error.description) }
            try stop(after: .archiveManifest)
            // 3. The kept entries, in a new folder.
            let keptFolder = JournalStart.keptFolderName(first: newFirst)
            try writeKept(kept, folder: keptFolder, plan: plan, progress: progress)
            try stop(after: .keptEntries)
            if dropped > 0 {
                // The index lists the dropped tombstones: it goes before the journal forgets
                // them, and is rebuilt from the kept entries and the live journal.
                cancelIndexMerge()
                do throws(SystemError) {
                    for path in [layout.index, layout.indexDelta, layout.indexMerging] where FileSystem.exists(path) { try FileSystem.removeFile(path) }
                } catch { throw .io(error) }
                persistedHead = index.headSequence
                stampsChanged = false
            }
            // 4. The new start.
            var frontier = journal.start?.frontier ?? ReplicaFrontier(knowledge: VersionVector(), digests: [:])
            for item in plan { frontier = SnapshotJoins.raise(frontier, to: item.frontier) }
            var archives = journal.start?.archives ?? []
            let first = plan[0].first
            if let last = archives.last, last.path == recorded, last.last + 1 == first {
                archives[archives.count - 1].last = lastArchived.last
            } else {
                archives.append(JournalStart.Archive(path: recorded, first: first, last: lastArchived.last))
            }
            let start = JournalStart(
                first: newFirst, previous: lastArchived.lastHash, keptFolder: keptFolder, keptEntries: kept.count, frontier: frontier,
                archives: archives, compacted: now)
            do throws(SystemError) {
                try FileSystem.writeFileAtomically(layout.journal + "/" + JournalStart.fileName, start.jsonValue.prettyBytes(), durable: true)
            } catch { throw .io(error) }
            try stop(after: .journalStart)
            // 5. Only now the archived segments and the old kept entries go.
            do throws(JournalError) { try journal.reload() } catch { throw .journal(error) }
            _ = try removeCompactionLeftovers()
            try stop(after: .deleteSegments)
            if dropped > 0 {
                // The dropped tombstones' records leave the index.
                try rebuildFromJournal(warn: false)
            }
            return report
        }
    }

    /// The archive folder as `start.json` records it (relative to the store when inside it),
    /// and as a path.
    func archiveLocation(_ requested: String?) -> (recorded: String, path: String) {
        guard let requested, !requested.isEmpty else {
            if let last = journal.start?.archives.last { return (last.path, JournalStart.resolve(last.path, root: layout.root)) }
            return ("archive", layout.root + "/archive")
        }
        var path = requested.hasPrefix("/") ? requested : layout.root + "/" + requested
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let root = layout.root.hasPrefix("/") ? layout.root : FileManager.default.currentDirectoryPath + "/" + layout.root
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        if absolute.hasPrefix(root + "/") { return (String(absolute.dropFirst(root.count + 1)), path) }
        return (absolute, path)
    }

    /// One segment to archive, checked.
    struct ArchivePlanItem {
        var segment: JournalSegment
        var first: UInt64
        var last: UInt64
        var previous: SHA256Digest
        var lastHash: SHA256Digest
        var sha256: SHA256Digest
        var bytes: Int64
        /// The highest counter of each origin among its changes, with that change's digest.
        var frontier: ReplicaFrontier

        var manifestEntry: ArchiveManifest.Segment {
            .init(file: segment.name, first: first, last: last, previous: previous, lastHash: lastHash, sha256: sha256, bytes: bytes)
        }
    }

    /// The segments to archive: the longest run from the journal's start whose entries are all
    /// older than `horizon`, each read and checked (sequence, chain and hash of every line).
    private func compactionPlan(horizon: UInt64) throws(StoreError) -> [ArchivePlanItem] {
        var plan: [ArchivePlanItem] = []
        var expected = journal.firstLiveSequence
        var previous = journal.start?.previous ?? .zero
        for (index, segment) in journal.segments.enumerated() {
            let loaded: SegmentCache
            do { loaded = try journal.loadSegment(at: index) } catch { throw .journal(error) }
            guard !loaded.lineStarts.isEmpty, loaded.bytes.last == UInt8(ascii: "\n") else { break }
            let first = expected
            let before = previous
            var newest: UInt64 = 0
            var counters: [ReplicaID: UInt64] = [:]
            var digests: [ReplicaID: SHA256Digest] = [:]
            for line in loaded.lineStarts.indices {
                let entry: JournalEntry
                do { entry = try loaded.decode(lineIndex: line, segmentName: segment.name) } catch { throw .journal(error) }
                let intact = loaded.withLine(line) { bytes -> Bool in
                    guard let member = CanonicalJournalLine.hashMemberStart(bytes) else { return false }
                    return CanonicalJournalLine.hashWithoutHashMember(bytes, memberStart: member) == entry.hash
                }
                guard entry.sequence == expected, entry.previousHash == previous, intact || entry.computedHash() == entry.hash else {
                    throw .journal(
                        .malformedEntry(
                            segment: segment.name, line: line + 1,
                            reason: "does not continue the chain (run ferry verify); nothing was archived"))
                }
                newest = max(newest, entry.change.timestamp.physical)
                let change = entry.change
                if change.counter > counters[change.origin] ?? 0 {
                    counters[change.origin] = change.counter
                    digests[change.origin] = change.digest
                }
                expected += 1
                previous = entry.hash
            }
            guard newest <= horizon else { break }
            plan.append(
                ArchivePlanItem(
                    segment: segment, first: first, last: expected - 1, previous: before, lastHash: previous,
                    sha256: SHA256.hash(loaded.bytes), bytes: Int64(loaded.bytes.count),
                    frontier: ReplicaFrontier(knowledge: VersionVector(counters), digests: digests)))
        }
        return plan
    }

    /// The positions of every current version before `first`, ascending, and how many
    /// tombstones were left out: a deleted record whose versions are all before `first` and
    /// older than `horizon`, and whose deletion every known peer has been sent (its
    /// checkpoint's `localPosition` is past it).
    private func keptSequences(before first: UInt64, horizon: UInt64) throws(StoreError) -> (kept: [UInt64], dropped: Int) {
        // A damaged checkpoint stops compaction: read as no peer, it would drop tombstones that
        // peer was never sent.
        let seenByEveryPeer = try allCheckpoints().map(\.localPosition).min() ?? UInt64.max
        var kept: [UInt64] = []
        var dropped = 0
        let intact = index.records.forEachStateStreaming { state in
            let newest = state.versions.map(\.sequence).max() ?? 0
            if state.versions.allSatisfy(\.isDelete), newest < first, newest <= seenByEveryPeer,
                state.versions.allSatisfy({ $0.timestamp.physical <= horizon })
            {
                dropped += 1
                return
            }
            for version in state.versions where version.sequence < first { kept.append(version.sequence) }
        }
        guard intact else { throw .damagedIndex(reason: "a record line cannot be read") }
        kept.sort()
        return (kept, dropped)
    }

    /// Creates the archive folder and proves it can be written, before anything is.
    private func prepareArchiveFolder(_ path: String) throws(StoreError) {
        let probe = path + "/.ferry-probe-\(getpid())"
        do {
            try FileSystem.createDirectories(path)
            try FileSystem.writeFileAtomically(probe, [], durable: false)
            try FileSystem.removeFile(probe)
        } catch { throw .archiveNotWritable(path: path, reason: error.description) }
    }

    /// Copies one segment into the archive (temporary file, `fsync`, rename), unless an
    /// identical copy is there already.
    private func archive(_ item: ArchivePlanItem, to folder: String) throws(SystemError) {
        let destination = folder + "/" + item.segment.name
        if let existing = try? FileSystem.readFile(destination), SHA256.hash(existing) == item.sha256 { return }
        let bytes = try FileSystem.readFile(layout.journal + "/" + item.segment.name)
        guard SHA256.hash(bytes) == item.sha256 else { throw SystemError("archive (the segment changed while read)", path: destination, code: EIO) }
        try FileSystem.writeFileAtomically(destination, bytes, durable: true)
    }

    /// Writes the kept entries (the lines, as they are) into `journal/<folder>/`, files of at
    /// most ``Journal/segmentEntryLimit`` lines named by their first entry, through a temporary
    /// folder renamed into place.
    private func writeKept(_ kept: [UInt64], folder: String, plan: [ArchivePlanItem], progress: WorkProgressHandler?) throws(StoreError) {
        let final = layout.journal + "/" + folder
        let temporary = layout.journal + "/.tmp-" + folder
        do {
            if FileSystem.exists(temporary) { try FileSystem.removeTree(temporary) }
            if FileSystem.exists(final) { try FileSystem.removeTree(final) }
            try FileSystem.createDirectory(temporary)
        } catch { throw .io(error) }
        var position = 0
        var buffer: [UInt8] = []
        var lines = 0
        var bufferFirst: UInt64 = 0
        func flush() throws(StoreError) {
            guard lines > 0 else { return }
            do {
                try FileSystem.writeFileAtomically(temporary + "/" + JournalSegment(firstSequence: bufferFirst).name, buffer, durable: true)
            } catch { throw .io(error) }
            buffer.removeAll(keepingCapacity: true)
            lines = 0
        }
        func take(_ file: SegmentCache, name: String) throws(StoreError) {
            for line in file.lineStarts.indices where position < kept.count {
                let entry: JournalEntry
                do { entry = try file.decode(lineIndex: line, segmentName: name) } catch { throw .journal(error) }
                while position < kept.count && kept[position] < entry.sequence { position += 1 }
                guard position < kept.count, kept[position] == entry.sequence else { continue }
                if lines == 0 { bufferFirst = entry.sequence }
                file.withLine(line) { buffer.append(contentsOf: $0) }
                buffer.append(UInt8(ascii: "\n"))
                lines += 1
                position += 1
                if lines >= Journal.segmentEntryLimit { try flush() }
            }
            progress?(WorkProgress(task: "current versions", done: position, total: kept.count, unit: .items("entries")))
        }
        do {
            for index in journal.kept.indices { try take(try journal.loadKept(at: index), name: journal.keptName(at: index)) }
            for item in plan {
                guard let index = journal.segments.firstIndex(of: item.segment) else { throw JournalError.missingSegment(item.segment.name) }
                try take(try journal.loadSegment(at: index), name: item.segment.name)
            }
        } catch let error as StoreError {
            throw error
        } catch let error as JournalError {
            throw .journal(error)
        } catch {
            throw .coding("\(error)")
        }
        try flush()
        guard position == kept.count else {
            throw .journal(.archived(kept[position], first: journal.firstLiveSequence))
        }
        do {
            try FileSystem.rename(temporary, to: final)
            try FileSystem.synchronizeDirectory(layout.journal)
        } catch { throw .io(error) }
    }

    /// Removes what an earlier compaction left behind: segments before the journal's start
    /// (archived; a compaction stopped before deleting them) and kept folders that
    /// `start.json` does not name. Returns how many were removed.
    private func removeCompactionLeftovers() throws(StoreError) -> Int {
        guard let start = journal.start else { return 0 }
        var removed = 0
        do {
            for entry in try FileSystem.contents(ofDirectory: layout.journal) {
                let path = layout.journal + "/" + entry.name
                if let segment = JournalSegment(fileName: entry.name), segment.firstSequence < start.first {
                    try FileSystem.removeFile(path)
                    removed += 1
                } else if (entry.name.hasPrefix("kept-") || entry.name.hasPrefix(".tmp-kept-")) && entry.name != start.keptFolder {
                    try FileSystem.removeTree(path)
                    removed += 1
                }
            }
            if removed > 0 { try FileSystem.synchronizeDirectory(layout.journal) }
        } catch { throw .io(error) }
        return removed
    }
}
