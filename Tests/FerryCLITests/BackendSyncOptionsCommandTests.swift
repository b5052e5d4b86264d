import Ferry
import FerryTestSupport
import FerryURLSession
import Foundation
import Testing

/// `ferry sync <store> pocketbase+http://…` runs through the same runner as every other peer:
/// `--dry-run`, `--push-only`, `--pull-only`, `--force` and `--json` mean what they mean for a
/// folder.
@Suite(.serialized) struct BackendSyncOptionsCommandTests {
    @Test func dryRunOneWaySyncsForceAndJSONAreTheSameAsForAnyPeer() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return }
        defer { server.stop() }
        let laptop = directory.subpath("laptop")
        let other = directory.subpath("other")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["init", other, "--name", "other"]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"title": "a", "rank": 1}"#]).exitCode == 0)
        let user = syncUser
        #expect(try runFerry(["backend", "setup", server.location, "--entities", "Note", "--from", laptop, "--create-user"],
                             environment: server.superuserEnvironment.merging(user) { $1 }).exitCode == 0)
        let client = PocketBaseClient(location: try PocketBaseLocation(parsing: server.location),
                                      credentials: .password(email: "laptop@example.com", password: "laptop-password-1", collection: "users"),
                                      httpClient: URLSessionHTTPClient())
        func sync(_ options: [String]) throws -> CLIResult {
            try runFerry(["sync", laptop, server.location, "--entities", "Note"] + options, environment: user)
        }
        func report(_ output: CLIResult) throws -> [String: JSONValue] {
            try #require(try JSONParser.parse(output.stdout).objectValue, "\(output)")
        }

        // A dry run says what it would push, in the report a folder sync prints, and writes nothing.
        let dry = try sync(["--dry-run", "--json"])
        let dryReport = try report(dry)
        #expect(dry.exitCode == 0 && dryReport["dryRun"] == true && dryReport["pushed"] == 1 && dryReport["plan"] == "full-push", "\(dry)")
        #expect(try await client.records(in: "Note").items.isEmpty)
        let folder = try report(try runFerry(["sync", laptop, other, "--json"]))
        #expect(Set(dryReport.keys) == Set(folder.keys), "\(dryReport.keys.sorted()) vs \(folder.keys.sorted())")

        // Push-only sends; pull-only brings; neither goes the other way.
        let push = try report(try sync(["--push-only", "--json"]))
        #expect(push["pushed"] == 1 && push["direction"] == "push-only", "\(push)")
        _ = try await client.create(in: "Note", fields: ["title": "from the web"])
        #expect(try runFerry(["put", laptop, "Note", "n2", "--json", #"{"title": "b"}"#]).exitCode == 0)
        let pull = try report(try sync(["--pull-only", "--json"]))
        #expect(pull["pulled"] == 1 && pull["pushed"] == 0 && pull["direction"] == "pull-only", "\(pull)")
        #expect(try await client.records(in: "Note").items.count == 2)
        let full = try sync([])
        #expect(full.exitCode == 0 && full.stdout.hasPrefix("incremental: pulled 0, pushed 1, 0 conflicts ("), "\(full)")
        #expect(try await client.records(in: "Note").items.count == 3)

        // Deleting most records is refused until --force, as for any peer.
        for id in ["n1", "n2"] { #expect(try runFerry(["delete", laptop, "Note", id]).exitCode == 0) }
        let refused = try sync(["--max-delete-count", "0"])
        #expect(refused.exitCode != 0 && refused.stderr.contains("--force"), "\(refused)")
        let forced = try sync(["--force"])
        #expect(forced.exitCode == 0 && forced.stdout.hasPrefix("incremental: pulled 0, pushed 2"), "\(forced)")
        let deleted = try await client.records(in: "Note").items.filter { $0["ferry_deleted"] == true }
        #expect(deleted.count == 2)
    }
}
