import Ferry
import FerryTestSupport
import Foundation
import Testing

/// An encrypted hub through the binary: `hub init --encrypt` with the passphrase from the
/// environment prints the recovery key once, a second member is added, a passphrase-only store
/// joins, a wrong passphrase is one line that changes nothing, and removing a member rotates
/// the key and says what the removed member can still read.
@Suite(.serialized) struct EncryptedHubCommandTests {
    @Test func anEncryptedHubEndToEndThroughTheBinary() throws {
        let directory = try TemporaryDirectory()
        let (laptop, phone, tablet, hub) = (directory.subpath("laptop"), directory.subpath("phone"), directory.subpath("tablet"), directory.subpath("hub"))
        for (store, name) in [(laptop, "laptop"), (phone, "phone"), (tablet, "tablet")] {
            #expect(try runFerry(["init", store, "--name", name]).exitCode == 0)
        }
        let secret = ["FERRY_HUB_PASSPHRASE": "correct horse battery"]
        let created = try runFerry(["hub", "init", hub, "--encrypt", "--store", laptop, "--scrypt-cost", "10"], environment: secret)
        #expect(created.exitCode == 0, "\(created)")
        #expect(created.stdout.contains("hub-keys/00000001.json") && created.stdout.contains("the passphrase"), "\(created)")
        let recovery = try #require(created.stdout.split(separator: "\n").first { $0.contains("FERRY-RK-") }).trimmingCharacters(in: .whitespaces)
        #expect(HubRecoveryKey(recovery) != nil)
        #expect(!(try folderContents(hub).values.contains { String(decoding: $0, as: UTF8.self).contains(recovery) }), "the recovery key is kept nowhere")

        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"t": "secret text"}"#]).exitCode == 0)
        #expect(try runFerry(["sync", laptop, hub]).exitCode == 0)
        #expect(!(try folderContents(hub).values.contains { String(decoding: $0, as: UTF8.self).contains("secret text") }))

        // A store that is not a member, with no passphrase: one line, nothing changed.
        let phoneBefore = try folderContents(phone)
        let locked = try runFerry(["sync", phone, hub])
        #expect(locked.exitCode != 0 && locked.stderr.contains("encrypted") && locked.stderr.split(separator: "\n").count == 1, "\(locked)")
        #expect(try folderContents(phone) == phoneBefore)
        let added = try runFerry(["hub", "members", "add", hub, phone, "--store", laptop])
        #expect(added.exitCode == 0 && added.stdout.contains("hub-keys/00000002.json"), "\(added)")
        #expect(try runFerry(["sync", phone, hub]).exitCode == 0)
        #expect(try runFerry(["get", phone, "Note", "n1"]).stdout.contains("secret text"))

        // A passphrase-only device: a wrong passphrase is one line; the right one joins.
        let tabletBefore = try folderContents(tablet)
        let wrong = try runFerry(["sync", tablet, hub], environment: ["FERRY_HUB_PASSPHRASE": "wrong"])
        #expect(wrong.exitCode != 0 && wrong.stderr.contains("wrong passphrase") && wrong.stderr.split(separator: "\n").count == 1, "\(wrong)")
        #expect(try folderContents(tablet) == tabletBefore)
        #expect(try runFerry(["sync", tablet, hub], environment: secret).exitCode == 0)
        #expect(try runFerry(["get", tablet, "Note", "n1"]).stdout.contains("secret text"))

        // Removing the phone rotates the key, and says so.
        let removed = try runFerry(["hub", "members", "remove", hub, phone, "--store", laptop])
        #expect(removed.exitCode == 0 && removed.stdout.contains("cannot read it, but can still read what was written before"), "\(removed)")
        #expect(try runFerry(["put", laptop, "Note", "n2", "--json", #"{"t": "after"}"#]).exitCode == 0)
        #expect(try runFerry(["sync", laptop, hub]).exitCode == 0)
        let status = try runFerry(["hub", "status", hub, "--store", laptop])
        #expect(status.exitCode == 0 && !status.stdout.contains("not arrived"), "\(status)")
        let verified = try runFerry(["verify", hub, "--with", laptop])
        #expect(verified.exitCode == 0, "\(verified)")
        let keyless = try runFerry(["verify", hub])
        #expect(keyless.exitCode == 0 && keyless.stdout.contains("checked without its key") && keyless.stdout.contains("were not checked"), "\(keyless)")
        let refused = try runFerry(["sync", phone, hub])
        #expect(refused.exitCode != 0 && refused.stderr.contains("epoch 2"), "\(refused)")
    }

    /// With no `$FERRY_HUB_PASSPHRASE`, a person at a terminal is asked (through `script`,
    /// which gives the sync a terminal); a sync from a pipe is never asked.
    @Test func aPassphraseTypedAtTheTerminalOpensTheHub() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let directory = try TemporaryDirectory()
        let (laptop, desk, hub) = (directory.subpath("laptop"), directory.subpath("desk"), directory.subpath("hub"))
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["init", desk, "--name", "desk"]).exitCode == 0)
        let created = try runFerry(
            ["hub", "init", hub, "--encrypt", "--store", laptop, "--scrypt-cost", "10"], environment: ["FERRY_HUB_PASSPHRASE": "typed secret"])
        #expect(created.exitCode == 0, "\(created)")
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"t": "typed"}"#]).exitCode == 0)
        #expect(try runFerry(["sync", laptop, hub]).exitCode == 0)
        let piped = try runFerry(["sync", desk, hub], stdin: "typed secret\n")
        #expect(piped.exitCode != 0 && !piped.stdout.contains("passphrase for the hub"), "\(piped)")
        let typed = try runProgram(
            "/usr/bin/script", ["-qfec", "'\(try ferryBinaryPath())' sync '\(desk)' '\(hub)'", "/dev/null"], stdin: "typed secret\n")
        #expect(typed.exitCode == 0 && typed.stdout.contains("passphrase for the hub at"), "\(typed)")
        #expect(try runFerry(["get", desk, "Note", "n1"]).stdout.contains("typed"))
    }
}
