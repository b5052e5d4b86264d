import Testing
import FerryTestSupport
@testable import Ferry

@Suite struct FolderSyncTests {
    let notes = try! EntityName("Note")

    func makeStore(_ directory: TemporaryDirectory, _ name: String) throws -> Store {
        try Store.create(at: directory.subpath(name), name: name)
    }

    @Test func fullPullThenIncrementalThenUpToDate() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        for index in 0..<10 { try a.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("\(index)")) }
        var report = try await b.sync(with: FolderTransport(path: a.path))
        #expect(report.plan == .fullPull)
        #expect(report.pulled == 10)
        #expect(try b.records(of: notes).count == 10)
        report = try await b.sync(with: FolderTransport(path: a.path))
        #expect(report.plan == .upToDate)
        try a.put(["n": 100], entity: notes, id: RecordID("1"))
        try b.put(["n": 200], entity: notes, id: RecordID("2"))
        report = try await b.sync(with: FolderTransport(path: a.path))
        #expect(report.plan == .incremental)
        #expect(report.pulled == 1)
        #expect(report.pushed == 1)
        #expect(try a.get(entity: notes, id: RecordID("2")) == ["n": 200])
        #expect(try b.get(entity: notes, id: RecordID("1")) == ["n": 100])
        report = try await a.sync(with: FolderTransport(path: b.path))
        #expect(report.plan == .upToDate)
    }

    /// The peer's hand edits reach the report itself (no caller reads them back from the
    /// transport): the edits journaled there count, and a file that is no record is listed.
    @Test func thePeersHandEditsAreInTheReport() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try a.put(["n": 1], entity: notes, id: RecordID("1"))
        _ = try await b.sync(with: FolderTransport(path: a.path))
        let file = a.layout.recordFile(RecordKey(entity: notes, id: try RecordID("1")))
        _ = try FileSystem.writeFileAtomically(file, Array(#"{"n": 2}"#.utf8), durable: false)
        _ = try FileSystem.writeFileAtomically(a.layout.entityDirectory(notes) + "/broken.json", Array("{".utf8), durable: false)
        a.close()
        let report = try await b.sync(with: FolderTransport(path: directory.subpath("a"), handEdits: .commit))
        #expect(report.committedEdits == 1)
        #expect(report.pulled == 1)
        #expect(report.peerProblems.map(\.path) == ["records/Note/broken.json"])
        #expect(try b.get(entity: notes, id: RecordID("1")) == ["n": 2])
        let left = try await b.sync(with: FolderTransport(path: directory.subpath("a"), handEdits: .leave))
        #expect(left.committedEdits == 0 && left.peerProblems.isEmpty)
    }

    @Test func staleReplicaGapIsClosed() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeStore(directory, "a")
        let p = try makeStore(directory, "p")
        let b = try makeStore(directory, "b")
        try p.put(["v": 1], entity: notes, id: RecordID("r1"))
        try p.put(["v": 1], entity: notes, id: RecordID("r2"))
        _ = try await a.sync(with: FolderTransport(path: p.path))
        _ = try await b.sync(with: FolderTransport(path: p.path))
        try b.put(["v": 2], entity: notes, id: RecordID("r1"))
        _ = try await b.sync(with: FolderTransport(path: p.path))
        // A is stale and edits r2 offline: its latest modification is now newer than P's.
        try a.put(["v": 3], entity: notes, id: RecordID("r2"))
        #expect(a.latestModification > p.latestModification)
        let report = try await a.sync(with: FolderTransport(path: p.path))
        #expect(report.plan == .incremental)
        #expect(try a.get(entity: notes, id: RecordID("r1")) == ["v": 2])
        #expect(try p.get(entity: notes, id: RecordID("r2")) == ["v": 3])
        #expect(report.conflicts.isEmpty)
    }

    @Test func chainDeliversOnceWithoutEcho() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        let c = try makeStore(directory, "c")
        try a.put(["x": 1], entity: notes, id: RecordID("k"))
        try c.put(["y": 1], entity: notes, id: RecordID("other"))
        _ = try await b.sync(with: FolderTransport(path: a.path))
        _ = try await c.sync(with: FolderTransport(path: b.path))
        _ = try await c.sync(with: FolderTransport(path: b.path))
        _ = try await a.sync(with: FolderTransport(path: b.path))
        _ = try await b.sync(with: FolderTransport(path: a.path))
        let cEntries = try c.journalEntries()
        #expect(cEntries.filter { $0.change.key.id.rawValue == "k" }.count == 1)
        let aEntries = try a.journalEntries()
        #expect(aEntries.count == 2)
        #expect(Set(aEntries.map(\.change.identity)).count == aEntries.count)
        #expect(try a.get(entity: notes, id: RecordID("other")) == ["y": 1])
    }

    @Test func concurrentEditsConflictAndResolveEverywhere() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try a.put(["title": "t", "body": "x"], entity: notes, id: RecordID("n"))
        _ = try await b.sync(with: FolderTransport(path: a.path))
        try a.put(["title": "A", "body": "x"], entity: notes, id: RecordID("n"))
        try b.put(["title": "B", "body": "x"], entity: notes, id: RecordID("n"))
        let report = try await b.sync(with: FolderTransport(path: a.path))
        #expect(report.conflicts.map(\.id.rawValue) == ["n"])
        #expect(try a.conflicts().count == 1)
        #expect(try a.get(entity: notes, id: RecordID("n")) == b.get(entity: notes, id: RecordID("n")))
        try a.resolve(RecordKey(entity: notes, id: RecordID("n")), with: ["title": "AB", "body": "x"])
        _ = try await a.sync(with: FolderTransport(path: b.path))
        #expect(try b.conflicts().isEmpty)
        #expect(try b.get(entity: notes, id: RecordID("n")) == ["title": "AB", "body": "x"])
    }

    @Test func identicalConcurrentContentIsNoConflict() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try a.put(["same": true], entity: notes, id: RecordID("n"))
        try b.put(["same": true], entity: notes, id: RecordID("n"))
        let report = try await a.sync(with: FolderTransport(path: b.path))
        #expect(report.plan == .reconcile)
        #expect(report.conflicts.isEmpty)
    }

    @Test func mergePolicyCombinesDifferentFields() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try a.put(["title": "t", "body": "x"], entity: notes, id: RecordID("n"))
        _ = try await b.sync(with: FolderTransport(path: a.path))
        try a.put(["title": "A", "body": "x"], entity: notes, id: RecordID("n"))
        try b.put(["title": "t", "body": "B"], entity: notes, id: RecordID("n"))
        let report = try await b.sync(with: FolderTransport(path: a.path), policy: .merge)
        #expect(report.resolved == 1)
        #expect(report.conflicts.isEmpty)
        #expect(try a.get(entity: notes, id: RecordID("n")) == ["title": "A", "body": "B"])
    }

    @Test func deleteConcurrentWithUpdateKeepsTheUpdate() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try a.put(["v": 1], entity: notes, id: RecordID("n"))
        try a.put(["u": 1], entity: EntityName("User"), id: RecordID("n"))
        _ = try await b.sync(with: FolderTransport(path: a.path))
        try a.delete(entity: notes, id: RecordID("n"))
        try b.put(["v": 2], entity: notes, id: RecordID("n"))
        let report = try await b.sync(with: FolderTransport(path: a.path))
        #expect(try a.get(entity: notes, id: RecordID("n")) == ["v": 2])
        #expect(report.conflicts.count == 1)
        #expect(try a.get(entity: EntityName("User"), id: RecordID("n")) == ["u": 1])
    }
}
