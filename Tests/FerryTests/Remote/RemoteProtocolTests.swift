import Foundation
import FerryURLSession
import Testing
@testable import Ferry

/// The pure parts of the protocol: routes, the change codec, stream decoding, endpoints and
/// retry timing.
@Suite struct RemoteProtocolTests {
    @Test func routes() {
        #expect(RemoteRoute(path: "/v1") == .root)
        #expect(RemoteRoute(path: "/v1/") == .root)
        #expect(RemoteRoute(path: "/v1/stores") == .stores)
        #expect(RemoteRoute(path: "/v1/stores/alice") == .store("alice", .info))
        #expect(RemoteRoute(path: "/v1/stores/alice/") == .store("alice", .info))
        #expect(RemoteRoute(path: "/v1/stores/alice/knowledge") == .store("alice", .knowledge))
        #expect(RemoteRoute(path: "/v1/stores/alice/changes") == .store("alice", .changes))
        #expect(RemoteRoute(path: "/v1/stores/alice/snapshot") == .store("alice", .snapshot))
        #expect(RemoteRoute(path: "/v1/stores/alice/push") == .store("alice", .push))
        #expect(RemoteRoute(path: "/v1/stores/alice/entries/12/hash") == .store("alice", .entryHash("12")))
        #expect(RemoteRoute(path: "/v1/stores/alice/checkpoints/x") == .store("alice", .checkpoint("x")))
        #expect(RemoteRoute(path: "/v2/stores/alice") == .unsupportedVersion("v2"))
        #expect(RemoteRoute(path: "/v1/stores/a/b/c/d") == .notFound)
        #expect(RemoteRoute(path: "/") == .notFound)
        #expect(RemoteRoute(path: "") == .notFound)
        #expect(RemoteRoute(path: "/favicon.ico") == .notFound)
    }

    @Test func changesRoundTripThroughTheWireFormat() throws {
        let origin = ReplicaID.generate(), other = ReplicaID.generate()
        var put = Change(
            origin: origin, counter: 7, timestamp: HybridTimestamp(physical: 1_700_000_000_123, logical: 4),
            key: RecordKey(entity: try EntityName("Note"), id: try RecordID("a/b é")),
            operation: .put(["t": "x\n\"y\"", "n": [1, 2.5, nil, true]]), version: VersionVector([origin: 7, other: 3]))
        var delete = Change(
            origin: origin, counter: 8, timestamp: HybridTimestamp(physical: 1_700_000_000_124), key: put.key,
            operation: .delete, version: VersionVector([origin: 8, other: 3]))
        // Changes travel with their digests; one without them is decoded as such (and refused by a push).
        put.chain = ChangeChain(put, parent: SHA256.hash(Array("change 6".utf8)))
        delete.chain = ChangeChain(delete, parent: put.digest)
        for change in [put, delete] {
            let bytes = change.canonicalJSONBytes()
            #expect(bytes == change.jsonValue.canonicalBytes())
            let decoded = try Change(jsonFields: try #require(try JSONParser.parse(bytes).objectValue))
            #expect(decoded == change)
        }
        let request = PushRequest(changes: [put, delete], maximumSkew: 5)
        #expect(try PushRequest(body: request.bodyBytes()) == request)
        var unsigned = put
        unsigned.chain = nil
        #expect(throws: RemoteMessageError.self) { try PushRequest(body: PushRequest(changes: [unsigned]).bodyBytes()) }
    }

    @Test func streamDecoderHandlesPiecesAndNoticesTruncation() throws {
        let origin = ReplicaID.generate()
        var text: [UInt8] = []
        for counter in 1...3 {
            Change(
                origin: origin, counter: UInt64(counter), timestamp: HybridTimestamp(physical: 1), key: RecordKey(entity: try EntityName("N"), id: try RecordID("\(counter)")),
                operation: .delete, version: VersionVector([origin: UInt64(counter)])
            ).writeCanonicalJSON(to: &text)
            text.append(10)
        }
        let complete = text + ChangeStreamTrailer(through: 3, head: 5, count: 3).lineBytes
        for split in [1, 7, 50, complete.count - 1] {
            var decoder = ChangeStreamDecoder()
            var changes = try decoder.feed(Array(complete[..<split]))
            changes += try decoder.feed(Array(complete[split...]))
            #expect(changes.count == 3)
            #expect(try decoder.finish() == ChangeStreamTrailer(through: 3, head: 5, count: 3))
        }
        var truncated = ChangeStreamDecoder()
        _ = try truncated.feed(text)
        #expect(throws: RemoteMessageError.self) { try truncated.finish() }
        var lying = ChangeStreamDecoder()
        _ = try lying.feed(text + ChangeStreamTrailer(through: 3, head: 5, count: 4).lineBytes)
        #expect(throws: RemoteMessageError.self) { try lying.finish() }
        var garbage = ChangeStreamDecoder()
        #expect(throws: RemoteMessageError.self) { try garbage.feed(Array("{\"no\n".utf8)) }
    }

    @Test func endpointsFromPeerURLs() throws {
        var endpoint = try RemoteEndpoint(parsing: "http://127.0.0.1:8080/alice")
        #expect(endpoint.base == "http://127.0.0.1:8080")
        #expect(endpoint.store.rawValue == "alice")
        #expect(endpoint.url(for: "/knowledge")?.absoluteString == "http://127.0.0.1:8080/v1/stores/alice/knowledge")
        endpoint = try RemoteEndpoint(parsing: "https://sync.example.org/ferry/alice/")
        #expect(endpoint.base == "https://sync.example.org/ferry")
        endpoint = try RemoteEndpoint(parsing: "http://[::1]:9000/bob")
        #expect(endpoint.base == "http://[::1]:9000")
        // The store's API URL, pasted from curl or docs/PROTOCOL.md, names the same store.
        endpoint = try RemoteEndpoint(parsing: "http://127.0.0.1:8080/v1/stores/alice")
        #expect(endpoint.base == "http://127.0.0.1:8080" && endpoint.store.rawValue == "alice")
        endpoint = try RemoteEndpoint(parsing: "https://sync.example.org/ferry/v1/stores/alice")
        #expect(endpoint.base == "https://sync.example.org/ferry" && endpoint.store.rawValue == "alice")
        #expect(throws: RemoteError.invalidURL(
            "http://h:1/p/v1/stores/alice/knowledge",
            reason: "that is an API endpoint, not a store; the store's URL is http://h:1/p/alice")) {
            try RemoteEndpoint(parsing: "http://h:1/p/v1/stores/alice/knowledge")
        }
        for bad in ["http://127.0.0.1:8080", "http://127.0.0.1:8080/", "http://u:p@host/alice", "http://host/alice?x=1", "file:///alice", "http://host/.x"] {
            #expect(throws: RemoteError.self, "\(bad)") { try RemoteEndpoint(parsing: bad) }
        }
    }

    @Test func retryDelaysGrowAndAreBounded() {
        let policy = RetryPolicy(attempts: 6, firstDelay: 0.1, maximumDelay: 1.6)
        #expect(policy.delay(beforeAttempt: 2, jitter: 0) == 0.1)
        #expect(policy.delay(beforeAttempt: 3, jitter: 0) == 0.2)
        #expect(policy.delay(beforeAttempt: 6, jitter: 0) == 1.6)
        #expect(policy.delay(beforeAttempt: 40, jitter: 1) == 2.0)
        #expect(RetryPolicy.isRetryable(.serviceUnavailable))
        #expect(!RetryPolicy.isRetryable(.notImplemented))
        #expect(!RetryPolicy.isRetryable(.notFound))
    }
}
