import Foundation
import Testing
import FerryTestSupport
import FerryURLSession
@testable import Ferry

/// Hubs on a real S3 server: SeaweedFS on loopback, started for each test with ports, data and
/// credentials of its own. Without `weed` these tests skip with one line saying how to enable
/// them (`scripts/install-test-tools.sh`); `.ci/run` sets `FERRY_REQUIRE_S3=1`, which makes a
/// missing `weed` a failure.
@Suite(.serialized) struct S3HubSyncTests {
    static let notes = try! EntityName("Note")

    /// A running server with a bucket, or `nil` when the tests are skipped.
    func server(_ directory: TemporaryDirectory, bucket: String = "hub") async throws -> SeaweedFS? {
        guard let weed = try SeaweedFS.availableOrSkip() else { return nil }
        let server = try await SeaweedFS.start(in: directory.subpath("weed"), executable: weed)
        try await server.createBucket(bucket)
        return server
    }

    func storage(_ server: SeaweedFS, _ location: String, configuration: S3Configuration? = nil) throws -> S3HubStorage {
        S3HubStorage(
            location: try S3Location(parsing: location),
            client: S3Client(configuration: configuration ?? server.configuration, httpClient: URLSessionHTTPClient(), retryDelay: 0.05))
    }

    func sync(_ store: Store, _ server: SeaweedFS, _ location: String = "s3://hub/notes", force: Bool = false) async throws -> SyncReport {
        var options = SyncOptions()
        options.force = force
        return try await store.sync(with: HubUnderTest.transport(storage(server, location)), options: options)
    }

    @Test(arguments: HubUnderTest.allCases) func compactionInABucketThenANewReplicaJoinsFromTheSnapshot(_ kind: HubUnderTest) async throws {
        let directory = try TemporaryDirectory()
        guard let server = try await server(directory) else { return }
        defer { server.stop() }
        try await kind.create(in: storage(server, "s3://hub/notes"))
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        for round in 0..<4 {
            for n in 0..<30 { try laptop.put(["n": .integer(Int64(n)), "round": .integer(Int64(round))], entity: Self.notes, id: RecordID("n\(n)")) }
            _ = try await sync(laptop, server)
        }
        for n in 0..<5 { try laptop.delete(entity: Self.notes, id: RecordID("n\(n)")) }
        _ = try await sync(laptop, server)
        _ = try await sync(phone, server)

        var compactor = HubCompactor(storage: HubUnderTest.opened(try storage(server, "s3://hub/notes")))
        compactor.partChangeLimit = 8
        try compactor.sign(as: laptop)
        let report = try await compactor.compact()
        #expect(report.wroteSnapshot && report.records == 30 && report.deletedSegments == 5, "\(report.jsonValue)")
        let keys = try await storage(server, "s3://hub/notes").list(prefix: "").map(\.key)
        #expect(!keys.contains { $0.hasPrefix("segments/") }, "\(keys)")
        #expect(keys.filter { $0.hasSuffix(".part") }.count == 4)

        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        let joined = try await sync(desk, server)
        #expect(joined.snapshot?.reason == .join && joined.pulled == 30)
        // Listing, hub.json, two heads, manifest, four parts, the desk's head, and the key entry.
        let expectedRequests = kind == .encrypted ? 11 : 10
        #expect(
            joined.requests == expectedRequests,
            "four parts read to prove the snapshot before any is journaled and kept for the join, which reads none again; no segment")
        #expect(try desk.snapshotJoins()?.joins.first?.statement != nil, "the join keeps the compacting replica's signed statement")
        #expect(try ReplicaState(desk) == ReplicaState(laptop))
        let noOp = try await sync(desk, server)
        #expect(noOp.plan == .upToDate && noOp.requests == 1, "the manifest is cached: one listing")
        #expect(try await HubVerifier(storage: HubUnderTest.opened(try storage(server, "s3://hub/notes"))).verify().isClean)
        #expect(try StoreVerifier(path: desk.path).verify().isClean)

