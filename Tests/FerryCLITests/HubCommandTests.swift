import Ferry
import FerryTestSupport
import Foundation
import Testing

/// `ferry hub init|status` and `ferry sync` with hub folders and `s3://` hubs, through the binaries.
@Suite(.serialized) struct HubCommandTests {
    /// A store's files and bytes; the lock and the derived index (which the hand-edit scan
    /// before every sync refreshes) aside.
    func tree(_ path: String) throws -> [String: [UInt8]] {
        try folderContents(path, skipping: [".ferry/lock", ".ferry/index"])
    }

    @Test func hubFolderFromInitToStatus() throws {
        let directory = try TemporaryDirectory()
        let laptop = directory.subpath("laptop")
        let phone = directory.subpath("phone")
        let hub = directory.subpath("Dropbox/notes-hub")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["init", phone, "--name", "phone"]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"t": 1}"#]).exitCode == 0)

        // Before init: a clear error that suggests it, and nothing changes.
        let before = try tree(laptop)
        let missing = try runFerry(["sync", laptop, hub])
        #expect(missing.exitCode != 0)
        #expect(missing.stderr.contains("does not exist"), "\(missing)")
        try FileSystem.createDirectories(hub)
        let empty = try runFerry(["sync", laptop, hub])
        #expect(empty.exitCode != 0)
        #expect(empty.stderr.contains("ferry hub init \(hub)"), "\(empty)")
        #expect(try tree(laptop) == before)

        let created = try runFerry(["hub", "init", hub, "--json"])
        #expect(created.exitCode == 0, "\(created)")
        #expect(created.stdout.contains(#""format":1"#))
        #expect(try runFerry(["hub", "init", hub]).stderr.contains("already holds a Ferry hub"))

        let push = try runFerry(["sync", laptop, hub])
        #expect(push.exitCode == 0 && push.stdout.hasPrefix("full-push: pulled 0, pushed 1"), "\(push)")
        let pull = try runFerry(["sync", phone, hub, "--json"])
        #expect(pull.stdout.contains(#""plan":"full-pull""#) && pull.stdout.contains(#""pulled":1"#), "\(pull)")
        #expect(try runFerry(["get", phone, "Note", "n1"]).stdout.contains(#""t": 1"#))
        _ = try runFerry(["sync", laptop, hub])
        let noOp = try runFerry(["sync", laptop, hub, "--json"])
        #expect(noOp.stdout.contains(#""plan":"up-to-date""#) && noOp.stdout.contains(#""requests":1"#), "\(noOp)")
        #expect(try runFerry(["put", phone, "Note", "n2", "--json", #"{"t": 2}"#]).exitCode == 0)
        let dry = try runFerry(["sync", phone, hub, "--dry-run"])
        #expect(dry.stdout.hasPrefix("incremental: would pull 0, would push 1"), "\(dry)")

