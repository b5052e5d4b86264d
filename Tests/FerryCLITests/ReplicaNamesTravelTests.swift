import Ferry
import FerryTestSupport
import Foundation
import Testing

/// Issue 52, item 3: a replica's name reaches every replica, through every kind of peer, and
/// `log`, `conflicts` and `--origin` use it there.
@Suite(.serialized) struct ReplicaNamesTravelTests {
    /// `phone` writes, `tablet` (a store folder that synced with `phone` only) writes, and
    /// `laptop` meets neither: it syncs only with `peer` (a hub or a server), after `phone` did.
    /// Then `laptop` shows both by name, and a conflict with `phone` names it.
    func namesReachLaptop(through peer: String, directory: TemporaryDirectory, environment: [String: String] = [:]) throws {
        let (phone, tablet, laptop) = (directory.subpath("phone"), directory.subpath("tablet"), directory.subpath("laptop"))
        for (store, name) in [(phone, "phone"), (tablet, "tablet"), (laptop, "laptop")] {
            #expect(try runFerry(["init", store, "--name", name]).exitCode == 0)
        }
        #expect(try runFerry(["put", tablet, "Note", "t1", "--json", #"{"t": 1}"#]).exitCode == 0)
        #expect(try runFerry(["sync", phone, tablet]).exitCode == 0)
        #expect(try runFerry(["put", phone, "Note", "n1", "--json", #"{"t": 1}"#]).exitCode == 0)
        let phoneSync = try runFerry(["sync", phone, peer], environment: environment)
        #expect(phoneSync.exitCode == 0, "\(phoneSync)")
        let laptopSync = try runFerry(["sync", laptop, peer], environment: environment)
        #expect(laptopSync.exitCode == 0, "\(laptopSync)")

        let fromPhone = try runFerry(["log", laptop, "--origin", "phone"])
        #expect(fromPhone.exitCode == 0, "\(fromPhone)")
        #expect(fromPhone.stdout.contains("phone") && fromPhone.stdout.contains("Note/n1"), "\(fromPhone)")
        #expect(!fromPhone.stdout.contains("Note/t1"), "\(fromPhone)")
        let fromTablet = try runFerry(["log", laptop, "--origin", "tablet"])
        #expect(fromTablet.exitCode == 0 && fromTablet.stdout.contains("tablet") && fromTablet.stdout.contains("Note/t1"), "\(fromTablet)")

        let history = try runFerry(["show", laptop, "Note", "n1", "--history"])
        #expect(history.exitCode == 0 && history.stdout.contains("phone"), "\(history)")
        let diff = try runFerry(["diff", laptop, tablet])
        #expect(diff.stdout.contains("phone:1"), "\(diff)")

        // Both edit n1: laptop's conflict names phone's version.
        #expect(try runFerry(["put", phone, "Note", "n1", "--json", #"{"t": 2}"#]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"t": 3}"#]).exitCode == 0)
        #expect(try runFerry(["sync", phone, peer], environment: environment).exitCode == 0)
        #expect(try runFerry(["sync", laptop, peer], environment: environment).exitCode == 0)
        let conflicts = try runFerry(["conflicts", laptop])
        #expect(conflicts.exitCode == 0 && conflicts.stdout.contains("phone:2") && conflicts.stdout.contains("laptop:1"), "\(conflicts)")
        let json = try runFerry(["conflicts", laptop, "--json"])
        #expect(json.stdout.contains(#""originName":"phone""#), "\(json)")
    }

    @Test func throughAHubFolder() throws {
        let directory = try TemporaryDirectory()
        let hub = directory.subpath("hub")
        #expect(try runFerry(["hub", "init", hub]).exitCode == 0)
        try namesReachLaptop(through: hub, directory: directory)
    }

    @Test func throughAnS3Hub() async throws {
        guard let weed = try SeaweedFS.availableOrSkip() else { return }
        let directory = try TemporaryDirectory()
        let server = try await SeaweedFS.start(in: directory.subpath("weed"), executable: weed)
        defer { server.stop() }
        try await server.createBucket("names-bucket")
        let hub = "s3://names-bucket/notes"
        #expect(try runFerry(["hub", "init", hub], environment: server.environment).exitCode == 0)
        try namesReachLaptop(through: hub, directory: directory, environment: server.environment)
    }

    @Test func throughFerryServe() throws {
        let directory = try TemporaryDirectory()
        let root = directory.subpath("served")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let serve = try ServeProcess(root: root)
        defer { _ = serve.stop() }
        let token = try #require(serve.token)
        try namesReachLaptop(through: serve.url("alice"), directory: directory, environment: ["FERRY_TOKEN": token])
    }

    @Test func aNameTwoReplicasShareShowsWithTheirIDs() throws {
        let directory = try TemporaryDirectory()
        let (first, second) = (directory.subpath("first"), directory.subpath("second"))
        #expect(try runFerry(["init", first, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["init", second, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["put", first, "Note", "a", "--json", "{}"]).exitCode == 0)
        #expect(try runFerry(["put", second, "Note", "b", "--json", "{}"]).exitCode == 0)
        #expect(try runFerry(["sync", first, second]).exitCode == 0)
        let ids = try [first, second].map { try Store.open(at: $0).replicaID.short }
        let log = try runFerry(["log", first])
        #expect(log.stdout.contains("laptop (\(ids[0]))") && log.stdout.contains("laptop (\(ids[1]))"), "\(log)")
        let ambiguous = try runFerry(["log", first, "--origin", "laptop"])
        #expect(ambiguous.exitCode != 0 && ambiguous.stderr.contains("laptop"), "\(ambiguous)")
        let byLabel = try runFerry(["log", first, "--origin", "laptop (\(ids[1]))"])
        #expect(byLabel.exitCode == 0 && byLabel.stdout.contains("Note/b") && !byLabel.stdout.contains("Note/a"), "\(byLabel)")
    }

    @Test func initWithoutANameTakesTheHostName() throws {
        let directory = try TemporaryDirectory()
        let store = directory.subpath("store")
        #expect(try runFerry(["init", store]).exitCode == 0)
        let expected = try #require(ReplicaNames.defaultName(forHost: ProcessInfo.processInfo.hostName))
        #expect(try Store.open(at: store).manifest.name == expected)
        #expect(ReplicaNames.defaultName(forHost: "Alices MacBook-Pro.local") == "alicesmacbook-pro")
        #expect(ReplicaNames.defaultName(forHost: "...") == nil)
        #expect(ReplicaNames.defaultName(forHost: String(repeating: "h", count: 80))?.count == 64)
    }
}
