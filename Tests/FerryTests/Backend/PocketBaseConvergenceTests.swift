import Ferry
import FerryTestSupport
import FerryURLSession
import Foundation
import Testing

/// Two Ferry replicas and a raw-REST client edit the same records of one real PocketBase,
/// with syncs at random moments, until all agree; and a server killed in the middle of a push.
@Suite(.serialized) struct PocketBaseConvergenceTests {
    typealias Fixture = PocketBaseSyncTests.Fixture
    static let note = PocketBaseSyncTests.note

    @Test(arguments: [11, 12])
    func twoReplicasAndAWebClientConverge(seed: UInt64) async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        var random = SeededRandom(seed: seed)
        let stores = [try fixture.store("laptop"), try fixture.store("desktop")]
        let ids = (0..<6).map { "r\($0)" }
        var webWrites = 0
        for step in 0..<30 {
            let id = ids[Int(random.next() % UInt64(ids.count))]
            let document: JSONValue = ["title": .string("s\(seed)-\(step)"), "rank": .integer(Int64(1 + random.next() % 9))]
            switch random.next() % 7 {
            case 0, 1:
                try stores[Int(random.next() % 2)].put(document, entity: Self.note, id: RecordID(id))
            case 2:
                let store = stores[Int(random.next() % 2)]
                if try store.get(entity: Self.note, id: RecordID(id)) != nil { try store.delete(entity: Self.note, id: RecordID(id)) }
            case 3, 4:
                // The web client edits what it sees, following the rules (a stale write is redone after a read).
                let backendID = PocketBaseRecordID.backendID(for: id)
                if let current = try await fixture.web.records(in: "Note", filter: "id = '\(backendID)'").items.first {
                    var body: [String: JSONValue] = ["title": document.objectValue?["title"] ?? "", "rank": document.objectValue?["rank"] ?? 1]
                    body["ferry_base_rev"] = current["ferry_rev"] ?? ""
                    body["ferry_rev"] = .string("web-\(seed)-\(step)")
                    body["ferry_deleted"] = false
                    _ = try? await fixture.web.update(in: "Note", id: backendID, fields: body)
                } else {
                    _ = try? await fixture.web.create(in: "Note", fields: [
                        "id": .string(backendID), "ferry_id": .string(id), "title": document.objectValue?["title"] ?? "", "rank": 1,
                    ])
                }
                webWrites += 1
            case 5:
                // A hard delete by the web client.
                try? await fixture.web.delete(in: "Note", id: PocketBaseRecordID.backendID(for: id))
            default:
                _ = try await fixture.sync(stores[Int(random.next() % 2)], policy: .lastWriterWins)
            }
        }
        // Everyone syncs until nothing moves.
        for _ in 0..<4 {
            for store in stores { _ = try await fixture.sync(store, policy: .lastWriterWins) }
        }
        let laptop = try PocketBaseSyncTests.documents(stores[0])
        let desktop = try PocketBaseSyncTests.documents(stores[1])
        var server: [String: JSONValue] = [:]
        for (id, record) in try await fixture.serverRecords() where record["ferry_deleted"] != true {
            server[id] = ["title": record["title"] ?? "", "rank": record["rank"] ?? 0]
        }
        #expect(laptop == desktop, "seed \(seed)")
        #expect(laptop == server, "seed \(seed): \(laptop) vs \(server)")
        for store in stores {
            #expect(try StoreVerifier(path: store.path).verify().isClean)
        }
        print("convergence seed \(seed): 30 steps, \(webWrites) web writes, \(laptop.count) records agree")
    }

    @Test func aServerKilledInTheMiddleOfAPushLosesNothing() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        for index in 0..<400 { try laptop.put(["title": .string("note \(index)"), "rank": .integer(Int64(index + 1))], entity: Self.note, id: RecordID("n\(index)")) }
        let location = fixture.location
        let store = laptop
        let push = Task { () -> BackendError? in
            let client = PocketBaseClient(location: location, credentials: .password(email: "laptop@example.com", password: "laptop-password-1", collection: "users"),
                                          httpClient: URLSessionHTTPClient(), maximumAttempts: 2, retryDelay: 0.05)
            let peer = BackendPeer(backend: PocketBaseBackend(client: client), options: .init(entities: [Self.note]))
            do {
                _ = try await SyncEngine(store: store, transport: peer).run()
                return nil
            } catch {
                guard case SyncError.backend(let failure)? = error as? SyncError else { return BackendError(.protocolViolation, "\(error)") }
                return failure
            }
        }
        // Kill the server once some records are in.
        let counter = fixture.client()
        while (try? await counter.count(in: "Note")) ?? 0 < 20 { try await Task.sleep(nanoseconds: 5_000_000) }
        fixture.server.kill()
        let failure = await push.value
        #expect(failure?.kind == .unreachable, "\(String(describing: failure))")
        try fixture.server.restart()
        let report = try await fixture.sync(laptop)
        #expect(report.pushed > 0 && report.pushed < 400, "\(report)")
        let server = try await fixture.serverRecords()
        #expect(server.count == 400)
        for index in 0..<400 { #expect(server["n\(index)"]?["rank"] == .integer(Int64(index + 1))) }
        let idle = try await fixture.sync(laptop)
        #expect(idle.pushed == 0 && idle.pulled == 0, "\(idle)")
    }
}
