import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// A copied store folder meets `ferry serve`: refused at the first exchange, in both directions,
/// and recovered by re-identifying the copy.
@Suite struct RemoteCopyDetectionTests {
    let notes = try! EntityName("Note")

    @Test func aCopySyncingThroughTheServerIsStoppedAndRecovers() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let original = try Store.create(at: directory.subpath("c1"), name: "c1")
        try original.put(["t": 0], entity: notes, id: RecordID("shared"))
        _ = try await sync(original, with: server, "hub")
        original.close()
        try FileManager.default.copyItem(atPath: directory.subpath("c1"), toPath: directory.subpath("c2"))
        let c1 = try Store.open(at: directory.subpath("c1"))
        let c2 = try Store.open(at: directory.subpath("c2"))
        try c1.put(["t": 1], entity: notes, id: RecordID("one"))
        try c2.put(["t": 2], entity: notes, id: RecordID("two"))
        _ = try await sync(c1, with: server, "hub")
        let hub = try server.store("hub")
        let hubHead = hub.headSequence

        // Both made change 2 of one replica: the frontiers disagree before anything moves.
        await #expect {
            _ = try await sync(c2, with: server, "hub")
        } throws: { error in
            guard let error = error as? SyncError, case .divergedReplica(_, let counter, _, _, let copy) = error else { return false }
            return counter == 2 && copy == c2.path
        }
        #expect(hub.headSequence == hubHead)

        // The copy's next change arrives at the server without its predecessor: the server's own
        // chain check refuses it (the push carries change 3, chained on the copy's change 2).
        try c2.put(["t": 3], entity: notes, id: RecordID("three"))
        let pushed = try c2.changes(after: 0, excluding: try hub.currentKnowledge(), limit: 10).changes
        await #expect(throws: SyncError.self) {
            _ = try await server.transport("hub").push(pushed, maximumSkew: 86_400_000, continuing: nil)
        }
        #expect(hub.headSequence == hubHead)

        c2.close()
        let report = try Store.reidentify(at: directory.subpath("c2"))
        #expect(report.sharedThrough == 1)
        let renewed = try Store.open(at: directory.subpath("c2"))
        _ = try await sync(renewed, with: server, "hub")
        _ = try await sync(c1, with: server, "hub")
        for store in [c1, renewed, hub] {
            #expect(try store.records(of: notes).map(\.0.rawValue).sorted() == ["one", "shared", "three", "two"])
        }
    }
}
