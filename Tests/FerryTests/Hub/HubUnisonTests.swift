import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// Two copies of a hub folder kept in step by `unison`, as two machines' cloud-drive folders
/// would be: each replica syncs with its own copy, unison copies both ways between syncs (and
/// while a sync runs), and the replicas converge.
@Suite struct HubUnisonTests {
    static let notes = try! EntityName("Note")

    /// Runs `unison a b` in batch mode with a profile folder of the test's own.
    func unison(_ unison: String, _ a: String, _ b: String, home: String) throws -> Int32 {
        let result = try runProgram(
            unison, [a, b, "-batch", "-auto", "-silent", "-times", "-confirmbigdel=false"],
            environment: ["UNISON": home, "HOME": home, "PATH": "/usr/bin:/bin"], timeout: 300)
        return result.exitCode
    }

    @Test func replicasSyncingWithTwoCopiesKeptInStepByUnisonConverge() async throws {
        guard let unison = ["/usr/bin/unison", "/usr/local/bin/unison"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            if ProcessInfo.processInfo.environment["FERRY_REQUIRE_S3"] == "1" {
                Issue.record("unison is not installed: run scripts/install-test-tools.sh")
            } else {
                print("unison test skipped: unison not found; run scripts/install-test-tools.sh to enable it")
            }
            return
        }
        let directory = try TemporaryDirectory()
        let home = directory.subpath("unison-home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let here = directory.subpath("machine-a/hub")
        let there = directory.subpath("machine-b/hub")
        try await Hub.create(in: FolderHubStorage(root: here), openToAnyWriter: true)
        try FileManager.default.createDirectory(atPath: there, withIntermediateDirectories: true)
        #expect(try self.unison(unison, here, there, home: home) == 0)
        let a = try Store.create(at: directory.subpath("a"), name: "a")
        let b = try Store.create(at: directory.subpath("b"), name: "b")
        for round in 0..<4 {
            for n in 0..<50 {
                try a.put(["round": .integer(Int64(round))], entity: Self.notes, id: RecordID("a\(round)-\(n)"))
                try b.put(["round": .integer(Int64(round))], entity: Self.notes, id: RecordID("b\(round)-\(n)"))
            }
            // Both edit one record each round (resolving the conflict of the last, if it is one).
            let shared = RecordKey(entity: Self.notes, id: try RecordID("shared"))
            try a.edit(shared, deleting: false, document: ["by": "a", "round": .integer(Int64(round))])
            try b.edit(shared, deleting: false, document: ["by": "b", "round": .integer(Int64(round))])
            // Unison copies while b syncs with its copy: files appear mid-sync.
            async let copied = Task.detached { try self.unison(unison, here, there, home: home) }.value
            _ = try await a.sync(with: HubTransport(folder: here))
            _ = try await b.sync(with: HubTransport(folder: there))
            // A file that changed under it is skipped (status 1 or 2) and copied at the next run.
            #expect(try await copied <= 2)
        }
        for _ in 0..<3 {
            #expect(try self.unison(unison, here, there, home: home) == 0)
            _ = try await a.sync(with: HubTransport(folder: here))
            _ = try await b.sync(with: HubTransport(folder: there))
        }
        #expect(try self.unison(unison, here, there, home: home) == 0)
        _ = try await a.sync(with: HubTransport(folder: here))
        let stateA = try ReplicaState(a)
        let stateB = try ReplicaState(b)
        #expect(stateA.records.count == 401)
        #expect(stateA == stateB, "\(stateA.differences(from: stateB).prefix(5))")
        let verified = try await HubVerifier(storage: FolderHubStorage(root: here)).verify()
        #expect(verified.isClean, "\(verified.findings) \(verified.missing)")
    }
}
