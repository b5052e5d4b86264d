import FerryTestSupport
import Foundation
import FerryURLSession
import Testing
@testable import Ferry

/// Token rules, store-name validation and protocol-version errors, seen from curl-like
/// requests and from the sync client.
@Suite(.serialized) struct RemoteSecurityTests {
    let notes = try! EntityName("Note")

    /// A server with one store, `alice`, holding one record, and one called `bob`.
    func serverWithStores(_ directory: TemporaryDirectory) async throws -> RemoteServer {
        let server = try RemoteServer(root: directory.subpath("server"))
        let local = try Store.create(at: directory.subpath("seed"))
        try local.put(["v": 1], entity: notes, id: RecordID("1"))
        try await sync(local, with: server, "alice")
        try await sync(local, with: server, "bob")
        return server
    }

    @Test func missingOrUnknownTokenIs401() async throws {
        let directory = try TemporaryDirectory()
        let server = try await serverWithStores(directory)
        defer { Task { await server.stop() } }
        var answer = try await request("GET", server.address("/v1/stores/alice"), token: nil)
        #expect(answer.status == 401)
        #expect(answer.body.contains("Authorization: Bearer"))
        #expect(answer.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        answer = try await request("GET", server.address("/v1/stores/alice"), token: "not-a-known-token")
        #expect(answer.status == 401)
        #expect(answer.body == "{\"error\":\"unknown token\"}\n")
        // Unauthenticated clients learn nothing about which stores exist.
        answer = try await request("GET", server.address("/v1/stores/nobody"), token: nil)
        #expect(answer.status == 401)
        answer = try await request("GET", server.address("/v1/stores"), token: nil)
        #expect(answer.status == 401)

        let local = try Store.create(at: directory.subpath("client"))
        await #expect {
            try await sync(local, with: server, "alice", token: "wrong-token-123")
        } throws: { error in
            "\(error)".contains("refused the token (401)") && "\(error)".contains("FERRY_TOKEN")
        }
    }

    @Test func tokenOutsideItsStoresIs403() async throws {
        let directory = try TemporaryDirectory()
        let server = try await serverWithStores(directory)
        defer { Task { await server.stop() } }
        var answer = try await request("GET", server.address("/v1/stores/bob"), token: RemoteServer.aliceOnly)
        #expect(answer.status == 403)
        #expect(answer.body.contains("does not open store"))
        answer = try await request("GET", server.address("/v1/stores/alice"), token: RemoteServer.aliceOnly)
        #expect(answer.status == 200)
        answer = try await request("GET", server.address("/v1/stores"), token: RemoteServer.aliceOnly)
        #expect(answer.body == "{\"stores\":[\"alice\"]}\n")
        // Not even a new store outside the token's list can be made.
        answer = try await request(
            "POST", server.address("/v1/stores/carol/push"), token: RemoteServer.aliceOnly, body: #"{"changes":[]}"#)
        #expect(answer.status == 403)
        #expect(!FileSystem.exists(server.root + "/carol"))

        let local = try Store.create(at: directory.subpath("client"))
        await #expect {
            try await sync(local, with: server, "bob", token: RemoteServer.aliceOnly)
        } throws: { error in
            "\(error)".contains("(403)")
        }
    }

    @Test func readOnlyTokenPullsButCannotPushOrCreate() async throws {
        let directory = try TemporaryDirectory()
        let server = try await serverWithStores(directory)
        defer { Task { await server.stop() } }
        let reader = try Store.create(at: directory.subpath("reader"))
        let report = try await sync(reader, with: server, "alice", token: RemoteServer.readOnly)
        #expect(report.plan == .fullPull)
        #expect(try reader.get(entity: notes, id: RecordID("1")) == ["v": 1])

        try reader.put(["v": 2], entity: notes, id: RecordID("2"))
        await #expect {
            try await sync(reader, with: server, "alice", token: RemoteServer.readOnly)
        } throws: { error in
            "\(error)".contains("may only read")
        }
        #expect(try server.store("alice").get(entity: notes, id: RecordID("2")) == nil)

        let answer = try await request(
            "POST", server.address("/v1/stores/alice/push"), token: RemoteServer.readOnly, body: #"{"changes":[]}"#)
        #expect(answer.status == 403)

        let fresh = try Store.create(at: directory.subpath("fresh"))
        try fresh.put(["v": 1], entity: notes, id: RecordID("x"))
        await #expect {
            try await sync(fresh, with: server, "newstore", token: RemoteServer.readOnly)
        } throws: { error in
            "\(error)".contains("may not create")
        }
        #expect(!FileSystem.exists(server.root + "/newstore"))
    }

    @Test func storeNamesAreValidated() async throws {
        let directory = try TemporaryDirectory()
        let server = try await serverWithStores(directory)
        defer { Task { await server.stop() } }
        try "not a store".write(toFile: server.root + "/.hidden", atomically: false, encoding: .utf8)
        for name in [".hidden", "%2e%2e", "-dash", "_x", String(repeating: "a", count: 65), "a%20b", "caf%C3%A9"] {
            let answer = try await request("GET", server.address("/v1/stores/\(name)"))
            #expect(answer.status == 400, "\(name)")
            #expect(answer.body.contains("invalid store name"), "\(name)")
        }
        for path in ["/v1/stores/a%2F..%2Fb", "/v1/stores/alice/../bob/x", "/v1/stores//alice"] {
            let answer = try await request("GET", server.address(path))
            #expect(answer.status == 404 || answer.status == 400, "\(path)")
        }
        #expect(try StoreName(String(repeating: "a", count: 64)).rawValue.count == 64)
        #expect(throws: StoreNameError.self) { try StoreName("..") }
        #expect(throws: StoreNameError.self) { try StoreName("a/b") }
        #expect(throws: RemoteError.self) { try HTTPTransport(url: server.url(".hidden"), token: nil) }
        #expect(throws: RemoteError.self) { try HTTPTransport(url: "http://127.0.0.1:1", token: nil) }
        #expect(throws: RemoteError.self) { try HTTPTransport(url: "ftp://127.0.0.1/alice", token: nil) }
        // Nothing outside the root was touched or served.
        #expect(try FileSystem.contents(ofDirectory: server.root).map(\.name).sorted() == [".hidden", "alice", "bob"])
    }

    @Test func aServerOfAnotherProtocolVersionIsAClearError() async throws {
        // A fake server that speaks version 2 only.
        let v2 = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0),
            handler: HTTPClosureHandler { request in
                if request.path.hasPrefix("/v1/") {
                    var response = HTTPResponse.error(.notFound, "this server speaks Ferry protocol version 2")
                    response.headers["Ferry-Protocol"] = "2"
                    response.body = .bytes(Array(#"{"error":"use v2","protocols":[2]}"#.utf8))
                    return response
                }
                return .error(.notFound, "no")
            })
        let port = try v2.start()
        defer { Task { await v2.stop() } }
        let directory = try TemporaryDirectory()
        let local = try Store.create(at: directory.subpath("client"))
        let transport = try HTTPTransport(url: "http://127.0.0.1:\(port)/alice", token: "t")
        await #expect {
            try await SyncEngine(store: local, transport: transport).run()
        } throws: { error in
            "\(error)".contains("speaks Ferry protocol version 2, but this ferry speaks version 1")
        }

        // A server whose info says version 2.
        let v2info = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0),
            handler: HTTPClosureHandler { _ in
                HTTPResponse(
                    headers: ["Content-Type": "application/json", "Ferry-Protocol": "2"],
                    body: Array(#"{"protocol":2,"store":"alice","replica":"x"}"#.utf8))
            })
        let port2 = try v2info.start()
        defer { Task { await v2info.stop() } }
        let transport2 = try HTTPTransport(url: "http://127.0.0.1:\(port2)/alice", token: "t")
        await #expect {
            try await SyncEngine(store: local, transport: transport2).run()
        } throws: { error in
            "\(error)".contains("version 2")
        }

        // Something that is not a Ferry server at all.
        let other = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0),
            handler: HTTPClosureHandler { _ in HTTPResponse(status: .notFound, body: Array("nope".utf8)) })
        let port3 = try other.start()
        defer { Task { await other.stop() } }
        let transport3 = try HTTPTransport(url: "http://127.0.0.1:\(port3)/alice", token: "t")
        await #expect {
            try await SyncEngine(store: local, transport: transport3).run()
        } throws: { error in
            "\(error)".contains("is not a Ferry server")
        }
    }

    @Test func nothingListensIsAnUnreachableErrorAfterRetries() async throws {
        let directory = try TemporaryDirectory()
        let local = try Store.create(at: directory.subpath("client"))
        // A port that was just free.
        let probe = try RemoteServer(root: directory.subpath("server"))
        let port = probe.port
        await probe.stop()
        var configuration = HTTPTransport.Configuration()
        configuration.retry = RetryPolicy(attempts: 3, firstDelay: 0.01)
        let transport = try HTTPTransport(url: "http://127.0.0.1:\(port)/alice", token: "t", configuration: configuration)
        await #expect {
            try await SyncEngine(store: local, transport: transport).run()
        } throws: { error in
            "\(error)".contains("cannot reach") && "\(error)".contains("3 attempts")
        }
    }

    @Test func tokensFileRules() throws {
        let policy = try AccessPolicy(tokensFile: Array(#"""
            {"tokens": [{"token": "aaaaaaaa1", "stores": ["alice", "shared"], "access": "read-write"},
                        {"token": "bbbbbbbb2", "stores": ["*"], "access": "read"}]}
            """#.utf8))
        let alice = try StoreName("alice"), bob = try StoreName("bob")
        #expect(policy.authorize("Bearer aaaaaaaa1", store: alice, writing: true) == .allowed)
        #expect(policy.authorize("bearer aaaaaaaa1", store: alice, writing: true) == .allowed)
        if case .forbidden = policy.authorize("Bearer aaaaaaaa1", store: bob, writing: false) {} else { Issue.record("403 expected") }
        #expect(policy.authorize("Bearer bbbbbbbb2", store: bob, writing: false) == .allowed)
        if case .forbidden = policy.authorize("Bearer bbbbbbbb2", store: bob, writing: true) {} else { Issue.record("403 expected") }
        if case .unauthenticated = policy.authorize(nil, store: bob, writing: false) {} else { Issue.record("401 expected") }
        if case .unauthenticated = policy.authorize("Bearer aaaaaaaa", store: alice, writing: false) {} else { Issue.record("401 expected") }
        if case .unauthenticated = policy.authorize("Basic aaaaaaaa1", store: alice, writing: false) {} else { Issue.record("401 expected") }
        #expect(AccessPolicy.open.authorize(nil, store: bob, writing: true) == .allowed)

        let bad: [(String, String)] = [
            ("[]", "\"tokens\" array"),
            ("not json", "not JSON"),
            (#"{"tokens":[{"token":"short","stores":["a"],"access":"read"}]}"#, "tokens[0].token"),
            (#"{"tokens":[{"token":"aaaaaaaa1","stores":[],"access":"read"}]}"#, "tokens[0].stores"),
            (#"{"tokens":[{"token":"aaaaaaaa1","stores":["../x"],"access":"read"}]}"#, "tokens[0].stores"),
            (#"{"tokens":[{"token":"aaaaaaaa1","stores":["a"],"access":"write"}]}"#, "tokens[0].access"),
            (#"{"tokens":[{"token":"aaaaaaaa1","stores":["a"],"access":"read"},{"token":"aaaaaaaa1","stores":["a"],"access":"read"}]}"#, "tokens[1].token"),
        ]
        for (text, mention) in bad {
            #expect { try AccessPolicy(tokensFile: Array(text.utf8)) } throws: { error in
                "\(error)".contains(mention)
            }
        }
    }
}