        let status = try runFerry(["hub", "status", hub])
        #expect(status.exitCode == 0)
        #expect(status.stdout.contains("2 replicas, 1 segment"), "\(status)")
        #expect(status.stdout.contains("laptop (") && status.stdout.contains("phone ("), "\(status)")
        let json = try runFerry(["hub", "status", hub, "--json"])
        #expect(json.stdout.contains(#""segments":1"#) && json.stdout.contains(#""name":"laptop""#), "\(json)")
        #expect(try runFerry(["hub", "frobnicate", hub]).exitCode == 2)
    }

    /// A hub folder copied with `cp -r` and both used: the sync names the copy and the command
    /// that gives it an id of its own; `ferry hub reidentify` does, and both hubs then work.
    @Test func aCopiedHubIsNamedAndReidentified() throws {
        let directory = try TemporaryDirectory()
        let laptop = directory.subpath("laptop")
        let hub = directory.subpath("hub")
        let copy = directory.subpath("hub-copy")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["hub", "init", hub]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"t": 1}"#]).exitCode == 0)
        #expect(try runFerry(["sync", laptop, hub]).exitCode == 0)
        try FileManager.default.copyItem(atPath: hub, toPath: copy)
        #expect(try runFerry(["put", laptop, "Note", "n2", "--json", #"{"t": 2}"#]).exitCode == 0)
        #expect(try runFerry(["sync", laptop, copy]).exitCode == 0)
        let original = try runFerry(["sync", laptop, hub])
        #expect(original.exitCode == 0, "\(original)")
        #expect(original.stdout.contains("pushed 1"), "\(original)")
        let said = original.stdout + original.stderr
        #expect(said.contains("is a copy") && said.contains("ferry hub reidentify \(hub)"), "\(original)")

        let renamed = try runFerry(["hub", "reidentify", copy, "--json"])
        #expect(renamed.exitCode == 0, "\(renamed)")
        let before = try runFerry(["hub", "status", hub, "--json"]).stdout
        let after = try runFerry(["hub", "status", copy, "--json"]).stdout
        #expect(renamed.stdout.contains(#""hub":""#) && before != after)
        #expect(try runFerry(["put", laptop, "Note", "n3", "--json", #"{"t": 3}"#]).exitCode == 0)
        #expect(try runFerry(["sync", laptop, copy]).exitCode == 0)
        #expect(try runFerry(["sync", laptop, hub]).exitCode == 0)
        #expect(try runFerry(["hub", "reidentify", directory.subpath("nothing")]).exitCode != 0)
    }

    @Test func compactThenANewReplicaJoinsFromTheSnapshot() throws {
        let directory = try TemporaryDirectory()
        let laptop = directory.subpath("laptop")
        let desk = directory.subpath("desk")
        let hub = directory.subpath("hub")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["init", desk, "--name", "desk"]).exitCode == 0)
        #expect(try runFerry(["hub", "init", hub]).exitCode == 0)
        for n in 0..<3 {
            for round in 0..<3 { #expect(try runFerry(["put", laptop, "Note", "n\(n)", "--json", #"{"round": \#(round)}"#]).exitCode == 0) }
        }
        #expect(try runFerry(["delete", laptop, "Note", "n0"]).exitCode == 0)
        #expect(try runFerry(["sync", laptop, hub]).exitCode == 0)

        let before = try folderContents(hub)
        // The laptop, the hub's first member, signs the snapshot.
        let dry = try runFerry(["hub", "compact", hub, "--dry-run", "--store", laptop])
        #expect(dry.exitCode == 0 && dry.stdout.contains("would write snapshot") && dry.stdout.contains("would delete 1 segment"), "\(dry)")
        #expect(try folderContents(hub) == before)
        let compacted = try runFerry(["hub", "compact", hub, "--keep", "14d", "--json", "--store", laptop])
        #expect(compacted.exitCode == 0 && compacted.stdout.contains(#""deletedSegments":1"#) && compacted.stdout.contains(#""records":3"#), "\(compacted)")

        let joined = try runFerry(["sync", desk, hub])
        #expect(joined.exitCode == 0 && joined.stdout.hasPrefix("joined from snapshot") && joined.stdout.contains("(3 records; instead of its history)"), "\(joined)")
        #expect(try runFerry(["get", desk, "Note", "n2"]).stdout.contains(#""round": 2"#))
        let status = try runFerry(["hub", "status", hub])
        #expect(status.stdout.contains("1 snapshot") && status.stdout.contains("1 collected") && status.stdout.contains("3 records (2 live)"), "\(status)")
        let verifyHub = try runFerry(["verify", hub])
        #expect(verifyHub.exitCode == 0 && verifyHub.stdout.contains("snapshots agree with the segments they cover"), "\(verifyHub)")
        let verifyDesk = try runFerry(["verify", desk])
        #expect(verifyDesk.exitCode == 0 && verifyDesk.stdout.contains("note: joined from snapshot"), "\(verifyDesk)")
        #expect(try runFerry(["hub", "compact", hub, "--keep", "3x"]).exitCode == 2)
        #expect(try runFerry(["hub", "status", hub, "--keep", "3d"]).exitCode == 2)
    }

    @Test func verifyChecksEverySegmentAndNamesTheOneAltered() throws {
        let directory = try TemporaryDirectory()
        let laptop = directory.subpath("laptop")
        let hub = directory.subpath("hub")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["hub", "init", hub]).exitCode == 0)
        for n in 0..<3 {
            #expect(try runFerry(["put", laptop, "Note", "n\(n)", "--json", #"{"title": "note \#(n)"}"#]).exitCode == 0)
            #expect(try runFerry(["sync", laptop, hub]).exitCode == 0)
        }
        let clean = try runFerry(["verify", hub])
        #expect(clean.exitCode == 0 && clean.stdout.hasPrefix("ok: 1 head, 3 segments, 3 changes"), "\(clean)")

        let folder = hub + "/segments/" + (try FileManager.default.contentsOfDirectory(atPath: hub + "/segments").first ?? "")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let second = folder + "/" + names[1]
        var bytes = try FileSystem.readFile(second)
        let index = try #require(bytes.lastIndex(of: UInt8(ascii: "2")))
        bytes[index] = UInt8(ascii: "7")
        try FileManager.default.removeItem(atPath: second)
        #expect(FileManager.default.createFile(atPath: second, contents: Data(bytes)))
        try FileManager.default.removeItem(atPath: folder + "/" + names[2])
        let damaged = try runFerry(["verify", hub, "--json"])
        #expect(damaged.exitCode == 1, "\(damaged)")
        #expect(damaged.stdout.contains(names[1]) && damaged.stdout.contains("does not match its hash"), "\(damaged)")
        #expect(damaged.stdout.contains(#""missing":["#) && damaged.stdout.contains(names[2]), "\(damaged)")
    }

    @Test func s3HubThroughTheHelperWithTheAWSVariables() async throws {
        guard let weed = try SeaweedFS.availableOrSkip() else { return }
        let directory = try TemporaryDirectory()
        let server = try await SeaweedFS.start(in: directory.subpath("weed"), executable: weed)
        defer { server.stop() }
        try await server.createBucket("team-bucket")
        let laptop = directory.subpath("laptop")
        let phone = directory.subpath("phone")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["init", phone, "--name", "phone"]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"t": 1}"#]).exitCode == 0)
        let environment = server.environment

        let noHub = try runFerry(["sync", laptop, "s3://team-bucket/notes"], environment: environment)
        #expect(noHub.exitCode != 0 && noHub.stderr.contains("ferry hub init s3://team-bucket/notes"), "\(noHub)")
        let created = try runFerry(["hub", "init", "s3://team-bucket/notes"], environment: environment)
        #expect(created.exitCode == 0, "\(created)")
        let push = try runFerry(["sync", laptop, "s3://team-bucket/notes"], environment: environment)
        #expect(push.exitCode == 0 && push.stdout.hasPrefix("full-push: pulled 0, pushed 1"), "\(push)")
        // --endpoint instead of AWS_ENDPOINT_URL_S3.
        var withoutEndpoint = environment
        withoutEndpoint["AWS_ENDPOINT_URL_S3"] = nil
        let pull = try runFerry(["sync", phone, "s3://team-bucket/notes", "--endpoint", server.endpoint], environment: withoutEndpoint)
        #expect(pull.exitCode == 0 && pull.stdout.hasPrefix("full-pull: pulled 1"), "\(pull)")
        let status = try runFerry(["hub", "status", "s3://team-bucket/notes", "--json"], environment: environment)
        #expect(status.exitCode == 0 && status.stdout.contains(#""name":"phone""#), "\(status)")

        var wrong = environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "wrong"
        let before = try tree(phone)
        let refused = try runFerry(["sync", phone, "s3://team-bucket/notes"], environment: wrong)
        #expect(refused.exitCode != 0)
        #expect(refused.stderr.contains("HTTP 403 SignatureDoesNotMatch"), "\(refused)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "one line: \(refused.stderr)")
        #expect(try tree(phone) == before)
        var none = environment
        none["AWS_ACCESS_KEY_ID"] = nil
        none["AWS_SECRET_ACCESS_KEY"] = nil
        none["HOME"] = directory.path
        let noCredentials = try runFerry(["sync", phone, "s3://team-bucket/notes"], environment: none)
        #expect(noCredentials.stderr.contains("no S3 credentials"), "\(noCredentials)")
        let badBucket = try runFerry(["sync", phone, "s3://Team_Bucket/notes"], environment: environment)
        #expect(badBucket.stderr.contains("is not a bucket name"), "\(badBucket)")
    }
}