        // The snapshot's objects keep the ETags they were written with through more syncs and
        // another compaction with nothing new to cover.
        func snapshotTags() async throws -> [String: String] {
            var tags: [String: String] = [:]
            for object in try await storage(server, "s3://hub/notes").list(prefix: "") where object.key.contains("snapshots/") {
                tags[object.key] = object.tag
            }
            return tags
        }
        let tags = try await snapshotTags()
        #expect(tags.count == 5)
        _ = try await sync(laptop, server)
        _ = try await sync(phone, server)
        #expect(try await compactor.compact().wroteSnapshot == false)
        #expect(try await snapshotTags() == tags)
    }

    @Test func fourReplicasConvergeThroughABucketAndObjectsKeepTheirETags() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try await server(directory) else { return }
        defer { server.stop() }
        try await Hub.create(in: storage(server, "s3://hub/notes"), openToAnyWriter: true)
        let stores = try ["laptop", "phone", "desk", "tablet"].map { try Store.create(at: directory.subpath($0), name: $0) }
        var etags: [String: String] = [:]
        for round in 0..<3 {
            for (index, store) in stores.enumerated() {
                for n in 0..<5 {
                    try store.put(["round": .integer(Int64(round)), "n": .integer(Int64(n))], entity: Self.notes, id: RecordID("\(index)-\(round)-\(n)"))
                }
                try store.edit(
                    RecordKey(entity: Self.notes, id: try RecordID("shared")), deleting: false,
                    document: ["by": .integer(Int64(index)), "round": .integer(Int64(round))])
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for store in stores { group.addTask { _ = try await self.sync(store, server) } }
                try await group.waitForAll()
            }
            for object in try await storage(server, "s3://hub/notes").list(prefix: "") where !object.key.hasPrefix("heads/") {
                if let etag = etags[object.key] { #expect(etag == object.tag, "\(object.key) was rewritten") }
                etags[object.key] = object.tag
            }
        }
        // Twice round: the second time every head is as the others last read it.
        for _ in 0..<2 { for store in stores { _ = try await sync(store, server) } }
        let first = try ReplicaState(stores[0])
        #expect(first.records.count == 61)
        for store in stores.dropFirst() {
            let state = try ReplicaState(store)
            #expect(state == first, "\(store.manifest.name ?? ""): \(state.differences(from: first).prefix(5))")
        }
        // Nothing new: one ListObjectsV2, however many replicas the hub has.
        let noOp = try await sync(stores[0], server)
        #expect(noOp.plan == .upToDate)
        #expect(noOp.requests == 1)
    }

    @Test func wrongSecretMissingBucketAndForeignPrefixAreClearErrorsThatChangeNothing() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try await server(directory) else { return }
        defer { server.stop() }
        try await Hub.create(in: storage(server, "s3://hub/notes"), openToAnyWriter: true)
        let store = try Store.create(at: directory.subpath("a"), name: "a")
        try store.put(["v": 1], entity: Self.notes, id: RecordID("x"))
        let before = try folderContents(store.path)

        var wrong = server.configuration
        wrong.credentials.secretAccessKey = "not-the-secret"
        do {
            _ = try await store.sync(with: HubTransport(storage: storage(server, "s3://hub/notes", configuration: wrong)))
            Issue.record("a wrong secret synced")
        } catch {
            #expect("\(error)".contains("HTTP 403 SignatureDoesNotMatch"), "\(error)")
            #expect("\(error)".contains("s3://hub/"), "\(error)")
        }
        do {
            _ = try await sync(store, server, "s3://no-such-bucket/notes")
            Issue.record("a missing bucket synced")
        } catch {
            #expect("\(error)".contains("NoSuchBucket"), "\(error)")
        }
        // A prefix with other things in it: not a hub, and hub init will not take it.
        let other = try storage(server, "s3://hub/photos")
        _ = try await other.put("holiday.jpg", Array("jpeg".utf8), createOnly: true)
        await #expect(throws: SyncError.hub(.noHub(location: "s3://hub/photos"))) { _ = try await sync(store, server, "s3://hub/photos") }
        await #expect(throws: HubError.notEmpty(location: "s3://hub/photos", example: "holiday.jpg")) {
            _ = try await Hub.create(in: other, openToAnyWriter: true)
        }
        await #expect(throws: SyncError.hub(.noHub(location: "s3://hub/empty"))) { _ = try await sync(store, server, "s3://hub/empty") }
        #expect(try folderContents(store.path) == before)
        // And with the right secret it goes through.
        #expect(try await sync(store, server).pushed == 1)
    }

    @Test func createOnlyWritesNeverReplaceAnObject() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try await server(directory) else { return }
        defer { server.stop() }
        let hub = try storage(server, "s3://hub/x")
        let tag = try await hub.put("segments/a/1.seg", Array("first".utf8), createOnly: true)
        await #expect(throws: HubError.alreadyExists(location: "s3://hub/x/segments/a/1.seg")) {
            _ = try await hub.put("segments/a/1.seg", Array("second".utf8), createOnly: true)
        }
        let read = try #require(try await hub.get("segments/a/1.seg", limit: HubSegment.maximumByteCount))
        #expect(read.bytes == Array("first".utf8))
        #expect(read.tag == tag)
        // Listing follows continuation tokens past 1,000 keys.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for batch in 0..<8 {
                group.addTask {
                    for n in stride(from: batch, to: 1_050, by: 8) { _ = try await hub.put(String(format: "many/%05d", n), [1], createOnly: true) }
                }
            }
            try await group.waitForAll()
        }
        let before = hub.requestCount
        let listed = try await hub.list(prefix: "many/")
        #expect(listed.count == 1_050)
        #expect(listed.map(\.key) == listed.map(\.key).sorted())
        #expect(hub.requestCount - before == 2, "1,050 keys are two ListObjectsV2 pages")
    }

    @Test func serverStoppedMidSyncThenBackConvergesWithNothingLostOrDoubled() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try await server(directory) else { return }
        defer { server.stop() }
        try await Hub.create(in: storage(server, "s3://hub/notes"), openToAnyWriter: true)
        let a = try Store.create(at: directory.subpath("a"), name: "a")
        let b = try Store.create(at: directory.subpath("b"), name: "b")
        for chunk in 0..<10 {
            try a.write((0..<300).map { n in .put(RecordKey(entity: Self.notes, id: try! RecordID("r\(chunk)-\(n)")), ["n": .integer(Int64(n))]) })
        }
        // A push in small pages, with the server killed while it runs.
        var options = SyncOptions()
        options.pageSize = 100
        let transport = HubTransport(storage: KilledAtRequest(8, of: server, storage: try storage(server, "s3://hub/notes")))
        do {
            _ = try await a.sync(with: transport, options: options)
            Issue.record("the sync finished although the server was killed")
        } catch {
            #expect("\(error)".contains("s3://hub/"), "\(error)")
        }
        try await server.restart()
        _ = try await self.sync(a, server)
        _ = try await self.sync(b, server)
        #expect(b.recordCount == 3_000)
        #expect(try ReplicaState(a) == ReplicaState(b))
        #expect(try StoreVerifier(path: b.path).verify().isClean)
        let again = try await self.sync(a, server)
        #expect(again.pushed == 0 && again.pulled == 0)
    }

    // MARK: A hub that goes back in time or forks (issue 54)

    /// Every object under `from` as it is now (what a backup or `aws s3 sync` holds).
    func objects(_ server: SeaweedFS, _ from: String) async throws -> [String: [UInt8]] {
        let source = try storage(server, from)
        var copied: [String: [UInt8]] = [:]
        for object in try await source.list(prefix: "") {
            if let fetched = try await source.get(object.key, limit: Int.max) { copied[object.key] = fetched.bytes }
        }
        return copied
    }

    /// Makes `location` hold exactly `objects` (a restore, or a copy to another prefix).
    func restore(_ objects: [String: [UInt8]], to location: String, _ server: SeaweedFS) async throws {
        let target = try storage(server, location)
        for object in try await target.list(prefix: "") where objects[object.key] == nil { try await target.delete(object.key) }
        for (key, bytes) in objects { _ = try await target.put(key, bytes, createOnly: false) }
    }

    func put(_ store: Store, _ id: String) throws {
        _ = try store.put(["id": .string(id)], entity: Self.notes, id: RecordID(id))
    }

    @Test func aRestoredPrefixAndACopiedPrefixLoseNoEdit() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try await server(directory) else { return }
        defer { server.stop() }
        try await Hub.create(in: storage(server, "s3://hub/notes"), openToAnyWriter: true)
        let stores = try ["a", "b", "c"].map { try Store.create(at: directory.subpath($0), name: $0) }
        let (a, b, c) = (stores[0], stores[1], stores[2])
        for store in stores { try put(store, "\(store.manifest.name ?? "")1") }
        for _ in 0..<2 { for store in stores { _ = try await sync(store, server) } }

        // Restored from a backup: B's mark names a2, which the prefix lost after C pushed c2.
        let backup = try await objects(server, "s3://hub/notes")
        try put(a, "a2")
        _ = try await sync(a, server)
        _ = try await sync(b, server)
        try await restore(backup, to: "s3://hub/notes", server)
        try put(c, "c2")
        _ = try await sync(c, server)
        let afterRestore = try await sync(b, server)
        #expect(afterRestore.plan != .upToDate && afterRestore.pushed == 1 && afterRestore.pulled == 1)
        #expect(afterRestore.notes.contains { $0.contains("went back in time") && $0.contains("republished 1 change") }, "\(afterRestore.notes)")

        // Copied to another prefix (aws s3 sync) and both used: the original is named a copy's.
        for _ in 0..<2 { for store in stores { _ = try await sync(store, server) } }
        try await restore(try await objects(server, "s3://hub/notes"), to: "s3://hub/copy", server)
        try put(b, "b2")
        _ = try await sync(b, server, "s3://hub/copy")
        try put(a, "a3")
        _ = try await sync(a, server)
        let original = try await sync(b, server)
        #expect(original.plan != .upToDate && original.pushed == 1 && original.pulled == 1)
        #expect(original.notes.contains { $0.contains("is a copy") && $0.contains("ferry hub reidentify s3://hub/notes") }, "\(original.notes)")
        for _ in 0..<2 { for store in stores { _ = try await sync(store, server) } }
        for store in stores {
            for id in ["a1", "b1", "c1", "a2", "c2", "b2", "a3"] {
                #expect(try store.get(entity: Self.notes, id: RecordID(id)) != nil, "\(store.manifest.name ?? "") lacks \(id)")
            }
            #expect(try StoreVerifier(path: store.path).verify().isClean)
        }
    }
}

