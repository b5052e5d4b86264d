import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// The folder-sync scenarios, with the peer a store hosted by `StoreService` over HTTP on an
/// ephemeral loopback port: same plans, same conflict decisions, same checkpoints.
@Suite(.serialized) struct RemoteSyncTests {
    let notes = try! EntityName("Note")

    func makeStore(_ directory: TemporaryDirectory, _ name: String) throws -> Store {
        try Store.create(at: directory.subpath(name), name: name)
    }

    @Test func fullPushCreatesTheStoreThenUpToDateThenIncremental() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try makeStore(directory, "a")
        for index in 0..<10 { try a.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("\(index)")) }

        var report = try await sync(a, with: server, "alice")
        #expect(report.plan == .fullPush)
        #expect(report.pushed == 10)
        let hosted = try server.store("alice")
        #expect(try hosted.records(of: notes).count == 10)
        #expect(hosted.manifest.name == "alice")

        report = try await sync(a, with: server, "alice")
        #expect(report.plan == .upToDate)

        try a.put(["n": 100], entity: notes, id: RecordID("1"))
        report = try await sync(a, with: server, "alice")
        #expect(report.plan == .incremental)
        #expect(report.pushed == 1)
        #expect(report.pulled == 0)
        #expect(try hosted.get(entity: notes, id: RecordID("1")) == ["n": 100])
        // The server recorded the exchange too.
        #expect(try hosted.checkpoint(for: a.replicaID)?.localPosition == hosted.headSequence)
    }

    @Test func fullPullIncrementalBothWaysAndReconcile() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        for index in 0..<25 { try a.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("\(index)")) }
        try await sync(a, with: server, "shared")

        var report = try await sync(b, with: server, "shared")
        #expect(report.plan == .fullPull)
        #expect(report.pulled == 25)
        #expect(try allRecords(b) == allRecords(a))

        try a.put(["n": 100], entity: notes, id: RecordID("1"))
        try b.put(["n": 200], entity: notes, id: RecordID("2"))
        try await sync(a, with: server, "shared")
        report = try await sync(b, with: server, "shared")
        #expect(report.plan == .incremental)
        #expect(report.pulled == 1)
        #expect(report.pushed == 1)
        report = try await sync(a, with: server, "shared")
        #expect(report.pulled == 1)
        #expect(try allRecords(a) == allRecords(b))

        // A third store that never met the server, with content of its own: reconcile.
        let c = try makeStore(directory, "c")
        try c.put(["n": 2], entity: notes, id: RecordID("c-only"))
        report = try await sync(c, with: server, "shared")
        #expect(report.plan == .reconcile)
        #expect(report.pushed == 1)
        #expect(try allRecords(c).count == 26)
    }

    @Test func smallPagesStillDeliverEverything() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        for index in 0..<57 { try a.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("\(index)")) }
        var options = SyncOptions()
        options.pageSize = 5
        try await sync(a, with: server, "paged", options: options)
        let report = try await sync(b, with: server, "paged", options: options)
        #expect(report.pulled == 57)
        #expect(try allRecords(b) == allRecords(a))
    }

    @Test func staleReplicaGapIsClosed() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let seed = try makeStore(directory, "seed")
        try seed.put(["v": 1], entity: notes, id: RecordID("r1"))
        try seed.put(["v": 1], entity: notes, id: RecordID("r2"))
        try await sync(seed, with: server, "p")
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try await sync(a, with: server, "p")
        try await sync(b, with: server, "p")
        try b.put(["v": 2], entity: notes, id: RecordID("r1"))
        try await sync(b, with: server, "p")
        // A is stale and edits r2 offline: its latest modification is now newer than P's.
        try a.put(["v": 3], entity: notes, id: RecordID("r2"))
        #expect(try a.latestModification > server.store("p").latestModification)
        let report = try await sync(a, with: server, "p")
        #expect(report.plan == .incremental)
        #expect(try a.get(entity: notes, id: RecordID("r1")) == ["v": 2])
        #expect(try server.store("p").get(entity: notes, id: RecordID("r2")) == ["v": 3])
        #expect(report.conflicts.isEmpty)
    }

    @Test func chainThroughTheServerDeliversOnceWithoutEcho() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try makeStore(directory, "a")
        let c = try makeStore(directory, "c")
        try a.put(["x": 1], entity: notes, id: RecordID("k"))
        try c.put(["y": 1], entity: notes, id: RecordID("other"))
        try await sync(a, with: server, "hub")
        try await sync(c, with: server, "hub")
        try await sync(c, with: server, "hub")
        try await sync(a, with: server, "hub")
        try await sync(a, with: server, "hub")
        let cEntries = try c.journalEntries()
        #expect(cEntries.filter { $0.change.key.id.rawValue == "k" }.count == 1)
        let aEntries = try a.journalEntries()
        #expect(aEntries.count == 2)
        #expect(Set(aEntries.map(\.change.identity)).count == aEntries.count)
        let hubEntries = try server.store("hub").journalEntries()
        #expect(hubEntries.count == 2)
        #expect(try a.get(entity: notes, id: RecordID("other")) == ["y": 1])
        // Origins and stamps travel intact.
        let original = try #require(aEntries.first { $0.change.key.id.rawValue == "k" })
        let delivered = try #require(cEntries.first { $0.change.key.id.rawValue == "k" })
        #expect(original.change == delivered.change)
    }

    @Test func deletesTravelAndNeverResurrect() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try a.put(["v": 1], entity: notes, id: RecordID("gone"))
        try a.put(["v": 1], entity: notes, id: RecordID("kept"))
        try a.put(["u": 1], entity: EntityName("User"), id: RecordID("gone"))
        try await sync(a, with: server, "s")
        try await sync(b, with: server, "s")
        try a.delete(entity: notes, id: RecordID("gone"))
        try await sync(a, with: server, "s")
        // B still holds the old version and syncs: the tombstone wins, nothing comes back.
        try await sync(b, with: server, "s")
        #expect(try b.get(entity: notes, id: RecordID("gone")) == nil)
        #expect(try server.store("s").get(entity: notes, id: RecordID("gone")) == nil)
        #expect(try b.get(entity: EntityName("User"), id: RecordID("gone")) == ["u": 1])
        try await sync(a, with: server, "s")
        #expect(try a.get(entity: notes, id: RecordID("gone")) == nil)
    }

    @Test func massDeletionOnTheServerNeedsForce() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try makeStore(directory, "a")
        for index in 0..<4 { try a.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("\(index)")) }
        try await sync(a, with: server, "m")
        for index in 0..<3 { try a.delete(entity: notes, id: RecordID("\(index)")) }
        var strict = SyncOptions()
        strict.deletionFloor = 0  // 3 records are under the default floor
        await #expect(throws: SyncError.self) { try await sync(a, with: server, "m", options: strict) }
        #expect(try server.store("m").recordCount == 4)
        var options = SyncOptions()
        options.force = true
        try await sync(a, with: server, "m", options: options)
        #expect(try server.store("m").recordCount == 1)
    }

    @Test func concurrentEditsConflictAndTheResolutionPropagates() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try a.put(["title": "t", "body": "x"], entity: notes, id: RecordID("n"))
        try await sync(a, with: server, "c")
        try await sync(b, with: server, "c")
        try a.put(["title": "A", "body": "x"], entity: notes, id: RecordID("n"))
        try b.put(["title": "B", "body": "x"], entity: notes, id: RecordID("n"))
        try await sync(a, with: server, "c")
        let report = try await sync(b, with: server, "c")
        #expect(report.conflicts.map(\.id.rawValue) == ["n"])
        try await sync(a, with: server, "c")
        // Every replica picked the same winner.
        let winner = try b.get(entity: notes, id: RecordID("n"))
        #expect(try a.get(entity: notes, id: RecordID("n")) == winner)
        #expect(try server.store("c").get(entity: notes, id: RecordID("n")) == winner)
        #expect(try server.store("c").conflicts().count == 1)

        try a.resolve(RecordKey(entity: notes, id: RecordID("n")), with: ["title": "AB", "body": "x"])
        try await sync(a, with: server, "c")
        try await sync(b, with: server, "c")
        #expect(try b.conflicts().isEmpty)
        #expect(try server.store("c").conflicts().isEmpty)
        #expect(try b.get(entity: notes, id: RecordID("n")) == ["title": "AB", "body": "x"])
    }

    @Test func mergePolicyAndIdenticalContent() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try a.put(["title": "t", "body": "x"], entity: notes, id: RecordID("n"))
        try a.put(["same": true], entity: notes, id: RecordID("same"))
        try await sync(a, with: server, "m")
        try await sync(b, with: server, "m")
        try a.put(["title": "A", "body": "x"], entity: notes, id: RecordID("n"))
        try b.put(["title": "t", "body": "B"], entity: notes, id: RecordID("n"))
        try a.put(["same": false], entity: notes, id: RecordID("same"))
        try b.put(["same": false], entity: notes, id: RecordID("same"))
        try await sync(a, with: server, "m")
        let report = try await sync(b, with: server, "m", options: SyncOptions(policy: .merge))
        #expect(report.resolved == 1)
        #expect(report.conflicts.isEmpty)
        try await sync(a, with: server, "m")
        #expect(try a.get(entity: notes, id: RecordID("n")) == ["title": "A", "body": "B"])
        #expect(try a.conflicts().isEmpty)
    }

    @Test func deleteConcurrentWithUpdateKeepsTheUpdate() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try a.put(["v": 1], entity: notes, id: RecordID("n"))
        try a.put(["v": 1], entity: notes, id: RecordID("other"))
        try await sync(a, with: server, "d")
        try await sync(b, with: server, "d")
        try a.delete(entity: notes, id: RecordID("n"))
        try b.put(["v": 2], entity: notes, id: RecordID("n"))
        try await sync(a, with: server, "d")
        let report = try await sync(b, with: server, "d")
        #expect(report.conflicts.count == 1)
        #expect(try server.store("d").get(entity: notes, id: RecordID("n")) == ["v": 2])
        try await sync(a, with: server, "d")
        #expect(try a.get(entity: notes, id: RecordID("n")) == ["v": 2])
    }

    @Test func twoClientsPushingAtOnceGetTheSameDecisionsAsFolders() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let seed = try makeStore(directory, "seed")
        for index in 0..<20 { try seed.put(["v": .integer(Int64(index))], entity: notes, id: RecordID("\(index)")) }
        try await sync(seed, with: server, "busy")
        let a = try makeStore(directory, "a")
        let b = try makeStore(directory, "b")
        try await sync(a, with: server, "busy")
        try await sync(b, with: server, "busy")
        for index in 0..<20 {
            try a.put(["v": .integer(Int64(index)), "by": "a"], entity: notes, id: RecordID("\(index)"))
            try b.put(["v": .integer(Int64(index)), "by": "b"], entity: notes, id: RecordID("\(index)"))
            try a.put(["a": .integer(Int64(index))], entity: notes, id: RecordID("a\(index)"))
            try b.put(["b": .integer(Int64(index))], entity: notes, id: RecordID("b\(index)"))
        }
        async let first = sync(a, with: server, "busy")
        async let second = sync(b, with: server, "busy")
        _ = try await (first, second)
        for _ in 0..<2 {
            try await sync(a, with: server, "busy")
            try await sync(b, with: server, "busy")
        }
        let hosted = try server.store("busy")
        #expect(try allRecords(a) == allRecords(b))
        #expect(try allRecords(a) == allRecords(hosted))
        #expect(try a.conflicts().map(\.key) == b.conflicts().map(\.key))
        #expect(try hosted.conflicts().count == 20)
        #expect(try allRecords(hosted).count == 60)
        let identities = try hosted.journalEntries().map(\.change.identity)
        #expect(Set(identities).count == identities.count)
    }
}
