import Ferry
import FerryTestSupport
import Foundation
import FerryURLSession
import Testing

/// The ordinary user the tests sync as (`--create-user` makes it).
let syncUser = ["POCKETBASE_EMAIL": "laptop@example.com", "POCKETBASE_PASSWORD": "laptop-password-1"]

/// `ferry backend setup` through the binaries (`ferry` hands it to `ferry-remote`), against a
/// real PocketBase on loopback.
@Suite(.serialized) struct BackendCommandTests {
    @Test func setupReadsFieldsFromAStoreCreatesTheUserAndSaysWhatItChanged() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return }
        defer { server.stop() }
        let laptop = directory.subpath("laptop")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"title": "a", "rank": 1, "tags": ["x"]}"#]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n2", "--json", #"{"title": "b", "rank": 2.5, "done": true}"#]).exitCode == 0)
        let environment = server.superuserEnvironment.merging(syncUser) { $1 }

        let setup = try runFerry(["backend", "setup", server.location, "--entities", "Note,Product", "--from", laptop, "--create-user"],
                                 environment: environment)
        #expect(setup.exitCode == 0, "\(setup)")
        let lines = setup.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 7, "\(lines)")
        #expect(lines.first == "created the sync user laptop@example.com in users")
        #expect(lines.dropFirst().first?.hasPrefix("created collection Note (9 fields: done, rank, tags, title, ferry_id,") == true, "\(lines)")
        #expect(lines.dropFirst().first?.hasSuffix("only laptop@example.com may read and write; every update is a compare-and-set on ferry_rev and updated)") == true, "\(lines)")
        #expect(lines.dropFirst(4).first?.hasPrefix("created collection Product (5 fields: ferry_id,") == true, "\(lines)")
        // The rules it wrote, printed.
        #expect(lines.last?.hasPrefix("Product: updateRule: @request.auth.collectionName = \"users\" && (@request.auth.id = \"") == true, "\(lines)")

        let again = try runFerry(["backend", "setup", server.location, "--entities", "Note,Product", "--from", laptop, "--create-user", "--json"],
                                 environment: environment)
        #expect(again.exitCode == 0, "\(again)")
        let report = try #require(try JSONParser.parse(again.stdout).objectValue)
        #expect(report["changes"] == [] && report["location"] == .string(server.location), "\(again.stdout)")
    }

    @Test func setupErrorsAreOneLineAndNeedASuperuser() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return }
        defer { server.stop() }
        let noSuperuser = try runFerry(["backend", "setup", server.location, "--entities", "Note"])
        #expect(noSuperuser.exitCode != 0)
        #expect(noSuperuser.stderr == "error: setting up a PocketBase needs a superuser: set POCKETBASE_SUPERUSER_EMAIL and POCKETBASE_SUPERUSER_PASSWORD\n")
        let wrong = try runFerry(["backend", "setup", server.location, "--entities", "Note"],
                                 environment: ["POCKETBASE_SUPERUSER_EMAIL": server.superuserEmail, "POCKETBASE_SUPERUSER_PASSWORD": "wrong"])
        #expect(wrong.exitCode != 0 && wrong.stderr.hasPrefix("error: sign-in to \(server.location) as a \"_superusers\" record: 400"), "\(wrong)")
        #expect(wrong.stderr.split(separator: "\n").count == 1)
        let badLocation = try runFerry(["backend", "setup", "http://127.0.0.1:1", "--entities", "Note"], environment: server.superuserEnvironment)
        #expect(badLocation.exitCode == 2, "\(badLocation)")
        #expect(badLocation.stderr.contains("a PocketBase location starts with pocketbase+http://"))
        let noEntities = try runFerry(["backend", "setup", server.location], environment: server.superuserEnvironment)
        #expect(noEntities.exitCode == 2 && noEntities.stderr.contains("--entities Product,Note"), "\(noEntities)")
        let badField = directory.subpath("store")
        #expect(try runFerry(["init", badField]).exitCode == 0)
        #expect(try runFerry(["put", badField, "Note", "n1", "--json", #"{"my-field": 1}"#]).exitCode == 0)
        let refused = try runFerry(["backend", "setup", server.location, "--entities", "Note", "--from", badField], environment: server.superuserEnvironment)
        #expect(refused.exitCode != 0 && refused.stderr.contains("Note.my-field: PocketBase field names are letters, digits and _"), "\(refused)")
        // Closed by default: a setup that names no one (no option, no POCKETBASE_EMAIL) makes nothing.
        let nobody = try runFerry(["backend", "setup", server.location, "--entities", "Note"], environment: server.superuserEnvironment)
        #expect(nobody.exitCode != 0 && nobody.stderr == "error: Note: say who may read and write it: --allow-user EMAIL, --allow-role FIELD=VALUE or "
            + "--owner-field FIELD (or set POCKETBASE_EMAIL to the sync user); see docs/BACKENDS.md, Who may read and write\n", "\(nobody)")
        let badRole = try runFerry(["backend", "setup", server.location, "--entities", "Note", "--allow-role", "team"], environment: server.superuserEnvironment)
        #expect(badRole.exitCode == 2 && badRole.stderr.contains("--allow-role team: write it FIELD=VALUE"), "\(badRole)")
        let two = try runFerry(["backend", "setup", server.location, "--entities", "Note", "--allow-user", "a@example.com", "--open-to-signed-in-users"],
                               environment: server.superuserEnvironment)
        #expect(two.exitCode == 2 && two.stderr.contains("give one of --allow-user"), "\(two)")
        let missing = try runFerry(["backend", "setup", server.location, "--entities", "Note", "--allow-user", "nobody@example.com"],
                                   environment: server.superuserEnvironment)
        #expect(missing.exitCode != 0 && missing.stderr == "error: users: no user nobody@example.com to let read and write; create it first (--create-user makes the sync user)\n", "\(missing)")
    }
}

