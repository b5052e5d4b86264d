import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// Recovery on open: a torn journal tail is cut with a warning, a missing or damaged index is
/// rebuilt, record files left behind the journal by a crash are repaired, and hand edits are
/// kept.
@Suite struct JournalRecoveryTests {
    let notes = try! EntityName("Note")

    /// A store with three records, closed, and the path of its journal's last segment.
    func makeStore(_ directory: TemporaryDirectory, imageInterval: UInt64 = 256) throws -> (path: String, segment: String) {
        let path = directory.subpath("store")
        var options = StoreOptions()
        options.imageInterval = imageInterval
        let store = try Store.create(at: path, options: options)
        for index in 1...3 { try store.put(["n": .integer(Int64(index)), "text": "Ünï 😀"], entity: notes, id: RecordID("r\(index)")) }
        store.close()
        let segments = try FileSystem.contents(ofDirectory: path + "/journal").map(\.name).sorted()
        return (path, path + "/journal/" + (segments.last ?? ""))
    }

    func open(_ path: String, _ warnings: WarningRecorder) throws -> Store {
        var options = StoreOptions()
        options.warningHandler = warnings.handler
        return try Store.open(at: path, options: options)
    }

    func append(_ bytes: [UInt8], to path: String) throws {
        let file = try FileDescriptor.open(path, .writeOnly, options: [.append])
        try file.closeAfter { () throws(SystemError) in try file.writeAll(bytes) }
    }

    /// Journals `writes` as the next changes of `path`'s store without touching its record
    /// files or index: exactly what a crash between the journal append and the file renames
    /// leaves behind.
    func appendBehindTheFiles(_ path: String, _ writes: [RecordWrite]) throws {
        let pending = try changes(path, writes)
        let journal = try Journal(directory: path + "/journal", warn: { _ in })
        _ = try journal.append(pending)
        journal.close()
    }

    /// The journal entries (not yet numbered) that `writes` would append to `path`'s store.
    func changes(_ path: String, _ writes: [RecordWrite]) throws -> [Journal.Pending] {
        let store = try Store.open(at: path)
        defer { store.close() }
        var pending: [Journal.Pending] = []
        var counter = store.knowledge[store.replicaID]
        var physical = store.latestModification.physical
        var sequence = store.headSequence
        var versions: [RecordKey: (vector: VersionVector, last: UInt64)] = [:]
        for write in writes {
            let state = try store.state(of: write.key)
            var (version, previous) = versions[write.key] ?? (state?.mergedVersion ?? VersionVector(), state?.lastSequence ?? 0)
            counter += 1
            physical += 1
            sequence += 1
            version[store.replicaID] = counter
            let operation: Change.Operation
            switch write {
            case .put(_, let document): operation = .put(document)
            case .delete: operation = .delete
            }
            let change = Change(
                origin: store.replicaID, counter: counter, timestamp: HybridTimestamp(physical: physical), key: write.key,
                operation: operation, version: version)
            pending.append(Journal.Pending(change: change, previousSequenceOfRecord: previous))
            versions[write.key] = (version, sequence)
        }
        return pending
    }

    func fileText(_ path: String, _ id: String) -> String? {
        (try? FileSystem.readFile(path + "/records/Note/\(id).json")).map { String(decoding: $0, as: UTF8.self) }
    }

    func pretty(_ document: JSONValue) -> String { String(decoding: document.prettyBytes(), as: UTF8.self) }

