import FerryTestSupport
import Testing

@testable import Ferry

/// ``PeerAddress``: one rule reads every peer argument, whichever command it is given to.
@Suite struct PeerAddressTests {
    @Test func schemesMakeURLsInAnyCase() throws {
        #expect(try PeerAddress.parse("http://127.0.0.1:1/a", token: "t") == .served(url: "http://127.0.0.1:1/a", token: "t"))
        #expect(try PeerAddress.parse("HTTPS://h:1/a") == .served(url: "https://h:1/a", token: nil))
        #expect(try PeerAddress.parse("s3://bucket/notes") == .s3Hub(S3Location(bucket: "bucket", prefix: "notes")))
        let backend = try PeerAddress.parse("PocketBase+http://127.0.0.1:8090/")
        #expect(backend == .backend(try PocketBaseLocation(parsing: "pocketbase+http://127.0.0.1:8090")))
    }

    @Test func aFolderMayStartWithAScheme() throws {
        #expect(try PeerAddress.parse("http-backup", resolvingFolder: { "/home/me/" + $0 }) == .store("/home/me/http-backup"))
        // "://" after something that is no scheme (a digit first, a slash) is a path.
        #expect(try PeerAddress.parse("2x://a") == .store("2x://a"))
        #expect(try PeerAddress.parse("./a://b") == .store("./a://b"))
    }

    @Test func malformedLocationsAndUnknownSchemesAreRefused() {
        for bad in ["s3://Not_A_Bucket/notes", "ftp://host/a", "pocketbase+ftp://h", "pocketbase+http://", "pocketbase+http://h/?q=1"] {
            #expect(throws: SyncError.self, "\(bad)") { try PeerAddress.parse(bad) }
        }
    }

    @Test func aFolderHoldingAHubIsAHubAndAStoreIsAStore() throws {
        let directory = try TemporaryDirectory()
        let hub = directory.subpath("hub")
        try FileSystem.createDirectory(hub)
        _ = try FileSystem.writeFileAtomically(hub + "/" + HubDescriptor.key, Array("{}".utf8), durable: false)
        #expect(try PeerAddress.parse(hub) == .hubFolder(hub))
        let store = try Store.create(at: directory.subpath("store"), name: "store")
        store.close()
        #expect(try PeerAddress.parse(directory.subpath("store")) == .store(directory.subpath("store")))
        // A store that also holds a hub.json (a hub initialised inside it by mistake) stays a store.
        _ = try FileSystem.writeFileAtomically(directory.subpath("store") + "/" + HubDescriptor.key, Array("{}".utf8), durable: false)
        #expect(try PeerAddress.parse(directory.subpath("store")) == .store(directory.subpath("store")))
    }

    @Test func whatNeedsTheNetworkAndWhatIsAHub() throws {
        let cases: [(String, network: Bool, hub: Bool)] = [
            ("/data/store", false, false), ("http://h/a", true, false), ("s3://bucket/p", true, true),
            ("pocketbase+https://pb.example.com", true, false),
        ]
        for (text, network, hub) in cases {
            let address = try PeerAddress.parse(text)
            #expect(address.needsHTTPClient == network, "\(text)")
            #expect(address.isHub == hub, "\(text)")
            #expect(address.description.lowercased() == text.lowercased(), "\(text)")
        }
    }

    @Test func eachAddressMakesItsTransportOrSaysWhy() throws {
        #expect(try PeerAddress.parse("http://127.0.0.1:1/a").makeTransport(httpClient: RefusingHTTPClient()) is HTTPTransport)
        #expect(try PeerAddress.parse("/nowhere/store").makeTransport(httpClient: nil) is FolderTransport)
        #expect(throws: SyncError.self) { try PeerAddress.parse("http://127.0.0.1:1/a").makeTransport(httpClient: nil) }
        #expect(throws: SyncError.self) { try PeerAddress.parse("http://127.0.0.1:1/a").hubStorage(httpClient: RefusingHTTPClient()) }
    }
}

/// An HTTP client that answers nothing: for transports that are made but never used.
private struct RefusingHTTPClient: HTTPClient {
    func send(_ request: HTTPClientRequest) async throws(HTTPClientFailure) -> HTTPClientResponse {
        throw HTTPClientFailure("no network in this test", isRetryable: false)
    }
}