/// `ferry sync <store> pocketbase+http://…` through the binaries.
@Suite(.serialized) struct BackendSyncCommandTests {
    @Test func syncsBothWaysAndReportsOnOneLine() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return }
        defer { server.stop() }
        let laptop = directory.subpath("laptop")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"title": "a", "rank": 1}"#]).exitCode == 0)
        let user = syncUser
        let setup = try runFerry(["backend", "setup", server.location, "--entities", "Note", "--from", laptop, "--create-user"],
                                 environment: server.superuserEnvironment.merging(user) { $1 })
        #expect(setup.exitCode == 0, "\(setup)")

        let first = try runFerry(["sync", laptop, server.location, "--entities", "Note"], environment: user)
        #expect(first.exitCode == 0, "\(first)")
        // The same report as any peer's: the plan, then what moved.
        #expect(first.stdout.hasPrefix("full-push: pulled 0, pushed 1, 0 conflicts ("), "\(first.stdout)")
        let again = try runFerry(["sync", laptop, server.location, "--entities", "Note", "--json"], environment: user)
        let report = try #require(try JSONParser.parse(again.stdout).objectValue)
        #expect(report["pulled"] == 0 && report["pushed"] == 0 && report["requests"] == 3, "\(again.stdout)")

        // Without credentials, or with a superuser's, or without --entities: one line, nothing changed.
        let none = try runFerry(["sync", laptop, server.location, "--entities", "Note"])
        #expect(none.exitCode != 0 && none.stderr.hasPrefix("error: no PocketBase credentials: set POCKETBASE_EMAIL"), "\(none)")
        let superuser = try runFerry(["sync", laptop, server.location, "--entities", "Note"],
                                     environment: ["POCKETBASE_EMAIL": server.superuserEmail, "POCKETBASE_PASSWORD": server.superuserPassword,
                                                   "POCKETBASE_AUTH_COLLECTION": "_superusers"])
        #expect(superuser.exitCode != 0 && superuser.stderr.contains("bypass every API rule"), "\(superuser)")
        // (A store that synced with the backend before remembers its entities: a new one is asked.)
        let fresh = directory.subpath("fresh")
        #expect(try runFerry(["init", fresh, "--name", "fresh"]).exitCode == 0)
        let noEntities = try runFerry(["sync", fresh, server.location], environment: user)
        #expect(noEntities.exitCode == 2 && noEntities.stderr.contains("--entities"), "\(noEntities)")
        let watch = try runFerry(["sync", laptop, server.location, "--entities", "Note", "--dry-run", "--watch"], environment: user)
        #expect(watch.exitCode == 2 && watch.stderr.contains("--watch and --dry-run do not go together"), "\(watch)")
        let soon = try runFerry(["sync", laptop, server.location, "--entities", "Note", "--purge-after", "soon"], environment: user)
        #expect(soon.exitCode == 2 && soon.stderr.contains("--purge-after expects a duration such as 30d, 12h or never, got 'soon'"), "\(soon)")
        let folder = try runFerry(["sync", laptop, directory.subpath("other"), "--purge-after", "7d"])
        #expect(folder.exitCode == 2 && folder.stderr.contains("--purge-after is for app backends"), "\(folder)")
        let never = try runFerry(["sync", laptop, server.location, "--entities", "Note", "--purge-after", "never", "--json"], environment: user)
        let neverReport = try JSONParser.parse(never.stdout).objectValue
        #expect(never.exitCode == 0 && neverReport?["notes"] == [] && neverReport?["pushed"] == 0, "\(never)")
        // A server that is down: one line naming it.
        server.stop()
        let down = try runFerry(["sync", laptop, server.location, "--entities", "Note"], environment: user, timeout: 120)
        #expect(down.exitCode != 0 && down.stderr.contains("is \(server.location) right and up?"), "\(down)")
        #expect(down.stderr.split(separator: "\n").count == 1, "\(down.stderr)")
    }
}

