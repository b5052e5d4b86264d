import Ferry
import FerryTestSupport
import FerryURLSession
import Foundation
import Testing

/// Issue 52, item 5: `ferry remote add|list|remove`, and `ferry sync` by a peer's name or with
/// every named peer.
@Suite(.serialized) struct NamedPeersCommandTests {
    func json(_ result: CLIResult) throws -> JSONValue { try JSONParser.parse(result.stdout) }

    @Test func addListRemoveKeepThePeersAndTheirOptionsInTheStore() throws {
        let directory = try TemporaryDirectory()
        let laptop = directory.subpath("laptop")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["init", directory.subpath("phone"), "--name", "phone"]).exitCode == 0)
        let added = try runFerry(["remote", "add", "phone", "phone", "--policy", "merge", "--pull-only"], currentDirectory: directory.path)
        #expect(added.exitCode != 0 && added.stderr.contains("is not a Ferry store"), "no store in the current directory: \(added)")
        let add = try runFerry(["remote", "add", "phone", "../phone", "--policy", "merge", "--pull-only"], currentDirectory: laptop)
        // The location is kept absolute ('..' stays: through a link it means another place).
        let location = laptop + "/../phone"
        #expect(add.exitCode == 0 && add.stdout == "added phone: \(location) --policy merge --pull-only\n", "\(add)")
        let list = try runFerry(["remote", "list", "--store", laptop, "--json"])
        let phone = try #require(try json(list)["remotes"]?["phone"], "\(list)")
        #expect(phone["location"] == .string(location))
        #expect(phone["options"] == ["policy": "merge", "pull-only": true])
        #expect(FileManager.default.fileExists(atPath: laptop + "/.ferry/remotes.json"))
        let text = try runFerry(["remote", "list", "-s", laptop])
        #expect(text.stdout == "phone  \(location) --policy merge --pull-only\n", "\(text)")

        let typo = try runFerry(["remote", "remove", "phnoe", "--store", laptop])
        #expect(typo.exitCode == 2 && typo.stderr.contains("did you mean 'phone'?"), "\(typo)")
        let remove = try runFerry(["remote", "remove", "phone", "--store", laptop])
        #expect(remove.exitCode == 0 && remove.stdout == "removed phone\n", "\(remove)")
        #expect(try runFerry(["remote", "list", "--store", laptop]).stdout.contains("no named peers"))
    }

    @Test func badLocationsOptionsAndCredentialsAreRefusedAndNothingIsWritten() throws {
        let directory = try TemporaryDirectory()
        let laptop = directory.subpath("laptop")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        let refusals: [([String], String)] = [
            (["add", "kitchen", "pocketbase+http://me%40x.org:secret@127.0.0.1:8090", "--entities", "Note"], "POCKETBASE_EMAIL"),
            (["add", "server", "http://alice:hunter2@127.0.0.1:8080/alice"], "FERRY_TOKEN"),
            (["add", "bucket", "s3://KEY:s3cr3t-value@team-bucket/notes"], "AWS_ACCESS_KEY_ID"),
            (["add", "server", "http://127.0.0.1:8080/alice", "--token", "hunter2"], "--token-file"),
            (["add", "usb", "ftp://host/x"], "not ftp://"),
            (["add", "usb", "./usb", "--policy", "newest"], "--policy must be keep-both, lww or merge"),
            (["add", "usb", "./usb", "--entities", "Note"], "--entities is for app backends"),
            (["add", "kitchen", "pocketbase+http://127.0.0.1:8090"], "--entities"),
            (["add", "../usb", "./usb"], "cannot name a peer"),
            (["add", "usb"], "give the peer's location"),
        ]
        for (arguments, expected) in refusals {
            let result = try runFerry(["remote"] + arguments + ["--store", laptop])
            #expect(result.exitCode == 2 && result.stderr.contains(expected), "\(arguments): \(result)")
            for secret in ["secret", "hunter2", "s3cr3t-value"] { #expect(!result.stderr.contains(secret), "\(result)") }
        }
        #expect(!FileManager.default.fileExists(atPath: laptop + "/.ferry/remotes.json"))
        // A token file's path is remembered, never what it holds.
        let tokenFile = directory.subpath("token")
        try "hunter2\n".write(toFile: tokenFile, atomically: false, encoding: .utf8)
        #expect(try runFerry(["remote", "add", "server", "http://127.0.0.1:8080/alice", "--token-file", tokenFile, "--store", laptop]).exitCode == 0)
        let saved = try String(contentsOfFile: laptop + "/.ferry/remotes.json", encoding: .utf8)
        #expect(saved.contains(tokenFile) && !saved.contains("hunter2"), "\(saved)")
    }

    @Test func syncByNameUsesTheRememberedOptions() throws {
        let directory = try TemporaryDirectory()
        let (laptop, phone) = (directory.subpath("laptop"), directory.subpath("phone"))
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["init", phone, "--name", "phone"]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "a", "--json", "{}"]).exitCode == 0)
        #expect(try runFerry(["put", phone, "Note", "b", "--json", "{}"]).exitCode == 0)
        #expect(try runFerry(["remote", "add", "phone", phone, "--pull-only", "--store", laptop]).exitCode == 0)
        let sync = try runFerry(["sync", laptop, "phone", "--json"])
        let report = try json(sync)
        #expect(sync.exitCode == 0 && report["direction"] == "pull-only" && report["remote"] == "phone", "\(sync)")
        #expect(try runFerry(["get", phone, "Note", "a"]).exitCode != 0, "pull-only: nothing pushed")
        #expect(try runFerry(["get", laptop, "Note", "b"]).exitCode == 0)
        // A typo is named as one; a folder of the same name is not taken for the peer.
        let typo = try runFerry(["sync", laptop, "phnoe"])
        #expect(typo.exitCode == 2 && typo.stderr.contains("did you mean 'phone'?"), "\(typo)")
        try FileManager.default.createDirectory(atPath: directory.subpath("phone-cwd/phone"), withIntermediateDirectories: true)
        let both = try runFerry(["sync", laptop, "phone"], currentDirectory: directory.subpath("phone-cwd"))
        #expect(both.exitCode == 2 && both.stderr.contains("write ./phone for the folder"), "\(both)")
    }

    @Test func anOptionGivenOnTheCommandLineWinsOverTheRememberedOne() throws {
        let directory = try TemporaryDirectory()
        let (laptop, phone) = (directory.subpath("laptop"), directory.subpath("phone"))
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["init", phone, "--name", "phone"]).exitCode == 0)
        for id in ["a", "b"] { #expect(try runFerry(["put", laptop, "Note", id, "--json", "{}"]).exitCode == 0) }
        #expect(try runFerry(["remote", "add", "phone", phone, "--max-delete", "0", "--max-delete-count", "0", "--store", laptop]).exitCode == 0)
        #expect(try runFerry(["sync", laptop, "phone"]).exitCode == 0)
        for id in ["a", "b"] { #expect(try runFerry(["delete", phone, "Note", id]).exitCode == 0) }
        let guarded = try runFerry(["sync", laptop, "phone"])
        #expect(guarded.exitCode != 0 && guarded.stderr.contains("--force"), "the remembered guard holds: \(guarded)")
        #expect(try runFerry(["get", laptop, "Note", "a"]).exitCode == 0)
        let allowed = try runFerry(["sync", laptop, "phone", "--max-delete", "100"])
        #expect(allowed.exitCode == 0, "\(allowed)")
        #expect(try runFerry(["get", laptop, "Note", "a"]).exitCode != 0, "the deletes came")
    }

    @Test func syncWithNoPeerSyncsEveryNamedPeerAndGoesOnPastOneThatFails() throws {
        let directory = try TemporaryDirectory()
        let (laptop, phone, tablet) = (directory.subpath("laptop"), directory.subpath("phone"), directory.subpath("tablet"))
        for store in [laptop, phone, tablet] { #expect(try runFerry(["init", store, "--name", "x"]).exitCode == 0) }
        #expect(try runFerry(["put", laptop, "Note", "a", "--json", "{}"]).exitCode == 0)
        let none = try runFerry(["sync", laptop])
        #expect(none.exitCode == 2 && none.stderr.contains("ferry remote add NAME LOCATION"), "\(none)")
        for (name, location) in [("phone", phone), ("gone", directory.subpath("unmounted")), ("tablet", tablet)] {
            #expect(try runFerry(["remote", "add", name, location, "--store", laptop]).exitCode == 0)
        }
        let all = try runFerry(["sync", laptop])
        #expect(all.exitCode == 1, "\(all)")
        let lines = all.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "syncing with gone (\(directory.subpath("unmounted")))", "\(all)")
        #expect(lines.contains("syncing with phone (\(phone))") && lines.contains("syncing with tablet (\(tablet))"), "\(all)")
        #expect(all.stderr.contains("error: gone: peer \(directory.subpath("unmounted")) does not exist"), "\(all)")
        #expect(all.stderr.contains("1 of 3 named peers failed: gone"), "\(all)")
        for store in [phone, tablet] { #expect(try runFerry(["get", store, "Note", "a"]).exitCode == 0, "\(store) synced") }
        let watch = try runFerry(["sync", laptop, "--watch"])
        #expect(watch.exitCode == 2 && watch.stderr.contains("--watch follows one peer"), "\(watch)")
    }

    @Test func aBackendRemembersItsEntitiesAndIsNamedInTheLog() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return }
        defer { server.stop() }
        let (laptop, phone) = (directory.subpath("laptop"), directory.subpath("phone"))
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["init", phone, "--name", "phone"]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"title": "a"}"#]).exitCode == 0)
        #expect(try runFerry(["backend", "setup", server.location, "--entities", "Note", "--from", laptop, "--create-user"],
                             environment: server.superuserEnvironment.merging(syncUser) { $1 }).exitCode == 0)
        for store in [laptop, phone] {
            #expect(try runFerry(["remote", "add", "kitchen", server.location, "--entities", "Note", "--store", store]).exitCode == 0)
        }
        let push = try runFerry(["sync", laptop, "kitchen"], environment: syncUser)
        #expect(push.exitCode == 0 && push.stdout.contains("pushed 1"), "\(push)")
        // Another client writes at the backend; the phone pulls it through its named peer.
        let client = PocketBaseClient(
            location: try PocketBaseLocation(parsing: server.location),
            credentials: .password(email: "laptop@example.com", password: "laptop-password-1", collection: "users"),
            httpClient: URLSessionHTTPClient())
        _ = try await client.create(in: "Note", fields: ["title": "from the web"])
        let pull = try runFerry(["sync", phone], environment: syncUser)
        #expect(pull.exitCode == 0 && pull.stdout.contains("syncing with kitchen") && pull.stdout.contains("pulled 2"), "\(pull)")
        let log = try runFerry(["log", phone, "--origin", "pocketbase@127.0.0.1:\(server.port)"])
        #expect(log.exitCode == 0 && log.stdout.contains("pocketbase@127.0.0.1:\(server.port)"), "\(log)")
    }

    @Test func aBackendSyncedByItsURLRemembersItsEntities() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return }
        defer { server.stop() }
        let laptop = directory.subpath("laptop")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"title": "a"}"#]).exitCode == 0)
        #expect(try runFerry(["backend", "setup", server.location, "--entities", "Note", "--from", laptop, "--create-user"],
                             environment: server.superuserEnvironment.merging(syncUser) { $1 }).exitCode == 0)
        // Before any sync there is nothing to remember: the entities are asked for.
        let unnamed = try runFerry(["sync", laptop, server.location], environment: syncUser)
        #expect(unnamed.exitCode != 0 && unnamed.stderr.contains("--entities"), "\(unnamed)")
        let first = try runFerry(["sync", laptop, server.location, "--entities", "Note"], environment: syncUser)
        #expect(first.exitCode == 0 && first.stdout.contains("pushed 1"), "\(first)")
        #expect(try runFerry(["put", laptop, "Note", "n2", "--json", #"{"title": "b"}"#]).exitCode == 0)
        let again = try runFerry(["sync", laptop, server.location], environment: syncUser)
        #expect(again.exitCode == 0 && again.stdout.contains("pushed 1"), "\(again)")
        #expect(again.stderr.contains("note: syncing Note with \(server.location), as the last sync did"), "\(again)")
    }
}
