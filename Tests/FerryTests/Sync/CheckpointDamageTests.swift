import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// A damaged checkpoint is an error the user sees, never a silent "first sync" with that peer.
@Suite struct CheckpointDamageTests {
    static let notes = try! EntityName("Note")

    @Test func aDamagedCheckpointStopsTheSyncAndNamesTheFile() async throws {
        let directory = try TemporaryDirectory()
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let stick = try Store.create(at: directory.subpath("stick"), name: "stick")
        try laptop.put(["v": 1], entity: Self.notes, id: RecordID("a"))
        _ = try await laptop.sync(with: FolderTransport(path: stick.path))
        let path = laptop.path + "/.ferry/peers/" + stick.replicaID.rawValue + "/checkpoint.json"
        #expect(try laptop.checkpoint(for: stick.replicaID) != nil)

        for damage in ["{\"peer\": ", #"{"peer": "not a checkpoint"}"#] {
            try damage.write(toFile: path, atomically: true, encoding: .utf8)
            try laptop.put(["v": .integer(Int64(damage.count))], entity: Self.notes, id: RecordID("a"))
            let before = try folderContents(stick.path, skipping: [".ferry/lock", ".ferry/index", ".ferry/index-delta"])
            do {
                _ = try await laptop.sync(with: FolderTransport(path: stick.path))
                Issue.record("synced past a damaged checkpoint")
            } catch {
                let message = error.description
                var named: String?
                if case .store(let storeError) = error, case .damagedCheckpoint(let file, _) = storeError { named = file }
                #expect(named == path, "\(message)")
                #expect(message.contains("remove it"))
            }
            #expect(try folderContents(stick.path, skipping: [".ferry/lock", ".ferry/index", ".ferry/index-delta"]) == before)
        }
        try FileManager.default.removeItem(atPath: path)
        let report = try await laptop.sync(with: FolderTransport(path: stick.path))
        #expect(report.plan == .reconcile)
        #expect(try ReplicaState(laptop) == ReplicaState(stick))
    }
}