/// `ferry sync … pocketbase+http://… --watch`: realtime both ways, and back after the server
/// goes away.
@Suite(.serialized) struct BackendWatchTests {
    @Test func watchPullsWithinASecondPushesLocalEditsAndReconnects() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return }
        defer { server.stop() }
        let laptop = directory.subpath("laptop")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"title": "a"}"#]).exitCode == 0)
        let user = syncUser
        #expect(try runFerry(["backend", "setup", server.location, "--entities", "Note", "--from", laptop, "--create-user"],
                             environment: server.superuserEnvironment.merging(user) { $1 }).exitCode == 0)
        try FileManager.default.createDirectory(atPath: directory.subpath("watch"), withIntermediateDirectories: true)
        let watch = try ChildProcess(
            "/usr/bin/env", user.map { "\($0.key)=\($0.value)" } + [try ferryBinaryPath(), "sync", laptop, server.location, "--entities", "Note", "--watch"],
            outputDirectory: directory.subpath("watch"))
        defer {
            watch.kill(SIGTERM)
            _ = watch.wait()
        }
        #expect(await watch.waitForOutput(lineContaining: ": pulled 0, pushed 1,", timeout: 20), "\(watch.outputLines) \(watch.errorOutput)")
        let web = PocketBaseClient(location: try PocketBaseLocation(parsing: server.location),
                                   credentials: .password(email: "laptop@example.com", password: "laptop-password-1", collection: "users"),
                                   httpClient: URLSessionHTTPClient())
        // Another client writes: the watcher pulls at once, well before its 30 s interval (a
        // write before the subscription is pulled by the sync the subscription itself starts).
        _ = try await web.create(in: "Note", fields: ["title": "from the web"])
        #expect(await watch.waitForOutput(lineContaining: ": pulled 1, pushed 0,", timeout: 20), "\(watch.outputLines)")
        // A local edit is pushed without waiting for the interval (30 s).
        #expect(try runFerry(["put", laptop, "Note", "n2", "--json", #"{"title": "local"}"#]).exitCode == 0)
        #expect(
            await watch.waitForOutputLines(timeout: 20) { $0.filter { $0.contains(": pulled 0, pushed 1,") }.count == 2 },
            "\(watch.outputLines)")
        // The server goes away and comes back: the watcher subscribes again and hears the next change.
        server.kill()
        #expect(await watch.waitForError(containing: "reconnecting in", timeout: 20), "\(watch.errorOutput)")
        try server.restart()
        #expect(await watch.waitForError(containing: "realtime: connected again", timeout: 60), "\(watch.errorOutput)")
        _ = try await web.create(in: "Note", fields: ["title": "after the restart"])
        #expect(
            await watch.waitForOutputLines(timeout: 20) { $0.filter { $0.contains(": pulled 1, pushed 0,") }.count == 2 },
            "\(watch.outputLines) \(watch.errorOutput)")
        #expect(watch.errorOutput.contains("realtime: connected again"), "\(watch.errorOutput)")
    }
}

