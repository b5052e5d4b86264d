import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// `ferry compact` (issue 19, item 4): old segments move to an archive, the store keeps every
/// record and serves every peer, deletions never come back, and `verify` checks the archive and
/// the live journal as one chain.
@Suite struct CompactionTests {
    let notes = try! EntityName("Note")

    func makeStore(_ directory: TemporaryDirectory, _ name: String) throws -> Store {
        try Store.create(at: directory.subpath(name), name: name)
    }

    /// Creates, edits, deletes and a conflict, so the kept entries hold live versions, a
    /// tombstone and two concurrent versions.
    func writeHistory(_ store: Store, count: Int = 20) throws {
        for index in 0..<count { try store.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("r\(index)")) }
        for index in stride(from: 0, to: count, by: 2) { try store.put(["n": .integer(Int64(index * 10 + 5))], entity: notes, id: RecordID("r\(index)")) }
        try store.delete(entity: notes, id: RecordID("r1"))
    }

    /// Store `a` with a history, compacted after `b` synced its first record only: `b` is a
    /// peer that lacks archived changes.
    func compactedStoreWithStalePeer(_ directory: TemporaryDirectory) async throws -> (a: Store, b: Store) {
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try a.put(["v": 1], entity: notes, id: RecordID("first"))
        _ = try await b.sync(with: FolderTransport(path: a.path))
        try writeHistory(a)
        _ = try a.compact(CompactionOptions(keep: 0))
        return (a, b)
    }

    func snapshot(_ store: Store) throws -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (id, document) in try store.records(of: notes) { result[id.rawValue] = document }
        return result
    }

    @Test func compactionKeepsStateAndVerifies() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, "a")
        try writeHistory(store)
        let before = try snapshot(store)
        let knowledge = store.knowledge
        let report = try store.compact(CompactionOptions(keep: 0))
        #expect(report.archivedSegments == ["00000000000000000001.jsonl"])
        #expect(report.archivedEntries == 31)
        #expect(report.firstLiveSequence == 32)
        // No peer: the tombstone of r1 is dropped; 19 live records keep one version each.
        #expect(report.keptEntries == 19)
        #expect(report.droppedTombstones == 1)
        #expect(try FileSystem.contents(ofDirectory: store.layout.journal).allSatisfy { JournalSegment(fileName: $0.name) == nil })
        #expect(try snapshot(store) == before)
        try store.put(["n": 99], entity: notes, id: RecordID("new"))
        store.close()

        let reopened = try Store.open(at: directory.subpath("a"))
        #expect(reopened.knowledge[reopened.replicaID] == knowledge[reopened.replicaID] + 1)
        var expected = before
        expected["new"] = ["n": 99]
        #expect(try snapshot(reopened) == expected)
        reopened.close()
        // A rebuilt index (kept entries then the live journal) gives the same records.
        try FileSystem.removeFile(directory.subpath("a/.ferry/index"))
        try? FileSystem.removeFile(directory.subpath("a/.ferry/index-delta"))
        let rebuilt = try Store.open(at: directory.subpath("a"), options: quiet())
        #expect(try snapshot(rebuilt) == expected)
        rebuilt.close()
        let verification = try verifyInPartitions(at: directory.subpath("a"))
        #expect(verification.isClean, "\(verification.findings)")
        #expect(verification.archive?.isPresent == true)
        #expect(verification.archive?.archivedEntries == 31)
    }

    func quiet() -> StoreOptions {
        var options = StoreOptions()
        options.warningHandler = { _ in }
        return options
    }

    @Test func flippedByteInTheArchiveIsFoundAndLocated() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, "a")
        try writeHistory(store)
        _ = try store.compact(CompactionOptions(keep: 0))
        try store.put(["n": 1], entity: notes, id: RecordID("after"))
        store.close()
        let segment = directory.subpath("a/archive/00000000000000000001.jsonl")
        var bytes = try FileSystem.readFile(segment)
        // Line 7: flip one digit of its document.
        var line = 1
        var offset = 0
        while line < 7 {
            if bytes[offset] == UInt8(ascii: "\n") { line += 1 }
            offset += 1
        }
        let digit = try #require(bytes[offset...].firstIndex(of: UInt8(ascii: "6")))
        bytes[digit] = UInt8(ascii: "7")
        try FileSystem.writeFileAtomically(segment, bytes, durable: false)
        let report = try verifyInPartitions(at: directory.subpath("a"))
        let finding = try #require(report.findings.first { $0.path == "archive/00000000000000000001.jsonl" })
        #expect(finding.kind == .editedLine)
        #expect(finding.line == 7)
        #expect(!report.isClean)
    }

    /// Store `name` with the history, compacted: its kept entries' file, and their count.
    func compactedStore(_ directory: TemporaryDirectory, _ name: String) throws -> (keptFile: String, kept: Int) {
        let store = try makeStore(directory, name)
        try writeHistory(store)
        let report = try store.compact(CompactionOptions(keep: 0))
        store.close()
        let folder = directory.subpath(name + "/journal/" + JournalStart.keptFolderName(first: report.firstLiveSequence))
        let files = try FileSystem.contents(ofDirectory: folder).map(\.name)
        #expect(files.count == 1)
        return (folder + "/" + (files.first ?? ""), report.keptEntries)
    }

    /// The kept entries are checked line by line as they are read beside the archive: an edited
    /// line, a line removed, and lines that are valid but not the archived entries of their
    /// sequences (another store's) are each found.
    @Test func damagedKeptEntriesAreFound() throws {
        let directory = try TemporaryDirectory()
        let (keptFile, kept) = try compactedStore(directory, "a")
        let original = try FileSystem.readFile(keptFile)
        let relative = "journal/" + FileSystem.lastComponent(of: FileSystem.parentPath(of: keptFile))

        // Line 3: one digit of its document flipped.
        var lines = original.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        let docStart = try #require(lines[2].firstRange(of: Array(#""doc":{"n":"#.utf8))).upperBound
        lines[2][docStart] = lines[2][docStart] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")
        try FileSystem.writeFileAtomically(keptFile, Array(lines.joined(separator: [UInt8(ascii: "\n")])), durable: false)
        var report = try verifyInPartitions(at: directory.subpath("a"))
        let edited = try #require(report.findings.first { $0.kind == .editedLine && $0.path.hasPrefix(relative) }, "\(report.findings)")
        #expect(edited.line == 3)
        #expect(!report.isClean)

        // The last line removed: counted.
        try FileSystem.writeFileAtomically(keptFile, Array(original[..<(original.dropLast().lastIndex(of: UInt8(ascii: "\n")) ?? 0)]) + [UInt8(ascii: "\n")], durable: false)
        report = try verifyInPartitions(at: directory.subpath("a"))
        #expect(
            report.findings.contains { $0.kind == .removedLines && $0.message.contains("counts \(kept) kept entries, the folder holds \(kept - 1)") },
            "\(report.findings)")

        // Another store's kept entries, valid lines of the same sequences: each differs from
        // the archived entry of its sequence.
        let (otherFile, otherKept) = try compactedStore(directory, "b")
        #expect(otherKept == kept && FileSystem.lastComponent(of: otherFile) == FileSystem.lastComponent(of: keptFile))
        try FileSystem.writeFileAtomically(keptFile, try FileSystem.readFile(otherFile), durable: false)
        report = try verifyInPartitions(at: directory.subpath("a"))
        let differing = report.findings.filter { $0.kind == .rewrittenLine && $0.message.hasSuffix("differs from the archived one") }
        #expect(differing.count == kept, "\(report.findings)")
        #expect(!report.findings.contains { $0.kind == .editedLine && $0.path.hasPrefix(relative) }, "the lines themselves are intact")

        // Put back: clean again.
        try FileSystem.writeFileAtomically(keptFile, original, durable: false)
        report = try verifyInPartitions(at: directory.subpath("a"))
        #expect(report.isClean, "\(report.findings)")
    }

    @Test func movedArchiveVerifiesTheLiveJournalAlone() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, "a")
        try writeHistory(store)
        _ = try store.compact(CompactionOptions(keep: 0))
        try store.put(["n": 1], entity: notes, id: RecordID("after"))
        store.close()
        try FileSystem.rename(directory.subpath("a/archive"), to: directory.subpath("moved"))
        let report = try verifyInPartitions(at: directory.subpath("a"))
        #expect(report.isClean, "\(report.findings)")
        #expect(report.archive?.isPresent == false)
        #expect(report.recordCount == 20)
        let reopened = try Store.open(at: directory.subpath("a"))
        #expect(reopened.archivedHistory()?.isPresent == false)
        #expect(try reopened.get(entity: notes, id: RecordID("r2")) == ["n": 25])
    }

    @Test func compactionIsIdempotent() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, "a")
        try writeHistory(store)
        let first = try store.compact(CompactionOptions(keep: 0))
        let second = try store.compact(CompactionOptions(keep: 0))
        #expect(first.archivedEntries == 31)
        #expect(second.archivedSegments.isEmpty)
        #expect(second.firstLiveSequence == first.firstLiveSequence)
        // A recent horizon archives nothing new.
        try store.put(["n": 5], entity: notes, id: RecordID("late"))
        let third = try store.compact(CompactionOptions(keep: 3_600_000))
        #expect(third.archivedSegments.isEmpty)
        store.close()
        #expect(try verifyInPartitions(at: directory.subpath("a")).isClean)
    }

    /// A compaction stopped after each of its steps (as a crash would) leaves a store that opens
    /// with every record and verifies; running it again finishes it.
    @Test(arguments: CompactionOptions.Step.allCases)
    func interruptedCompactionLeavesAWorkingStore(step: CompactionOptions.Step) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, "a")
        try writeHistory(store)
        let before = try snapshot(store)
        var options = CompactionOptions(keep: 0)
        options.stopAfter = step
        #expect(throws: StoreError.self) { _ = try store.compact(options) }
        store.close()
        let reopened = try Store.open(at: directory.subpath("a"), options: quiet())
        #expect(try snapshot(reopened) == before)
        var report = try verifyInPartitions(at: directory.subpath("a"))
        #expect(report.isClean, "\(step): \(report.findings)")
        _ = try reopened.compact(CompactionOptions(keep: 0))
        #expect(try snapshot(reopened) == before)
        #expect(try FileSystem.contents(ofDirectory: reopened.layout.journal).map(\.name).sorted() == ["kept-00000000000000000032", "start.json"])
        reopened.close()
        report = try verifyInPartitions(at: directory.subpath("a"))
        #expect(report.isClean, "\(step): \(report.findings)")
    }

    /// B holds r and goes offline; A deletes r and compacts everything. Whatever B does later,
    /// r never comes back silently: a plain sync deletes it on B, an edit is a conflict.
    @Test(arguments: [false, true])
    func staleReplicaDoesNotResurrectADeletion(archiveMoved: Bool) async throws {
        let directory = try TemporaryDirectory()
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        let r = try RecordID("r")
        try a.put(["v": 1], entity: notes, id: r)
        try a.put(["v": 1], entity: notes, id: RecordID("other"))
        _ = try await b.sync(with: FolderTransport(path: a.path))
        #expect(try b.get(entity: notes, id: r) == ["v": 1])
        try a.delete(entity: notes, id: r)
        try a.put(["v": 2], entity: notes, id: RecordID("other"))
        let report = try a.compact(CompactionOptions(keep: 0))
        // B's checkpoint says it has not seen the deletion: the tombstone stays.
        #expect(report.droppedTombstones == 0)
        #expect(report.archivedEntries == 4)
        if archiveMoved { try FileSystem.rename(directory.subpath("a/archive"), to: directory.subpath("moved")) }

        // B syncs without editing r.
        _ = try await b.sync(with: FolderTransport(path: a.path))
        #expect(try b.get(entity: notes, id: r) == nil)
        #expect(try a.get(entity: notes, id: r) == nil)
        #expect(try b.get(entity: notes, id: RecordID("other")) == ["v": 2])
        _ = try await a.sync(with: FolderTransport(path: b.path))
        #expect(try a.get(entity: notes, id: r) == nil)
        #expect(try a.verifyClean(directory.subpath("a")))
    }

    @Test func staleReplicaEditingTheDeletedRecordMakesAConflict() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        let r = try RecordID("r")
        try a.put(["v": 1], entity: notes, id: r)
        for index in 0..<3 { try a.put(["v": .integer(Int64(index))], entity: notes, id: RecordID("other\(index)")) }
        _ = try await b.sync(with: FolderTransport(path: a.path))
        try a.delete(entity: notes, id: r)
        _ = try a.compact(CompactionOptions(keep: 0))
        try b.put(["v": 2], entity: notes, id: r)  // offline, never saw the deletion
        _ = try await b.sync(with: FolderTransport(path: a.path))
        _ = try await a.sync(with: FolderTransport(path: b.path))
        // The normal rules: the edit and the deletion are concurrent, so both replicas hold a
        // conflict (never a plain live record as if the deletion had not happened).
        for store in [a, b] {
            let state = try #require(try store.state(of: RecordKey(entity: notes, id: r)))
            #expect(state.versions.contains { $0.isDelete }, "\(store.path)")
            #expect(state.versions.count == 2, "\(store.path)")
        }
    }

    /// Store `a` with records `r` and `other`, synced to `b`, then `r` deleted in `a` alone.
    func deletionAfterASync(_ directory: TemporaryDirectory) async throws -> (a: Store, b: Store, r: RecordID) {
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        let r = try RecordID("r")
        try a.put(["v": 1], entity: notes, id: r)
        try a.put(["v": 1], entity: notes, id: RecordID("other"))
        _ = try await b.sync(with: FolderTransport(path: a.path))
        try a.delete(entity: notes, id: r)
        return (a, b, r)
    }

    /// A damaged checkpoint is not "no peer": compaction stops, naming it, and drops no
    /// tombstone that peer may never have been sent.
    @Test func aDamagedCheckpointStopsCompaction() async throws {
        let directory = try TemporaryDirectory()
        let (a, b, r) = try await deletionAfterASync(directory)
        let checkpoint = a.layout.peerMemory(for: .replica(b.replicaID)).checkpoint
        _ = try FileSystem.writeFileAtomically(checkpoint, Array("{\"peer\": ".utf8), durable: false)
        let journalBefore = try FileSystem.contents(ofDirectory: a.layout.journal).map(\.name).sorted()
        #expect {
            _ = try a.compact(CompactionOptions(keep: 0))
        } throws: { error in
            guard case StoreError.damagedCheckpoint(let path, _) = error else { return false }
            return path == checkpoint
        }
        #expect(try a.state(of: RecordKey(entity: notes, id: r))?.versions.contains { $0.isDelete } == true)
        #expect(try FileSystem.contents(ofDirectory: a.layout.journal).map(\.name).sorted() == journalBefore)
        #expect(!FileSystem.exists(directory.subpath("a/archive")))
    }

    @Test func tombstoneEveryPeerHasSeenIsDropped() async throws {
        let directory = try TemporaryDirectory()
        let (a, b, r) = try await deletionAfterASync(directory)
        _ = try await b.sync(with: FolderTransport(path: a.path))
        let report = try a.compact(CompactionOptions(keep: 0))
        #expect(report.droppedTombstones == 1)
        #expect(try a.state(of: RecordKey(entity: notes, id: r)) == nil)
        // B saw the deletion: syncing again changes nothing.
        _ = try await b.sync(with: FolderTransport(path: a.path))
        _ = try await a.sync(with: FolderTransport(path: b.path))
        #expect(try a.get(entity: notes, id: r) == nil)
        #expect(try b.get(entity: notes, id: r) == nil)
    }

    /// After compaction, a peer that lacks archived changes syncs from either side, and a new
    /// replica joins; with the archive in place its full history is served.
    @Test func syncWithAPeerAfterCompactionWorksBothWays() async throws {
        let directory = try TemporaryDirectory()
        let (a, b) = try await compactedStoreWithStalePeer(directory)
        try a.put(["v": 1], entity: notes, id: RecordID("fromA"))
        try b.put(["v": 1], entity: notes, id: RecordID("fromB"))
        // A's side: A pushes B what it lacks, read from the archive.
        _ = try await a.sync(with: FolderTransport(path: b.path))
        #expect(try snapshot(a) == snapshot(b))
        #expect(try b.get(entity: notes, id: RecordID("r2")) == ["n": 25])
        try a.put(["v": 2], entity: notes, id: RecordID("fromA"))
        try b.put(["v": 2], entity: notes, id: RecordID("fromB"))
        // B's side.
        _ = try await b.sync(with: FolderTransport(path: a.path))
        #expect(try snapshot(a) == snapshot(b))
        #expect(try a.get(entity: notes, id: RecordID("fromB")) == ["v": 2])
        // A new replica joins the compacted store.
        let c = try makeStore(directory, "c")
        _ = try await c.sync(with: FolderTransport(path: a.path))
        #expect(try snapshot(c) == snapshot(a))
        for name in ["a", "b", "c"] {
            let report = try verifyInPartitions(at: directory.subpath(name))
            #expect(report.isClean, "\(name): \(report.findings)")
        }
    }

    @Test func aStalePeerTakesTheStateWhenTheArchiveIsGone() async throws {
        let directory = try TemporaryDirectory()
        let (a, b) = try await compactedStoreWithStalePeer(directory)
        try FileSystem.rename(directory.subpath("a/archive"), to: directory.subpath("moved"))
        try b.put(["v": 1], entity: notes, id: RecordID("fromB"))
        // From A's side the push needs the archive: a clear error, nothing lost.
        await #expect(throws: SyncError.self) { _ = try await a.sync(with: FolderTransport(path: b.path)) }
        // From B's side B takes A's state, then pushes its own change.
        let report = try await b.sync(with: FolderTransport(path: a.path))
        #expect(report.snapshot?.reason == .historyNotHeld)
        #expect(try snapshot(a) == snapshot(b))
        #expect(try a.get(entity: notes, id: RecordID("fromB")) == ["v": 1])
    }

    @Test func unwritableArchiveLeavesTheStoreUnchanged() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(directory, "a")
        try writeHistory(store)
        let blocker = directory.subpath("file")
        try FileSystem.writeFileAtomically(blocker, [1], durable: false)
        #expect(throws: StoreError.self) { _ = try store.compact(CompactionOptions(keep: 0, archiveFolder: blocker + "/archive")) }
        #expect(store.archivedHistory() == nil)
        #expect(FileSystem.exists(directory.subpath("a/journal/00000000000000000001.jsonl")))
        #expect(!FileSystem.exists(directory.subpath("a/journal/start.json")))
    }

    @Test func durationsParse() {
        #expect(CompactionOptions.parseDuration("90d") == 90 * 86_400_000)
        #expect(CompactionOptions.parseDuration("12h") == 12 * 3_600_000)
        #expect(CompactionOptions.parseDuration("0") == 0)
        #expect(CompactionOptions.parseDuration("d") == nil)
        #expect(CompactionOptions.parseDuration("-1d") == nil)
        #expect(CompactionOptions.parseDuration("3y") == nil)
    }
}

extension Store {
    /// Whether `ferry verify` finds nothing in the store at `path`.
    fileprivate func verifyClean(_ path: String) throws -> Bool { try verifyInPartitions(at: path).isClean }
}