/// An S3 hub whose server is killed as its `n`th request starts: a sync stopped part way
/// through, at the same point every run.
final class KilledAtRequest: HubStorage, @unchecked Sendable {
    private let server: SeaweedFS
    private let storage: any HubStorage
    private let killAt: Int
    private let lock = NSLock()
    private var started = 0

    init(_ killAt: Int, of server: SeaweedFS, storage: any HubStorage) {
        self.killAt = killAt
        self.server = server
        self.storage = storage
    }

    var location: String { storage.location }
    var requestCount: Int { storage.requestCount }
    var notices: [String] { storage.notices }

    private func starting() {
        let kill = lock.withLock { () -> Bool in
            started += 1
            return started == killAt
        }
        if kill { server.kill() }
    }

    func list(prefix: String) async throws(HubError) -> [HubObject] {
        starting()
        return try await storage.list(prefix: prefix)
    }

    func get(_ key: String, limit: Int) async throws(HubError) -> (bytes: [UInt8], tag: String)? {
        starting()
        return try await storage.get(key, limit: limit)
    }

    func put(_ key: String, _ bytes: [UInt8], createOnly: Bool) async throws(HubError) -> String {
        starting()
        return try await storage.put(key, bytes, createOnly: createOnly)
    }

    func delete(_ key: String) async throws(HubError) {
        starting()
        try await storage.delete(key)
    }
}
