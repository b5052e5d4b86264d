import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// Issue 48 item 4: `ferry serve` lets a token push only its own replicas' unsigned work; work
/// that carries its origin's signature may come through any token.
@Suite struct RemoteUnsignedWorkTests {
    @Test func anotherTokenCannotPushMoreOfAReplicasUnsignedWork() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        // A replica from before changes were signed pushes its work with its own token.
        let legacy = try UnsignedHistory.legacyStore(at: directory.subpath("legacy"), ids: ["x", "y"])
        try await sync(legacy, with: server, "alice", token: RemoteServer.aliceOnly)
        let served = try server.store("alice")
        #expect(try served.currentKnowledge()[legacy.replicaID] == 2)

        // Someone with another read-write token publishes the next change of that replica,
        // unsigned, from a store of its own that holds the replica's history.
        let forger = try Store.create(at: directory.subpath("forger"))
        try await sync(forger, with: server, "alice", token: RemoteServer.readWrite)
        let forged = try UnsignedHistory.forgedNextChange(of: legacy, id: "x", signedBy: nil)
        forger.close()
        try UnsignedHistory.smuggle([forged], into: forger.path)
        let reopened = try Store.open(at: forger.path)
        await #expect {
            try await sync(reopened, with: server, "alice", token: RemoteServer.readWrite)
        } throws: { error in
            "\(error)".contains("(403)") && "\(error)".contains("replica \(legacy.replicaID.short)'s changes carry no signature")
        }
        #expect(try served.currentKnowledge()[legacy.replicaID] == 2)
        #expect(try served.get(entity: UnsignedHistory.notes, id: RecordID("x"))?["forged"] == nil)

        // The token that brought the replica may push more of its unsigned work (an older
        // Ferry's next write on that replica).
        let next = try UnsignedHistory.forgedNextChange(of: legacy, id: "y", signedBy: nil)
        legacy.close()
        try UnsignedHistory.smuggle([next], into: legacy.path)
        let older = try Store.open(at: legacy.path)
        try await sync(older, with: server, "alice", token: RemoteServer.aliceOnly)
        #expect(try served.currentKnowledge()[legacy.replicaID] == 3)

        // Once the replica writes with this Ferry, its work is signed and any token relays it.
        try older.put(["t": 1], entity: UnsignedHistory.notes, id: RecordID("z"))
        let relay = try Store.create(at: directory.subpath("relay"))
        _ = try await relay.sync(with: FolderTransport(path: older.path))
        try await sync(relay, with: server, "alice", token: RemoteServer.readWrite)
        #expect(try served.get(entity: UnsignedHistory.notes, id: RecordID("z")) != nil)
        // The book names a fingerprint of the token, never the token.
        let book = try String(contentsOfFile: served.layout.unsignedWorkBook, encoding: .utf8)
        #expect(book.contains(legacy.replicaID.rawValue) && !book.contains(RemoteServer.aliceOnly))
    }
}
