import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// The protocol as another client sees it: curl, with nothing but the documented requests.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs curl"))
struct RemoteCurlTests {
    let notes = try! EntityName("Note")

    func curl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let result = try runProgram("/usr/bin/curl", ["-sS", "--fail-with-body"] + arguments)
        return (result.status, String(decoding: result.output, as: UTF8.self))
    }

    @Test func infoPullPushAndSnapshotWithCurl() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let local = try Store.create(at: directory.subpath("laptop"))
        for index in 0..<3 { try local.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("\(index)")) }
        try await sync(local, with: server, "alice")
        let hosted = try server.store("alice")
        let auth = ["-H", "Authorization: Bearer \(RemoteServer.readWrite)"]
        let base = server.address("/v1/stores/alice")

        // Info.
        var result = try curl(auth + [base])
        #expect(result.status == 0)
        let info = try JSONParser.parse(result.output)
        #expect(info["replica"]?.stringValue == hosted.replicaID.rawValue)
        #expect(info["head"]?["seq"]?.integerValue == 3)
        #expect(info["protocol"]?.integerValue == 1)

        // Pull: a GET page, then the same as a POST query that leaves out what we have.
        result = try curl(auth + ["\(base)/changes?after=1&limit=10"])
        var lines = result.output.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.last == #"{"count":2,"end":true,"head":3,"through":3}"#)
        let first = try JSONParser.parse(String(lines[0]))
        #expect(first["id"]?.stringValue == "1")
        #expect(first["origin"]?.stringValue == local.replicaID.rawValue)
        result = try curl(auth + ["-X", "POST", "--data", #"{"after":0,"knowledge":{"\#(local.replicaID)":2}}"#, "\(base)/changes"])
        lines = result.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(try JSONParser.parse(String(lines[0]))["counter"]?.integerValue == 3)

        // Snapshot: the whole journal in one stream.
        result = try curl(auth + ["\(base)/snapshot"])
        #expect(result.output.split(separator: "\n").count == 4)

        // Push a change written by hand, as a client in another language would.
        let phone = ReplicaID.generate()
        let now = SystemClock().milliseconds()
        // Its digest: SHA-256 of the change's canonical JSON with "parent" (zeros for a first change).
        let parent = String(repeating: "0", count: 64)
        let canonical = """
            {"counter":1,"doc":{"text":"hello from curl"},"entity":"Note","hlc":"\(now).0","id":"from-curl","op":"put",\
            "origin":"\(phone)","parent":"\(parent)","vv":{"\(phone)":1}}
            """
        let digest = SHA256.hash(Array(canonical.utf8)).hex
        let body = """
            {"changes":[{"origin":"\(phone)","counter":1,"hlc":"\(now).0","op":"put","entity":"Note","id":"from-curl",\
            "doc":{"text":"hello from curl"},"vv":{"\(phone)":1},"parent":"\(parent)","digest":"\(digest)"}]}
            """
        result = try curl(auth + ["-X", "POST", "-H", "Content-Type: application/json", "--data", body, "\(base)/push"])
        #expect(result.status == 0, "\(result.output)")
        let reply = try JSONParser.parse(result.output)
        #expect(reply["applied"]?.integerValue == 1)
        #expect(reply["headAfter"]?.integerValue == 4)
        // Pushing it again changes nothing.
        result = try curl(auth + ["-X", "POST", "--data", body, "\(base)/push"])
        #expect(try JSONParser.parse(result.output)["alreadyKnown"]?.integerValue == 1)

        // The laptop gets it with an ordinary sync.
        let report = try await sync(local, with: server, "alice")
        #expect(report.pulled == 1)
        #expect(try local.get(entity: notes, id: RecordID("from-curl")) == ["text": "hello from curl"])

        // Errors are JSON with the status curl reports.
        result = try curl(["-o", "/dev/null", "-w", "%{http_code}", base])
        #expect(result.output.hasSuffix("401"))
    }
}