/// `--mapping FILE`: an entity synced with a collection of another name, members stored under
/// other field names, both ways.
@Suite(.serialized) struct BackendMappingCommandTests {
    @Test func aMappingFileRenamesCollectionsAndFieldsBothWays() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return }
        defer { server.stop() }
        let laptop = directory.subpath("laptop")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Product", "p1", "--json", #"{"name": "Lamp", "priceCents": 1200}"#]).exitCode == 0)
        let mapping = directory.subpath("mapping.json")
        try Data(#"{"Product": {"collection": "products", "fields": {"name": "title", "priceCents": "price_cents"}}}"#.utf8)
            .write(to: URL(fileURLWithPath: mapping))
        let user = syncUser
        let setup = try runFerry(["backend", "setup", server.location, "--mapping", mapping, "--from", laptop, "--create-user"],
                                 environment: server.superuserEnvironment.merging(user) { $1 })
        #expect(setup.exitCode == 0, "\(setup)")
        #expect(setup.stdout.contains("\ncreated collection products (7 fields: price_cents, title, ferry_id,"), "\(setup.stdout)")

        let first = try runFerry(["sync", laptop, server.location, "--mapping", mapping], environment: user)
        #expect(first.exitCode == 0 && first.stdout.hasPrefix("full-push: pulled 0, pushed 1, 0 conflicts ("), "\(first)")
        let location = try PocketBaseLocation(parsing: server.location)
        let web = PocketBaseClient(
            location: location,
            credentials: .password(email: server.superuserEmail, password: server.superuserPassword, collection: PocketBaseCredentials.superuserCollection),
            httpClient: URLSessionHTTPClient())
        let stored = try #require(try await web.records(in: "products").items.first)
        #expect(stored["title"] == "Lamp" && stored["price_cents"] == 1200 && stored["name"] == nil && stored["priceCents"] == nil, "\(stored)")

        // Another client edits the field under its backend name; it comes down as the member.
        _ = try await web.update(in: "products", id: stored["id"]?.stringValue ?? "", fields: [
            "title": "Desk lamp", "ferry_base_rev": stored["ferry_rev"] ?? "", "ferry_rev": "web-1",
        ])
        let second = try runFerry(["sync", laptop, server.location, "--mapping", mapping], environment: user)
        #expect(second.exitCode == 0 && second.stdout.hasPrefix("incremental: pulled 1, pushed 0, 0 conflicts ("), "\(second)")
        let document = try JSONParser.parse(try runFerry(["get", laptop, "Product", "p1"]).stdout)
        #expect(document == ["name": "Desk lamp", "priceCents": 1200], "\(document)")

        // A record whose member has the name another member is stored under cannot be written:
        // said for the record, the others still sync.
        #expect(try runFerry(["put", laptop, "Product", "p2", "--json", #"{"title": "clash", "name": "x"}"#]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Product", "p3", "--json", #"{"name": "Shelf"}"#]).exitCode == 0)
        let clash = try runFerry(["sync", laptop, server.location, "--mapping", mapping, "--json"], environment: user)
        let report = try #require(try JSONParser.parse(clash.stdout).objectValue)
        #expect(clash.exitCode == 0 && report["pushed"] == 1 && report["waiting"] == ["Product/p2"] && report["rounds"] == 1, "\(clash)")
        #expect("\(report["notes"] ?? .null)".contains("the member \\\"title\\\" has the name its mapping gives to the member \\\"name\\\""), "\(clash.stdout)")

        // A mapping that cannot be followed: one line, nothing synced.
        try Data(#"{"Product": "products", "Note": "products"}"#.utf8).write(to: URL(fileURLWithPath: mapping))
        let twice = try runFerry(["sync", laptop, server.location, "--mapping", mapping], environment: user)
        #expect(twice.exitCode != 0 && twice.stderr == "error: \(mapping): mapping: Note and Product both map to the collection products\n", "\(twice)")
        try Data(#"{"Product": {"fields": {"name": "ferry_rev"}}}"#.utf8).write(to: URL(fileURLWithPath: mapping))
        let reserved = try runFerry(["sync", laptop, server.location, "--mapping", mapping], environment: user)
        #expect(reserved.exitCode != 0 && reserved.stderr.contains("the field ferry_rev is the backend's or Ferry's own"), "\(reserved)")
    }
}