    @Test func tornPartialLineIsCutWithAWarning() async throws {
        let directory = try TemporaryDirectory()
        let (path, segment) = try makeStore(directory)
        let sizeBefore = try #require(try FileSystem.status(segment)).size
        try append(Array(#"{"counter":4,"doc":{"n":4,"text":"half a li"#.utf8), to: segment)
        let warnings = WarningRecorder()
        let store = try open(path, warnings)
        #expect(warnings.messages.contains { $0.contains("cut off a torn last line") && $0.contains(".jsonl") })
        #expect(try #require(try FileSystem.status(segment)).size == sizeBefore)
        #expect(store.headSequence == 3)
        #expect(try store.get(entity: notes, id: RecordID("r3")) == ["n": 3, "text": "Ünï 😀"])
        try store.put(["n": 4], entity: notes, id: RecordID("r4"))
        #expect(try JournalAudit.problems(in: store).isEmpty)
        #expect(try store.status().isClean)
    }

    @Test(arguments: [
        [UInt8](repeating: 0, count: 4096),  // a file that grew but whose data never reached the disk
        [UInt8](repeating: 0, count: 37) + [10] + [UInt8](repeating: 0, count: 100),  // NUL-filled lines
        Array(#"{"counter":4}"#.utf8) + [UInt8](repeating: 0, count: 300),  // a torn line, then NULs
    ])
    func trailingNulBytesAreCut(garbage: [UInt8]) throws {
        let directory = try TemporaryDirectory()
        let (path, segment) = try makeStore(directory)
        let sizeBefore = try #require(try FileSystem.status(segment)).size
        try append(garbage, to: segment)
        let warnings = WarningRecorder()
        let store = try open(path, warnings)
        #expect(warnings.messages.contains { $0.contains("cut off a torn last line") })
        #expect(try #require(try FileSystem.status(segment)).size == sizeBefore)
        #expect(store.headSequence == 3)
        try store.put(["n": 4], entity: notes, id: RecordID("r4"))
        #expect(try JournalAudit.problems(in: store).isEmpty)
    }

    @Test func tornTailWarningGoesToStandardError() async throws {
        let directory = try TemporaryDirectory()
        let (path, segment) = try makeStore(directory)
        try append(Array(#"{"counter":4,"doc":{"#.utf8), to: segment)
        let scratch = directory.subpath("run")
        try FileSystem.createDirectory(scratch)
        let child = try ChildProcess(try tortureBinaryPath(), ["writer", path, "1"], outputDirectory: scratch)
        let ready = await child.waitForOutput(lineStartingWith: "ready", timeout: 120)
        child.kill()
        child.wait()
        #expect(ready, "\(child.errorOutput)")
        #expect(child.outputLines.first == "ready 3")
        #expect(child.errorOutput.hasPrefix("warning: ") && child.errorOutput.contains("cut off a torn last line"))
    }

    /// `Store.write` promises a batch all or nothing. A SIGKILL during its one `write(2)` can
    /// leave a short write (the kernel stops copying at a page boundary when a fatal signal is
    /// pending): whole lines of the batch, then a torn one. Recovery cuts only the torn line,
    /// so the first writes of an unacknowledged batch survive without the rest. (A batch that
    /// spans two segments can be cut the same way, with no torn line at all, by a kill between
    /// the first segment's fsync and the second's creation.) Fixing this needs a batch boundary
    /// in the journal format; see the report of the torture branch.
    @Test func batchCutShortByAKillIsAllOrNothing() async throws {
        let directory = try TemporaryDirectory()
        let (path, segment) = try makeStore(directory)
        let pending = try changes(path, [
            .put(RecordKey(entity: notes, id: try RecordID("r1")), ["n": 10]),
            .put(RecordKey(entity: notes, id: try RecordID("r2")), ["n": 20]),
            .put(RecordKey(entity: notes, id: try RecordID("r3")), ["n": 30]),
        ])
        let head = try Store.open(at: path).journalEntry(at: 3)
        var bytes: [UInt8] = []
        var previousHash = head.hash
        for (offset, item) in pending.enumerated() {
            let (entry, line) = JournalEntry.make(
                sequence: UInt64(4 + offset), change: item.change, previousSequenceOfRecord: item.previousSequenceOfRecord,
                previousHash: previousHash,
                batch: BatchPosition(first: 4, remaining: UInt64(pending.count - offset - 1)))
            bytes += line
            previousHash = entry.hash
        }
        // What a write(2) cut short leaves: the first line whole, the second torn.
        let firstLineEnd = try #require(bytes.firstIndex(of: UInt8(ascii: "\n")))
        try append(Array(bytes[...(firstLineEnd + 20)]), to: segment)

        let store = try Store.open(at: path)
        let r1 = try store.get(entity: notes, id: RecordID("r1"))
        #expect(store.headSequence == 3 || store.headSequence == 6, "head \(store.headSequence): part of a batch survived")
        #expect(r1 == ["n": 1, "text": "Ünï 😀"] || store.headSequence == 6)
        #expect(try JournalAudit.problems(in: store).isEmpty)
        #expect(try store.status().isClean)
    }

    @Test func missingIndexIsRebuilt() async throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try makeStore(directory, imageInterval: 1)
        #expect(persistedIndexHead(path) == 3)
        try FileSystem.removeFile(path + "/.ferry/index")
        let warnings = WarningRecorder()
        let store = try open(path, warnings)
        #expect(warnings.messages.contains { $0.contains("rebuilding the index") })
        #expect(persistedIndexHead(path) == 3)
        #expect(try store.ids(of: notes).map(\.rawValue) == ["r1", "r2", "r3"])
        #expect(try store.get(entity: notes, id: RecordID("r2")) == ["n": 2, "text": "Ünï 😀"])
        #expect(try store.status().isClean)
    }

    @Test(arguments: ["garbage", "truncated", "foreign head", "bad record line"])
    func damagedIndexIsRebuilt(damage: String) async throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try makeStore(directory, imageInterval: 1)
        let indexPath = path + "/.ferry/index"
        var bytes = try FileSystem.readFile(indexPath)
        switch damage {
        case "garbage": bytes = Array("not an index\u{0}\u{1}".utf8)
        case "truncated": bytes = Array(bytes.prefix(bytes.count / 2))
        case "foreign head":
            // A well-formed image of another journal: same sequence, different hash.
            let text = String(decoding: bytes, as: UTF8.self)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var head = lines[1].split(separator: "\t").map(String.init)
            head[2] = String(repeating: "ab", count: 32)
            bytes = Array(([lines[0], head.joined(separator: "\t")] + lines.dropFirst(2)).joined(separator: "\n").utf8)
        default:
            let text = String(decoding: bytes, as: UTF8.self)
            bytes = Array(text.replacingOccurrences(of: "\nK\t", with: "\nK\tbroken\t").utf8)
        }
        try FileSystem.writeFileAtomically(indexPath, bytes, durable: false)
        let warnings = WarningRecorder()
        let store = try open(path, warnings)
        #expect(try store.ids(of: notes).map(\.rawValue) == ["r1", "r2", "r3"], "damage: \(damage)")
        #expect(try store.get(entity: notes, id: RecordID("r1")) == ["n": 1, "text": "Ünï 😀"])
        #expect(warnings.messages.contains { $0.contains("rebuilding the index") }, "damage: \(damage)")
        try store.put(["n": 5], entity: notes, id: RecordID("r5"))
        #expect(try store.status().isClean)
        store.close()
        let reopened = try Store.open(at: path)
        #expect(try reopened.ids(of: notes).count == 4)
    }

    @Test(arguments: [UInt64(1), 256])
    func recordFilesBehindTheJournalAreRepaired(imageInterval: UInt64) async throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try makeStore(directory, imageInterval: imageInterval)
        // r1 updated, r2 deleted, r9 created: journaled, but no file was touched.
        try appendBehindTheFiles(path, [
            .put(RecordKey(entity: notes, id: RecordID("r1")), ["n": 10]),
            .delete(RecordKey(entity: notes, id: RecordID("r2"))),
            .put(RecordKey(entity: notes, id: RecordID("r9")), ["n": 9]),
        ])
        #expect(fileText(path, "r1") == pretty(["n": 1, "text": "Ünï 😀"]))
        #expect(fileText(path, "r9") == nil)
        let store = try Store.open(at: path)
        #expect(fileText(path, "r1") == pretty(["n": 10]))
        #expect(fileText(path, "r2") == nil)
        #expect(fileText(path, "r9") == pretty(["n": 9]))
        #expect(try store.ids(of: notes).map(\.rawValue) == ["r1", "r3", "r9"])
        #expect(try store.status().isClean)
        #expect(try JournalAudit.problems(in: store).isEmpty)
    }

    /// The index image may know nothing of a record file another process wrote (a
    /// long-running process only learns of the other's journal entries). A crash that then
    /// leaves that file behind the journal must still be repaired, not taken for a hand edit.
    @Test func fileWrittenByAnotherProcessAndLeftBehindIsRepaired() async throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try makeStore(directory)
        var options = StoreOptions()
        options.imageInterval = 1
        let longRunning = try Store.open(at: path, options: options)
        try longRunning.put(["n": 0], entity: notes, id: RecordID("other"))
        let shortLived = try Store.open(at: path)
        try shortLived.put(["n": 7], entity: notes, id: RecordID("r7"))
        shortLived.close()
        try longRunning.put(["n": 1], entity: notes, id: RecordID("other"))  // catches up with r7
        longRunning.close()  // its image covers r7, without a file stamp
        try appendBehindTheFiles(path, [
            .put(RecordKey(entity: notes, id: RecordID("r7")), ["n": 70]),
            .delete(RecordKey(entity: notes, id: RecordID("r3"))),
        ])
        let store = try Store.open(at: path)
        #expect(fileText(path, "r7") == pretty(["n": 70]))
        #expect(fileText(path, "r3") == nil)
        let status = try store.status()
        #expect(status.isClean, "\(status.edits.map { "\($0.kind) \($0.path)" })")
    }

    /// A long-running process (a server, a watcher) that catches up with entries another
    /// process appended before it was killed must repair what that process left behind, as
    /// opening the store would: otherwise it reports Ferry's own stale file as a hand edit,
    /// and its next image hides the damage from every later open.
    @Test func fileLeftBehindByAKilledProcessIsRepairedByALiveOne() async throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try makeStore(directory)
        var options = StoreOptions()
        options.imageInterval = 1
        let live = try Store.open(at: path, options: options)
        #expect(try live.get(entity: notes, id: RecordID("r1")) == ["n": 1, "text": "Ünï 😀"])
        // Another process journals these, then dies before touching any file.
        try appendBehindTheFiles(path, [
            .put(RecordKey(entity: notes, id: try RecordID("r1")), ["n": 10]),
            .delete(RecordKey(entity: notes, id: try RecordID("r2"))),
            .put(RecordKey(entity: notes, id: try RecordID("r8")), ["n": 8]),
        ])
        let status = try live.status()
        #expect(status.isClean, "\(status.edits.map { "\($0.kind) \($0.path)" })")
        #expect(fileText(path, "r1") == pretty(["n": 10]))
        #expect(fileText(path, "r2") == nil)
        #expect(fileText(path, "r8") == pretty(["n": 8]))
        live.close()
        let reopened = try Store.open(at: path)
        let after = try reopened.status()
        #expect(after.isClean, "after reopening: \(after.edits.map { "\($0.kind) \($0.path)" })")
    }

