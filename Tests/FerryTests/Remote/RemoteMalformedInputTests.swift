import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// The malformed-input corpus against the sync endpoints: bodies that are not JSON, JSON of
/// the wrong shape, changes that break the rules or claim history the store never made, and
/// broken HTTP. Each gets its status and a JSON error; the server keeps serving.
@Suite(.serialized, .eachTestOnItsOwnThread) struct RemoteMalformedInputTests {
    let notes = try! EntityName("Note")

    func makeServer(_ directory: TemporaryDirectory) async throws -> (RemoteServer, Store) {
        let server = try RemoteServer(root: directory.subpath("server"))
        let local = try Store.create(at: directory.subpath("client"))
        try local.put(["v": 1], entity: notes, id: RecordID("1"))
        try await sync(local, with: server, "s")
        return (server, local)
    }

    /// A valid change as a JSON object text, with `edit` applied to its members.
    func changeJSON(
        origin: ReplicaID = ReplicaID.generate(), counter: Int64 = 1, signedAfterEdit: Bool = false,
        _ edit: (inout [String: JSONValue]) -> Void = { _ in }
    ) -> String {
        var members: [String: JSONValue] = [
            "origin": .string(origin.rawValue), "counter": .integer(counter), "hlc": "1700000000000.0", "op": "put",
            "entity": "Note", "id": "x", "doc": ["a": 1], "vv": [origin.rawValue: .integer(counter)],
        ]
        // The digest a real client sends (no parent: a first change), made before `edit`, so an
        // edit that changes the content also breaks the digest, as tampering would.
        if let change = try? Change(jsonFields: members) {
            let chain = ChangeChain(change, parent: .zero)
            members["digest"] = .string(chain.digest.hex)
            members["parent"] = .string(chain.parent.hex)
        }
        edit(&members)
        if signedAfterEdit {
            // A forger who signs what it forged: the digest matches, the claim must be refused.
            members["digest"] = nil
            members["parent"] = nil
            if let change = try? Change(jsonFields: members) {
                let chain = ChangeChain(change, parent: .zero)
                members["digest"] = .string(chain.digest.hex)
                members["parent"] = .string(chain.parent.hex)
            }
        }
        return JSONValue.object(members).canonicalText
    }

    func push(_ server: RemoteServer, _ body: String) async throws -> (status: Int, body: String) {
        let answer = try await request("POST", server.address("/v1/stores/s/push"), body: body)
        return (answer.status, answer.body)
    }

