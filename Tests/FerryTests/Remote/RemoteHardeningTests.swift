import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// `ferry serve` against clients that try to fill it up or trick it (issue 21).
@Suite(.eachTestOnItsOwnThread) struct RemoteHardeningTests {
    func head(_ method: String, _ path: String, token: String?, length: Int, extra: String = "") -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n"
        if let token { text += "Authorization: Bearer \(token)\r\n" }
        return text + extra + "\r\n"
    }

    @Test func aRequestThatMayNotWriteIsAnsweredBeforeItsBodyIsSent() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        // 64 MiB announced, not one byte of it sent: the answer comes from the head alone.
        for (token, code) in [(nil, 401), ("wrong-token-0123456789", 401), (RemoteServer.readOnly, 403)] as [(String?, Int)] {
            let client = try RawClient(port: server.port, timeout: .seconds(10))
            try await client.send(head("POST", "/v1/stores/alice/push", token: token, length: 64 << 20))
            let response = try #require(try await client.readResponse())
            #expect(response.code == code, "\(token ?? "no token"): \(response.text)")
            #expect(await client.isClosedByServer())
        }
        // A read route's body is small: a 44 MiB knowledge query is refused unread.
        let client = try RawClient(port: server.port, timeout: .seconds(10))
        try await client.send(head("POST", "/v1/stores/alice/changes", token: RemoteServer.readOnly, length: 44 << 20))
        #expect(try #require(try await client.readResponse()).code == 413)
    }

    @Test func theBodyBudgetBoundsWhatAllConnectionsHold() async throws {
        let directory = try TemporaryDirectory()
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.bodyBudgetBytes = 1 << 20
        let service = StoreService(root: directory.path, policy: .open)
        let server = HTTPServer(configuration: configuration, handler: service)
        let port = try server.start()
        defer { Task { await server.stop() } }
        // One push holds 700 KB of the 1 MiB budget: the change it has sent so far (what is
        // held is what has arrived, not the 60 MiB it announces)…
        let first = try RawClient(port: port, timeout: .seconds(10))
        try await first.send(head("POST", "/v1/stores/s/push", token: nil, length: 60 << 20)
            + #"{"changes":[{"doc":{"a":""# + String(repeating: "x", count: 700_000))
        #expect(try await eventually { server.bodyBytesReserved >= 700_000 })
        #expect(server.bodyBytesReserved < 1 << 20)
        // …so a second one is told to come back once what it sends does not fit.
        let second = try RawClient(port: port, timeout: .seconds(10))
        try await second.send(head("POST", "/v1/stores/s/push", token: nil, length: 60 << 20)
            + #"{"changes":[{"doc":{"a":""# + String(repeating: "x", count: 500_000))
        let busy = try #require(try await second.readResponse())
        #expect(busy.code == 503, "\(busy.text)")
        first.close()
        // Once the first connection is gone, its share is back.
        #expect(try await eventually { server.bodyBytesReserved == 0 })
        let third = try RawClient(port: port, timeout: .seconds(10))
        let body = #"{"changes":[]}"#
        try await third.send(head("POST", "/v1/stores/s/push", token: nil, length: body.utf8.count) + body)
        #expect(try #require(try await third.readResponse()).code == 201)
    }

    @Test func tokensMeanWhatTheySay() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let bob = try Store.create(at: directory.subpath("bob"), name: "bob-laptop")
        try bob.put(["t": 1], entity: EntityName("Note"), id: RecordID("n"))
        _ = try await sync(bob, with: server, "shared")
        let hosted = try server.store("shared")
        #expect(try hosted.checkpoint(for: bob.replicaID)?.peerName == "bob-laptop")

        // A read token may not save a checkpoint, not even its own…
        let checkpoint = try #require(try hosted.checkpoint(for: bob.replicaID))
        var forged = checkpoint
        forged.peerName = "alice-laptop"
        let body = forged.jsonValue.canonicalText
        let reader = try RawClient(port: server.port, timeout: .seconds(10))
        try await reader.send(head("PUT", "/v1/stores/shared/checkpoints/\(bob.replicaID)", token: RemoteServer.readOnly, length: body.utf8.count) + body)
        #expect(try #require(try await reader.readResponse()).code == 403)
        // …and a writer may save one, but not rename Bob in the server's log.
        let writer = try RawClient(port: server.port, timeout: .seconds(10))
        try await writer.send(head("PUT", "/v1/stores/shared/checkpoints/\(bob.replicaID)", token: RemoteServer.readWrite, length: body.utf8.count) + body)
        #expect(try #require(try await writer.readResponse()).code == 204)
        #expect(try hosted.checkpoint(for: bob.replicaID)?.peerName == "bob-laptop")

        // A reader's sync still ends well: the server's side of its checkpoint is simply not saved.
        let reading = try Store.create(at: directory.subpath("reader"))
        let report = try await sync(reading, with: server, "shared", token: RemoteServer.readOnly, options: {
            var options = SyncOptions()
            options.direction = .pullOnly
            return options
        }())
        #expect(report.pulled == 1)
        // With a change to push, a dry run lists the refusal the push would meet.
        try reading.put(["t": 2], entity: EntityName("Note"), id: RecordID("mine"))
        var dry = SyncOptions()
        dry.dryRun = true
        let planned = try await sync(reading, with: server, "shared", token: RemoteServer.readOnly, options: dry)
        #expect(planned.refusals.contains { $0.contains("may not be written with this token") }, "\(planned.plan) pushed \(planned.pushed) \(planned.refusals)")

        // Two Authorization headers: which one counts is not guessed.
        let doubled = try RawClient(port: server.port, timeout: .seconds(10))
        try await doubled.send(
            "GET /v1/stores/shared HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(RemoteServer.readWrite)\r\n"
                + "Authorization: Bearer \(RemoteServer.readOnly)\r\n\r\n")
        #expect(try #require(try await doubled.readResponse()).code == 400)
    }

    @Test func theTokenCompareCoversTheWholeLength() {
        let token = Array("0123456789abcdef".utf8)
        #expect(AccessPolicy.constantTimeEquals(token, token))
        #expect(!AccessPolicy.constantTimeEquals(token, token + [UInt8](repeating: 0, count: 256)))
        #expect(!AccessPolicy.constantTimeEquals(token, Array(token.dropLast())))
    }

    @Test func forwardedForIsLoggedOnlyFromATrustedProxy() async throws {
        let directory = try TemporaryDirectory()
        let lines = HTTPServerLock<[String]>([])
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.trustedProxies = ["127.0.0.1"]
        let server = HTTPServer(
            configuration: configuration, handler: StoreService(root: directory.path, policy: .open),
            log: { line in lines.withLock { $0.append(line) } })
        let port = try server.start()
        defer { Task { await server.stop() } }
        let client = try RawClient(port: port, timeout: .seconds(10))
        try await client.send("GET /v1 HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.7, 203.0.113.9\r\n\r\n")
        _ = try await client.readResponse()
        // The line is logged once the response is sent, which the client may see first.
        let logged = try await eventually { lines.withLock { $0 }.contains { $0.contains(" 203.0.113.9 via 127.0.0.1:") } }
        #expect(logged, "\(lines.withLock { $0 })")
    }

    /// A push is parsed as it arrives (issue 21, item 1): a bad change is answered at once,
    /// though most of the body it announced has not been sent.
    @Test func aPushIsRefusedAtItsFirstBadChangeBeforeItsBodyArrives() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let client = try RawClient(port: server.port, timeout: .seconds(5))
        try await client.send(head("POST", "/v1/stores/alice/push", token: RemoteServer.readWrite, length: 60 << 20)
            + #"{"changes":[{"counter":0,"op":"put"},"#)
        let response = try #require(try await client.readResponse())
        #expect(response.code == 400 && response.text.contains("changes[0].counter"), "\(response.text)")
        #expect(await client.isClosedByServer())
        #expect(!FileManager.default.fileExists(atPath: directory.subpath("server/alice")))
    }

    /// What a push holds once parsed counts against the budget, not just its bytes: a push
    /// that could never fit is told so (`413`), one that fits is applied.
    @Test func theParsedChangesCountAgainstTheBodyBudget() async throws {
        let directory = try TemporaryDirectory()
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.bodyBudgetBytes = 1 << 20
        let service = StoreService(root: directory.subpath("server"), policy: .open)
        let server = HTTPServer(configuration: configuration, handler: service)
        let port = try server.start()
        defer { Task { await server.stop() } }
        let store = try Store.create(at: directory.subpath("local"))
        // Batches of 100: one signature each, so the body is about the records' size, and
        // the first 100 changes end signed.
        for first in stride(from: 0, to: 1500, by: 100) {
            try store.write((first..<(first + 100)).map { index in
                .put(RecordKey(entity: try EntityName("Note"), id: try RecordID("n\(index)")),
                     ["title": .string("record \(index) " + String(repeating: "x", count: 300))])
            })
        }
        let changes = try store.changes(after: 0, excluding: VersionVector(), limit: 10_000).changes
        let large = PushRequest(changes: changes).bodyBytes()
        #expect(large.count < 1 << 20 && PushRequestDecoder.parsedSize(ofEncoded: large.count / changes.count) * changes.count > 1 << 20)
        let client = try RawClient(port: port, timeout: .seconds(10))
        try await client.send(Array(head("POST", "/v1/stores/s/push", token: nil, length: large.count).utf8) + large)
        let refused = try #require(try await client.readResponse())
        #expect(refused.code == 413 && refused.text.contains("budget"), "\(refused.text)")
        let small = PushRequest(changes: Array(changes.prefix(100))).bodyBytes()
        let second = try RawClient(port: port, timeout: .seconds(10))
        try await second.send(Array(head("POST", "/v1/stores/s/push", token: nil, length: small.count).utf8) + small)
        #expect(try #require(try await second.readResponse()).code == 201)
    }
}

