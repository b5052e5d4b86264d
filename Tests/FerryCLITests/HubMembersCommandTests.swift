import Ferry
import FerryTestSupport
import Foundation
import Testing

/// `ferry hub members`, `ferry sync --trust-new`, `ferry hub compact --store` and what
/// `ferry verify` says of a signed snapshot, through the binary.
@Suite(.serialized) struct HubMembersCommandTests {
    @Test func membersTrustNewAndASignedSnapshotThroughTheBinary() throws {
        let directory = try TemporaryDirectory()
        let (laptop, phone, desk, hub) = (directory.subpath("laptop"), directory.subpath("phone"), directory.subpath("desk"), directory.subpath("hub"))
        for (store, name) in [(laptop, "laptop"), (phone, "phone"), (desk, "desk")] {
            #expect(try runFerry(["init", store, "--name", name]).exitCode == 0)
        }
        #expect(try runFerry(["hub", "init", hub]).exitCode == 0)
        #expect(try runFerry(["hub", "members", "list", hub]).stdout.contains("has no members list"))
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", #"{"t": 1}"#]).exitCode == 0)
        // The first replica to sync with a new hub is its first member.
        let founded = try runFerry(["sync", laptop, hub])
        #expect(founded.exitCode == 0 && (founded.stdout + founded.stderr).contains("recorded this replica as the hub's first member"), "\(founded)")
        let first = try runFerry(["hub", "members", "list", hub])
        let laptopID = try Store.open(at: laptop).replicaID
        #expect(first.stdout.contains("1 member") && first.stdout.contains(laptopID.rawValue), "\(first)")
        let again = try runFerry(["hub", "members", "add", hub, laptop, "--store", laptop])
        #expect(again.exitCode != 0 && again.stderr.contains("is a member already"), "\(again)")

        #expect(try runFerry(["put", phone, "Note", "n2", "--json", #"{"t": 2}"#]).exitCode == 0)
        #expect(try runFerry(["sync", phone, hub]).exitCode == 0)
        let phoneID = try Store.open(at: phone).replicaID
        let refused = try runFerry(["sync", laptop, hub])
        #expect(refused.exitCode != 0 && refused.stderr.contains("replica \(phoneID), which is not a member"), "\(refused)")
        let trusted = try runFerry(["sync", laptop, hub, "--trust-new"])
        #expect(trusted.exitCode == 0 && (trusted.stdout + trusted.stderr).contains("trusted replica \(phoneID)"), "\(trusted)")
        let listed = try runFerry(["hub", "members", "list", hub])
        #expect(listed.stdout.contains("2 members") && listed.stdout.contains(phoneID.rawValue), "\(listed)")

        // A signed snapshot: the joiner (added by a member) proves it, and verify says so.
        let compacted = try runFerry(["hub", "compact", hub, "--store", laptop])
        #expect(compacted.exitCode == 0 && compacted.stdout.contains("wrote snapshot"), "\(compacted)")
        #expect(try runFerry(["hub", "members", "add", hub, desk, "--store", laptop]).exitCode == 0)
        let joined = try runFerry(["sync", desk, hub])
        #expect(joined.exitCode == 0 && joined.stdout.hasPrefix("joined from snapshot"), "\(joined)")
        let verifyDesk = try runFerry(["verify", desk])
        #expect(verifyDesk.exitCode == 0 && verifyDesk.stdout.contains("its state was signed by key"), "\(verifyDesk)")
        let verifyHub = try runFerry(["verify", hub])
        #expect(verifyHub.exitCode == 0 && verifyHub.stdout.contains("its versions give its signed state digest"), "\(verifyHub)")
    }
}