    @Test func pushBodiesThatAreNotValidBatches() async throws {
        let directory = try TemporaryDirectory()
        let (server, _) = try await makeServer(directory)
        defer { Task { await server.stop() } }
        let headBefore = try server.store("s").headSequence
        let cases: [(String, Int, String)] = [
            ("", 400, "not JSON"),
            ("{\"changes\": [", 400, "not JSON"),
            ("\u{FF}\u{FE}", 400, "not JSON"),
            ("[1,2,3]", 400, "must be a JSON object"),
            ("{}", 400, "changes: must be an array"),
            (#"{"changes": {"a": 1}}"#, 400, "changes: must be an array"),
            (#"{"changes": [], "extra": 1}"#, 400, "unknown member"),
            (#"{"changes": [1]}"#, 400, "changes[0]: must be an object"),
            ("{\"changes\": [\(changeJSON()), \(changeJSON { $0["hlc"] = "yesterday" })]}", 400, "changes[1].hlc"),
            ("{\"changes\": [\(changeJSON { $0["origin"] = "me" })]}", 400, "changes[0].origin"),
            ("{\"changes\": [\(changeJSON { $0["counter"] = 0 })]}", 400, "changes[0].counter"),
            ("{\"changes\": [\(changeJSON { $0["counter"] = -3 })]}", 400, "changes[0].counter"),
            ("{\"changes\": [\(changeJSON { $0["entity"] = "../etc" })]}", 400, "changes[0].entity"),
            ("{\"changes\": [\(changeJSON { $0["id"] = "" })]}", 400, "changes[0].id"),
            ("{\"changes\": [\(changeJSON { $0["op"] = "patch" })]}", 400, "changes[0].op"),
            ("{\"changes\": [\(changeJSON { $0["doc"] = [1, 2] })]}", 400, "changes[0].doc"),
            ("{\"changes\": [\(changeJSON { $0["doc"] = nil })]}", 400, "changes[0].doc"),
            ("{\"changes\": [\(changeJSON { $0["op"] = "delete" })]}", 400, "changes[0].doc"),
            ("{\"changes\": [\(changeJSON { $0["vv"] = [:] })]}", 400, "changes[0].vv: must hold the change's own origin"),
            ("{\"changes\": [\(changeJSON { $0["vv"] = ["nope": 1] })]}", 400, "changes[0].vv"),
            ("{\"changes\": [\(changeJSON { $0["seq"] = 4 })]}", 400, "changes[0]: unknown member"),
            (#"{"changes": [], "maximumSkew": -1}"#, 400, "maximumSkew"),
            ("{\"changes\": [\(changeJSON { $0["digest"] = nil; $0["parent"] = nil })]}", 400, "changes[0].digest"),
            ("{\"changes\": [\(changeJSON { $0["digest"] = .string(String(repeating: "0", count: 64)) })]}", 422, "does not match its digest"),
            ("{\"changes\": [\(changeJSON(counter: 2))]}", 422, "changes of one replica must arrive in order"),
        ]
        for (body, status, mention) in cases {
            let answer = try await push(server, body)
            #expect(answer.status == status, "\(body)")
            #expect(answer.body.hasPrefix("{\"error\":"), "\(body)")
            #expect(answer.body.contains(mention), "\(body): \(answer.body)")
        }
        // A document nested deeper than a store holds is a bad request (400), not 422, which is
        // for changes refused for what they claim.
        var deep: JSONValue = ["leaf": 1]
        for _ in 0..<600 { deep = ["d": deep] }
        let tooDeep = try await push(server, "{\"changes\": [\(changeJSON { $0["doc"] = deep })]}")
        #expect(tooDeep.status == 400, "\(tooDeep.body.prefix(200))")
        // A change stamped a week ahead of the server's clock: refused whole, nothing applied.
        let future = SystemClock().milliseconds() + 7 * 86_400_000
        let answer = try await push(server, "{\"changes\": [\(changeJSON(counter: 1)), \(changeJSON(signedAfterEdit: true) { $0["hlc"] = .string("\(future).0") })]}")
        #expect(answer.status == 422)
        #expect(answer.body.contains("stamped 7 d 0 h ahead of this clock") && answer.body.contains("--max-skew"), "\(answer.body.prefix(300))")
        #expect(try server.store("s").headSequence == headBefore)
    }

    @Test func aPushClaimingTheStoresOwnHistoryIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let (server, _) = try await makeServer(directory)
        defer { Task { await server.stop() } }
        let hosted = try server.store("s")
        let own = hosted.replicaID
        let headBefore = hosted.headSequence
        // A change that says it was made by the server's own replica, which never wrote anything.
        var answer = try await push(server, "{\"changes\": [\(changeJSON(origin: own, counter: 1))]}")
        #expect(answer.status == 409)
        #expect(answer.body.contains("changes[0] is change \(own.short):1"))
        // A change by someone else that claims to descend from such a change.
        let forged = changeJSON(signedAfterEdit: true) { members in
            guard case .object(var vv) = members["vv"] else { return }
            vv[own.rawValue] = 7
            members["vv"] = .object(vv)
        }
        answer = try await push(server, "{\"changes\": [\(changeJSON()), \(forged)]}")
        #expect(answer.status == 409)
        #expect(answer.body.contains("changes[1] descends from change \(own.short):7"))
        #expect(hosted.headSequence == headBefore)
    }

    @Test func queriesCheckpointsAndPathsThatAreWrong() async throws {
        let directory = try TemporaryDirectory()
        let (server, local) = try await makeServer(directory)
        defer { Task { await server.stop() } }
        let hosted = try server.store("s")
        let base = server.address("/v1/stores/s")
        let cases: [(String, String, String?, Int, String)] = [
            ("POST", "/changes", "nope", 400, "not JSON"),
            ("POST", "/changes", #"{"after": "zero"}"#, 400, "after"),
            ("POST", "/changes", #"{"limit": 0}"#, 400, "limit"),
            ("POST", "/changes", #"{"knowledge": [1]}"#, 400, "knowledge"),
            ("POST", "/changes", #"{"since": 1}"#, 400, "unknown member"),
            ("GET", "/changes?after=-1", nil, 400, "after"),
            ("GET", "/changes?limit=1000001", nil, 400, "limit"),
            ("GET", "/entries/abc/hash", nil, 400, "journal position"),
            ("DELETE", "", nil, 405, "not allowed"),
            ("GET", "/push", nil, 405, "use POST"),
            ("POST", "/knowledge", "{}", 405, "not allowed"),
            ("GET", "/nothing", nil, 404, "no such endpoint"),
            ("PUT", "/checkpoints/not-a-uuid", "{}", 400, "replica UUID"),
            ("PUT", "/checkpoints/\(local.replicaID)", "[]", 400, "must be a JSON object"),
            ("PUT", "/checkpoints/\(local.replicaID)", #"{"peer": 1}"#, 400, "checkpoint needs"),
            ("PUT", "/checkpoints/\(ReplicaID.generate())",
             SyncCheckpoint(peer: local.replicaID, peerMark: PeerMark(StoreMark(local.head)), localPosition: 0, localHash: .zero, time: 0).jsonValue.canonicalText, 400, "does not match the replica"),
            ("PUT", "/checkpoints/\(hosted.replicaID)",
             SyncCheckpoint(peer: hosted.replicaID, peerMark: PeerMark(StoreMark(position: 0, hash: .zero)), localPosition: 0, localHash: .zero, time: 0).jsonValue.canonicalText,
             400, "its own replica"),
            ("PUT", "/checkpoints/\(local.replicaID)",
             SyncCheckpoint(peer: local.replicaID, peerMark: PeerMark(StoreMark(position: 1, hash: .zero)), localPosition: 1, localHash: .zero, time: 0).jsonValue.canonicalText,
             409, "does not match this store's journal"),
        ]
        for (method, path, body, status, mention) in cases {
            let answer = try await request(method, base + path, body: body)
            #expect(answer.status == status, "\(method) \(path)")
            #expect(answer.body.contains(mention), "\(method) \(path): \(answer.body)")
            #expect(answer.headers["ferry-protocol"] == "1")
        }
        let good = try await request("GET", base + "/entries/999/hash")
        #expect(good.body == "{\"hash\":null,\"seq\":999}\n")
    }

    @Test func brokenHTTPNeverWedgesTheServer() async throws {
        let directory = try TemporaryDirectory()
        let (server, _) = try await makeServer(directory)
        defer { Task { await server.stop() } }
        let token = "Authorization: Bearer \(RemoteServer.readWrite)\r\n"
        let cases: [(String, Int?)] = [
            ("GARBAGE\r\n\r\n", 400),
            ("BREW /v1/stores/s HTTP/1.1\r\nHost: x\r\n\r\n", 501),
            ("GET /v1/stores/s HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 17_000))\r\n\r\n", 431),
            ("POST /v1/stores/s/push HTTP/1.1\r\nHost: x\r\n\(token)\r\n", 411),
            ("POST /v1/stores/s/push HTTP/1.1\r\nHost: x\r\n\(token)Content-Length: abc\r\n\r\n", 400),
            ("POST /v1/stores/s/push HTTP/1.1\r\nHost: x\r\n\(token)Content-Length: 999999999999\r\n\r\n", 413),
        ]
        for (text, status) in cases {
            let client = try RawClient(port: server.port)
            try await client.send(text)
            let response = try await client.readResponse()
            #expect(response?.code == status, "\(text.prefix(40))")
            #expect(response?.text.hasPrefix("{\"error\":") == true)
        }
        // A truncated body (the client says 100 bytes, sends 10, and goes away): never applied.
        let head = try server.store("s").headSequence
        do {
            let client = try RawClient(port: server.port)
            try await client.send("POST /v1/stores/s/push HTTP/1.1\r\nHost: x\r\n\(token)Content-Length: 100\r\n\r\n{\"changes\"")
            client.socket.shutdown(.write)
            #expect(await client.isClosedByServer())
        }
        // A client that connects and sends nothing is closed after the first-request timeout.
        do {
            let client = try RawClient(port: server.port, timeout: .seconds(5))
            #expect(await client.isClosedByServer())
        }
        #expect(try server.store("s").headSequence == head)
        // Still serving.
        let answer = try await request("GET", server.address("/v1/stores/s"))
        #expect(answer.status == 200)
    }
}
