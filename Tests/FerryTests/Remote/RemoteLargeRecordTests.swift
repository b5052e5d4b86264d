import Foundation
import Testing
import FerryTestSupport
import FerryURLSession
@testable import Ferry

/// Pages are cut in bytes as well as in count, so large records pass a server's (or a proxy's)
/// body limit (issue 22, item 4).
@Suite struct RemoteLargeRecordTests {
    let notes = try! EntityName("Note")

    func transport(_ server: RemoteServer, _ name: String, requestBytes: Int) throws -> HTTPTransport {
        var configuration = HTTPTransport.Configuration()
        configuration.maximumRequestBytes = requestBytes
        return try HTTPTransport(url: server.url(name), token: RemoteServer.readWrite, configuration: configuration)
    }

    func text(_ size: Int, _ seed: Int) -> JSONValue {
        .string(String(repeating: "abcdefghij"[String.Index(utf16Offset: seed % 10, in: "abcdefghij")], count: size))
    }

    @Test func manyLargeRecordsPushAndPullUnderABodyLimit() async throws {
        let directory = try TemporaryDirectory()
        // The server takes bodies of 2 MiB at most; 1,000 records of 15 KB are 15 MB.
        let server = try RemoteServer(root: directory.subpath("server"), maximumBodyBytes: 2 << 20)
        defer { Task { await server.stop() } }
        let laptop = try Store.create(at: directory.subpath("laptop"))
        var writes: [RecordWrite] = []
        for index in 0..<1_000 {
            writes.append(.put(RecordKey(entity: notes, id: try RecordID("n\(index)")), ["body": text(15_000, index)]))
        }
        try laptop.write(writes)
        let pushed = try await SyncEngine(store: laptop, transport: try transport(server, "s", requestBytes: 1 << 20)).run()
        #expect(pushed.pushed == 1_000)
        let phone = try Store.create(at: directory.subpath("phone"))
        let pulled = try await SyncEngine(store: phone, transport: try transport(server, "s", requestBytes: 1 << 20)).run()
        #expect(pulled.pulled == 1_000)
        #expect(try phone.ids(of: notes).count == 1_000)
        #expect(try phone.get(entity: notes, id: RecordID("n999")) == ["body": text(15_000, 999)])
        // Each page of the joined state stayed near the byte bound: far more requests than the
        // count bound's one page.
        #expect(server.logged.filter { $0.contains("/state/") }.count >= 10, "\(server.logged.count) requests")
    }

    @Test func oneRecordLargerThanThePageGoesAloneAndOneLargerThanTheServerTakesIsNamed() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"), maximumBodyBytes: 8 << 20)
        defer { Task { await server.stop() } }
        let laptop = try Store.create(at: directory.subpath("laptop"))
        try laptop.put(["body": text(5_000_000, 1)], entity: notes, id: RecordID("big"))
        try laptop.put(["body": "small"], entity: notes, id: RecordID("small"))
        let report = try await SyncEngine(store: laptop, transport: try transport(server, "s", requestBytes: 1 << 20)).run()
        #expect(report.pushed == 2)
        let phone = try Store.create(at: directory.subpath("phone"))
        _ = try await SyncEngine(store: phone, transport: try transport(server, "s", requestBytes: 1 << 20)).run()
        #expect(try phone.get(entity: notes, id: RecordID("big")) == ["body": text(5_000_000, 1)])

        try laptop.put(["body": text(10_000_000, 2)], entity: notes, id: RecordID("huge"))
        do {
            _ = try await SyncEngine(store: laptop, transport: try transport(server, "s", requestBytes: 1 << 20)).run()
            Issue.record("a 10 MB change went through an 8 MiB limit")
        } catch {
            #expect("\(error)".contains("refused a request of"), "\(error)")
            #expect("\(error)".contains("Note/huge alone is that large"), "\(error)")
        }
    }
}