/// Stores are a bounded resource on the server (issue 21, item 5 and 6).
@Suite struct StoreRegistryLimitTests {
    @Test func theLeastRecentlyUsedIdleStoreIsClosedAndOneInUseNever() throws {
        let directory = try TemporaryDirectory()
        let registry = StoreRegistry(root: directory.path, maximumOpen: 2)
        let names = try (0..<5).map { try StoreName("s\($0)") }
        for name in names {
            _ = try registry.storeCreatingIfMissing(named: name)
            registry.checkIn(name)
        }
        #expect(registry.openCount == 2)
        #expect(registry.openStore(named: names[4]) != nil && registry.openStore(named: names[0]) == nil)
        // Checked out, a store stays open whatever else comes.
        let held = try #require(try registry.checkOut(named: names[0]))
        for name in names.dropFirst() {
            _ = try registry.checkOut(named: name)
            registry.checkIn(name)
        }
        #expect(registry.openStore(named: names[0]) === held)
        try held.put(["still": "usable"], entity: EntityName("Note"), id: RecordID("x"))
        registry.checkIn(names[0])
        // Creation leaves no staging folder behind, and a folder that is not a store is never taken over.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".creating-") }.isEmpty)
        try FileManager.default.createDirectory(atPath: directory.subpath("plain"), withIntermediateDirectories: true)
        #expect(throws: StoreError.self) { try registry.storeCreatingIfMissing(named: StoreName("plain")) }
        #expect(!FileManager.default.fileExists(atPath: directory.subpath("plain/ferry.json")))
        registry.closeAll()
    }

    @Test func aStoreFolderThatIsASymbolicLinkIsNotServed() async throws {
        let directory = try TemporaryDirectory()
        let outside = try Store.create(at: directory.subpath("outside"))
        outside.close()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        try FileManager.default.createSymbolicLink(atPath: directory.subpath("server/evil"), withDestinationPath: directory.subpath("outside"))
        let answer = try await request("GET", server.address("/v1/stores/evil"), token: RemoteServer.readWrite)
        #expect(answer.status == 409, "\(answer.body)")
        #expect(answer.body.contains("symbolic link"))
    }
}
