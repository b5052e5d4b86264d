import Foundation
import Testing
import FerryTestSupport
import FerryURLSession
@testable import Ferry

/// Signed heads on a real S3 server (SeaweedFS on loopback; skipped without `weed`, see
/// ``S3HubSyncTests``): a bucket co-writer's rewrite of a head and deletion of a segment are
/// named, the owner repairs both at its next sync, and a sync with nothing new still costs one
/// listing.
@Suite(.serialized) struct S3HubSignedHeadTests {
    static let notes = try! EntityName("Note")

    func storage(_ server: SeaweedFS) throws -> S3HubStorage {
        S3HubStorage(
            location: try S3Location(parsing: "s3://hub/notes"),
            client: S3Client(configuration: server.configuration, httpClient: URLSessionHTTPClient(), retryDelay: 0.05))
    }

    func sync(_ store: Store, _ server: SeaweedFS, clock: any WallClock = SystemClock()) async throws -> SyncReport {
        try await store.sync(with: HubTransport(storage: storage(server), clock: clock))
    }

    @Test func aRewrittenHeadAndADeletedSegmentInABucketAreNamedAndRepaired() async throws {
        let directory = try TemporaryDirectory()
        guard let weed = try SeaweedFS.availableOrSkip() else { return }
        let server = try await SeaweedFS.start(in: directory.subpath("weed"), executable: weed)
        defer { server.stop() }
        try await server.createBucket("hub")
        try await Hub.create(in: storage(server), openToAnyWriter: true)
        let owner = try Store.create(at: directory.subpath("owner"), name: "owner")
        let reader = try Store.create(at: directory.subpath("reader"), name: "reader")
        for n in 0..<3 { _ = try owner.put(["n": .integer(Int64(n))], entity: Self.notes, id: RecordID("n\(n)")) }
        _ = try await sync(owner, server)
        _ = try await sync(owner, server)
        let noOp = try await sync(owner, server)
        #expect(noOp.plan == .upToDate && noOp.requests == 1, "a signed head costs no request: \(noOp.requests ?? -1)")

        // A co-writer of the bucket replaces the owner's head with an empty one it signed.
        let cowriterKey = ReplicaSigningKey.generate()
        let headKey = HubHead.key(of: owner.replicaID)
        let empty = HubHead(replica: owner.replicaID, name: "owner", updated: SystemClock().milliseconds())
        _ = try await storage(server).put(headKey, empty.signed(with: cowriterKey).bytes, createOnly: false)
        let refused = try await sync(reader, server)
        #expect(refused.notes.contains { $0.contains("\(headKey) was rewritten by someone without replica \(owner.replicaID.short)'s key") }, "\(refused.notes)")
        #expect(reader.recordCount == 0)
        let repaired = try await sync(owner, server)
        #expect(repaired.notes.contains { $0.contains("\(headKey) was rewritten") && $0.contains("writes its own anew") }, "\(repaired.notes)")

        // Then deletes the owner's segment.
        let head = try #require(try await storage(server).get(headKey, limit: HubHead.maximumByteCount))
        let segmentKey = try HubHead(bytes: head.bytes, key: headKey, expected: owner.replicaID, location: "s3://hub/notes").key(
            of: #require(HubHead(bytes: head.bytes, key: headKey, expected: owner.replicaID, location: "s3://hub/notes").segments.first))
        try await storage(server).delete(segmentKey)
        let later = OffsetClock(offsetMilliseconds: Int64(HubTransport.lateArrivalMilliseconds) + 60_000)
        let missing = try await sync(reader, server, clock: later)
        #expect(missing.notes.contains { $0.contains("\(segmentKey), listed by replica \(owner.replicaID.short)'s head, is missing") }, "\(missing.notes)")
        let republished = try await sync(owner, server)
        #expect(republished.notes.contains { $0.contains("\(segmentKey) was deleted from the hub") }, "\(republished.notes)")
        let caughtUp = try await sync(reader, server, clock: later)
        #expect(caughtUp.pulled == 3 && reader.recordCount == 3, "\(caughtUp.notes)")
        #expect(try await HubVerifier(storage: storage(server)).verify().isClean)
    }
}
