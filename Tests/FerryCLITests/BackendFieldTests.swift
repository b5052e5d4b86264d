import Ferry
import FerryTestSupport
import Foundation
import FerryURLSession
import Testing

/// A PocketBase field Ferry cannot write is never a silent difference (issue 52, item 2):
/// setup fills the fields it adds from the store, and a sync names every record the backend
/// holds differently from the store.
@Suite(.serialized) struct BackendFieldTests {
    /// A store `laptop` holding Note/n1 as `document`, and `server` set up from it for Note,
    /// with the sync user.
    func laptopSetUp(_ document: String, server: PocketBaseServer, in directory: TemporaryDirectory) throws -> String {
        let laptop = directory.subpath("laptop")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["put", laptop, "Note", "n1", "--json", document]).exitCode == 0)
        let setup = try runFerry(["backend", "setup", server.location, "--entities", "Note", "--from", laptop, "--create-user"],
                                 environment: server.superuserEnvironment.merging(syncUser) { $1 })
        #expect(setup.exitCode == 0, "\(setup)")
        return laptop
    }

    /// The third field of the newest base line of Note/`ferryID` in the store's memory of its
    /// one backend (`bases/Note/table`, then its `log`).
    func baseFlag(of ferryID: String, in store: String) throws -> String? {
        let peers = store + "/.ferry/peers"
        var flag: String?
        for peer in try FileManager.default.contentsOfDirectory(atPath: peers) {
            let folder = peers + "/" + peer + "/backend/bases/Note"
            for file in ["table", "log"] {
                guard let text = try? String(contentsOfFile: folder + "/" + file, encoding: .utf8) else { continue }
                for line in text.split(separator: "\n") {
                    var fields = line.split(separator: "\t", omittingEmptySubsequences: false)
                    if fields.first == "+" { fields.removeFirst() }
                    if fields.count >= 5 && fields[3] == ferryID[...] { flag = String(fields[2]) }
                }
            }
        }
        return flag
    }

    @Test func aFieldAddedAfterARecordWasPushedIsFilledAndNoSyncSaysNothing() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return }
        defer { server.stop() }
        let laptop = try laptopSetUp(#"{"title": "a"}"#, server: server, in: directory)
        let user = syncUser
        // A member the collection lacks: the push says so, with what to do.
        #expect(try runFerry(["put", laptop, "Note", "n2", "--json", #"{"title": "b", "priority": 3}"#]).exitCode == 0)
        let refused = try runFerry(["sync", laptop, server.location, "--entities", "Note"], environment: user)
        #expect(refused.exitCode != 0 && refused.stderr.contains("the collection has no field \"priority\""), "\(refused)")
        // The advised setup adds the field and fills it from the store.
        let added = try runFerry(["backend", "setup", server.location, "--entities", "Note", "--from", laptop],
                                 environment: server.superuserEnvironment)
        #expect(added.exitCode == 0, "\(added)")
        #expect(added.stdout.contains("Note: filled priority in 1 record from the store"), "\(added)")
        let synced = try runFerry(["sync", laptop, server.location, "--entities", "Note"], environment: user)
        #expect(synced.exitCode == 0 && !synced.stderr.contains("differ"), "\(synced)")
        let client = PocketBaseClient(location: try PocketBaseLocation(parsing: server.location),
                                      credentials: .password(email: "laptop@example.com", password: "laptop-password-1", collection: "users"),
                                      httpClient: URLSessionHTTPClient())
        let stored = try await client.records(in: "Note").items.first { $0["ferry_id"] == "n2" }
        #expect(stored?["priority"] == 3, "\(String(describing: stored))")
        let again = try runFerry(["sync", laptop, server.location, "--entities", "Note"], environment: user)
        #expect(again.exitCode == 0 && again.stderr.isEmpty, "\(again)")
    }

    @Test func aValueTheFieldCannotHoldIsNamedOnEverySyncUntilItAgrees() async throws {
        let directory = try TemporaryDirectory()
        guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return }
        defer { server.stop() }
        let laptop = try laptopSetUp(#"{"priority": "high"}"#, server: server, in: directory)
        let user = syncUser
        // A text field, then a number: PocketBase keeps "3", which is not the store's 3.
        #expect(try runFerry(["put", laptop, "Note", "n2", "--json", #"{"priority": 3}"#]).exitCode == 0)
        let pushed = try runFerry(["sync", laptop, server.location, "--entities", "Note"], environment: user)
        #expect(pushed.exitCode == 0 && pushed.stdout.contains("pushed 2"), "\(pushed)")
        // The backend's answer held what was sent for n1, not for n2: only n2's base says it
        // must be checked when listed again (a base's third field is 2 when checked).
        #expect(try baseFlag(of: "n1", in: laptop) == "2")
        #expect(try baseFlag(of: "n2", in: laptop) == "0")
        let difference = #"Note/n2: the backend holds it differently from this store (priority is "3" there, 3 here)"#
        for _ in 0..<2 {
            let sync = try runFerry(["sync", laptop, server.location, "--entities", "Note"], environment: user)
            #expect(sync.exitCode == 0 && sync.stderr.contains("note: \(difference)"), "\(sync)")
            #expect(!sync.stderr.contains("Note/n1"), "\(sync)")
        }
        // Once the record holds what the field can, the note stops.
        #expect(try runFerry(["put", laptop, "Note", "n2", "--json", #"{"priority": "3"}"#]).exitCode == 0)
        _ = try runFerry(["sync", laptop, server.location, "--entities", "Note"], environment: user)
        let agreed = try runFerry(["sync", laptop, server.location, "--entities", "Note"], environment: user)
        #expect(agreed.exitCode == 0 && !agreed.stderr.contains("differently"), "\(agreed)")
    }
}