/// A head rewritten by a co-writer of the hub folder, through the binaries: the sync, `verify`
/// and `hub status` all name it.
@Suite struct HubRewrittenHeadCommandTests {
    @Test func aHeadWithItsSignatureStrippedIsNamedBySyncVerifyAndStatus() throws {
        let directory = try TemporaryDirectory()
        let laptop = directory.subpath("laptop")
        let phone = directory.subpath("phone")
        let hub = directory.subpath("hub")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["init", phone, "--name", "phone"]).exitCode == 0)
        #expect(try runFerry(["hub", "init", hub]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"t": 1}"#]).exitCode == 0)
        #expect(try runFerry(["sync", laptop, hub]).exitCode == 0)
        #expect(try runFerry(["verify", hub]).stdout.hasPrefix("ok: "))

        // Someone with write access strips the head's segments and signature.
        let headsFolder = hub + "/heads"
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: headsFolder).first)
        let head = String(decoding: try FileSystem.readFile(headsFolder + "/" + name), as: UTF8.self)
        let stripped = head.replacingOccurrences(of: #","sig":"[0-9a-f]+""#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #""segments":\[.*\],"signer""#, with: #""segments":[],"signer""#, options: .regularExpression)
        #expect(stripped != head && stripped.contains(#""segments":[]"#), "\(head)")
        try Data(stripped.utf8).write(to: URL(fileURLWithPath: headsFolder + "/" + name))

        let sync = try runFerry(["sync", phone, hub])
        #expect(sync.exitCode == 0)
        #expect((sync.stdout + sync.stderr).contains("heads/\(name) was rewritten by someone without replica"), "\(sync)")
        let verify = try runFerry(["verify", hub])
        #expect(verify.exitCode != 0)
        #expect(verify.stdout.contains("heads/\(name): rewritten by someone without replica"), "\(verify)")
        let status = try runFerry(["hub", "status", hub])
        #expect(status.stdout.contains("warning: heads/\(name): rewritten by someone without replica"), "\(status)")

        // The owner writes its head anew; the phone then gets the note.
        let repair = try runFerry(["sync", laptop, hub])
        #expect((repair.stdout + repair.stderr).contains("this replica writes its own anew"), "\(repair)")
        #expect(try runFerry(["sync", phone, hub]).exitCode == 0)
        #expect(try runFerry(["get", phone, "Note", "n1"]).stdout.contains(#""t": 1"#))
        #expect(try runFerry(["verify", hub]).stdout.hasPrefix("ok: "))
    }
}