    /// A crash can leave the conflict files behind the journal too: a loser's file not yet
    /// written, or the file of a loser that a later change superseded not yet removed.
    @Test func conflictFilesBehindTheJournalAreRepaired() async throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try makeStore(directory)
        let r1 = RecordKey(entity: notes, id: try RecordID("r1"))
        let r2 = RecordKey(entity: notes, id: try RecordID("r2"))
        let other = try Store.create(at: directory.subpath("other"))
        _ = try await other.sync(with: FolderTransport(path: path))
        var loserFiles: [RecordKey: String] = [:]
        do {
            let store = try Store.open(at: path)
            for key in [r1, r2] {
                try store.put(["by": "store"], entity: notes, id: key.id)
                try other.put(["by": "other"], entity: notes, id: key.id)
            }
            _ = try await store.sync(with: FolderTransport(path: other.path))
            for conflict in try store.conflicts() { loserFiles[conflict.key] = conflict.losers.first?.file }
            store.close()
        }
        let r1Loser = try #require(loserFiles[r1])
        let r2Loser = try #require(loserFiles[r2])
        #expect(FileSystem.exists(path + "/" + r1Loser) && FileSystem.exists(path + "/" + r2Loser))
        // r1 resolved in the journal, its loser's file never removed; r2's loser file never
        // written. (Without the index, the whole journal is replayed, as after a crash that
        // came before the image.)
        try appendBehindTheFiles(path, [.put(r1, ["by": "both"])])
        try FileSystem.removeFile(path + "/" + r2Loser)
        try FileSystem.removeFile(path + "/.ferry/index")

