import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// Joins from a served store's state (`POST …/state`, `GET …/state/<id>`): an empty store
/// takes the live records, not the history, in pages, bound to the served store's entry hash.
@Suite(.serialized) struct RemoteStateJoinTests {
    let notes = try! EntityName("Note")

    @Test func anEmptyStoreJoinsAServedStoreFromItsStateInPages() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try Store.create(at: directory.subpath("a"), name: "a")
        for round in 0..<5 {
            for index in 0..<30 { try a.put(["n": .integer(Int64(round))], entity: notes, id: RecordID("r\(index)")) }
        }
        try a.delete(entity: notes, id: RecordID("r0"))
        try await sync(a, with: server, "shared")
        let hosted = try server.store("shared")
        #expect(hosted.headSequence == 151)

        let b = try Store.create(at: directory.subpath("b"), name: "b")
        var options = SyncOptions()
        options.pageSize = 7  // several pages
        let report = try await sync(b, with: server, "shared", options: options)
        #expect(report.snapshot?.reason == .join)
        #expect(try b.journalEntries().count == 30)
        #expect(try allRecords(b) == allRecords(a))
        let join = try #require(try b.snapshotJoins()?.joins.last)
        #expect(join.position == 151)
        #expect(join.source == hosted.replicaID)
        #expect(try b.checkJoin(join, against: hosted).isProven)
        #expect(try StoreVerifier(path: b.path).verify().isClean)

        // Then incremental both ways, like any replica.
        try a.put(["n": 100], entity: notes, id: RecordID("r1"))
        try await sync(a, with: server, "shared")
        try b.put(["n": 200], entity: notes, id: RecordID("r2"))
        let next = try await sync(b, with: server, "shared")
        #expect(next.plan == .incremental)
        #expect(next.pulled == 1 && next.pushed == 1)
        try await sync(a, with: server, "shared")
        #expect(try allRecords(b) == allRecords(a))

        // --history full copies every version instead.
        let c = try Store.create(at: directory.subpath("c"), name: "c")
        var full = SyncOptions()
        full.history = .full
        let copied = try await sync(c, with: server, "shared", options: full)
        #expect(copied.snapshot == nil)
        #expect(try c.journalEntries().count == hosted.journalEntries().count)
    }

    @Test func aStateNoLongerOfferedIsRefusedAndAMalformedRequestIsNamed() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let a = try Store.create(at: directory.subpath("a"), name: "a")
        try a.put(["n": 1], entity: notes, id: RecordID("k"))
        try await sync(a, with: server, "shared")
        let unknown = String(repeating: "ab", count: 32)
        let gone = try await request("GET", server.address("/v1/stores/shared/state/\(unknown)?from=0&limit=10"))
        #expect(gone.status == 410, "\(gone)")
        #expect(gone.body.contains("no longer offered"))
        let bad = try await request("POST", server.address("/v1/stores/shared/state"), body: #"{"knowledge":5}"#)
        #expect(bad.status == 400, "\(bad)")
        #expect(bad.body.contains("knowledge"))
        let offered = try await request("POST", server.address("/v1/stores/shared/state"), body: #"{"knowledge":{}}"#)
        #expect(offered.status == 200)
        #expect(offered.body.contains(#""reason":"join""#))
    }
}