        let store = try Store.open(at: path)
        #expect(try store.conflicts().map(\.key) == [r2])
        #expect(!FileSystem.exists(path + "/" + r1Loser), "the superseded loser's file must go")
        #expect(FileSystem.exists(path + "/" + r2Loser), "the missing loser's file must be written")
        #expect(fileText(path, "r1") == pretty(["by": "both"]))
        #expect(try store.status().isClean)
    }

    @Test func handEditMadeWhileTheJournalIsAheadIsKept() async throws {
        let directory = try TemporaryDirectory()
        let (path, _) = try makeStore(directory, imageInterval: 1)
        let handEdit = "{\n  \"edited\": \"by hand\"\n}\n"
        try FileSystem.writeFileAtomically(path + "/records/Note/r1.json", Array(handEdit.utf8), durable: false)
        try FileSystem.writeFileAtomically(path + "/records/Note/r2.json", Array("{\"x\": 1}".utf8), durable: false)
        try appendBehindTheFiles(path, [
            .put(RecordKey(entity: notes, id: RecordID("r1")), ["n": 10]),
            .delete(RecordKey(entity: notes, id: RecordID("r2"))),
        ])
        let store = try Store.open(at: path)
        #expect(fileText(path, "r1") == handEdit)
        #expect(fileText(path, "r2") == "{\"x\": 1}")
        #expect(try store.get(entity: notes, id: RecordID("r1")) == ["n": 10])
        let status = try store.status()
        #expect(status.edits.map(\.kind) == [.modified, .created])
        #expect(status.edits.map(\.path) == ["records/Note/r1.json", "records/Note/r2.json"])
    }
}

/// The journal position the index files on disk cover: the delta's head when one applies to
/// the image, else the image's.
func persistedIndexHead(_ path: String) -> UInt64? {
    guard let image = try? IndexFile.open(path + "/.ferry/index") else { return nil }
    if let delta = try? IndexFile.open(path + "/.ferry/index-delta", level: .delta),
        let base = delta.header.baseHead, base.sequence == image.header.head.sequence
    {
        return delta.header.head.sequence
    }
    return image.header.head.sequence
}
