import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// A hub that goes back in time or forks never loses an edit: a hub folder restored from a
/// backup, a hub folder copied with `cp -r` and both copies used. Each replica remembers the
/// hub's frontier as its mark; a hub that holds less is never taken for up to date, the replica
/// republishes what it lost, and the report says which it was.
@Suite struct HubRollbackTests {
    static let notes = try! EntityName("Note")

    func makeHub(_ directory: TemporaryDirectory, _ name: String = "hub") async throws -> String {
        let path = directory.subpath(name)
        try await Hub.create(in: FolderHubStorage(root: path), openToAnyWriter: true)
        return path
    }

    func sync(_ store: Store, _ hub: String) async throws -> SyncReport {
        try await store.sync(with: HubTransport(folder: hub))
    }

    func put(_ store: Store, _ id: String, _ value: Int64) throws {
        _ = try store.put(["v": .integer(value)], entity: Self.notes, id: RecordID(id))
    }

    func copyFolder(_ from: String, to: String) throws {
        if FileManager.default.fileExists(atPath: to) { try FileManager.default.removeItem(atPath: to) }
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    func expectEveryStore(_ stores: [Store], holds ids: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for store in stores {
            for id in ids {
                #expect(
                    try store.get(entity: Self.notes, id: RecordID(id)) != nil, "\(store.manifest.name ?? "") lacks \(id)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    /// Issue 54, scenario 1: A, B and C sync through the hub; the folder is backed up; A pushes
    /// a2 and B pulls it; the folder is restored; C pushes c2. The restored hub holds as many
    /// changes as before (a journal position would read the same), but not the same ones.
    @Test func aHubFolderRestoredFromABackupIsNeverUpToDateAndLosesNoEdit() async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory)
        let stores = try ["a", "b", "c"].map { try Store.create(at: directory.subpath($0), name: $0) }
        let (a, b, c) = (stores[0], stores[1], stores[2])
        for (index, store) in stores.enumerated() { try put(store, "\(store.manifest.name ?? "")1", Int64(index)) }
        for _ in 0..<2 { for store in stores { _ = try await sync(store, hub) } }
        let backup = directory.subpath("backup")
        try copyFolder(hub, to: backup)
        try put(a, "a2", 2)
        _ = try await sync(a, hub)
        _ = try await sync(b, hub)
        try copyFolder(backup, to: hub)
        try put(c, "c2", 3)
        _ = try await sync(c, hub)
        // B's mark names a2, which the hub lost: not up to date; it republishes a2 and takes c2.
        let afterRestore = try await sync(b, hub)
        #expect(afterRestore.plan != .upToDate)
        #expect(afterRestore.pushed == 1, "B republishes a2")
        #expect(afterRestore.pulled == 1, "B takes c2")
        let note = afterRestore.notes.first { $0.contains("went back in time") }
        #expect(note?.contains("the hub at \(hub)") == true && note?.contains("republished 1 change") == true, "\(afterRestore.notes)")
        for _ in 0..<2 { for store in [a, c, b] { _ = try await sync(store, hub) } }
        try expectEveryStore(stores, holds: ["a1", "b1", "c1", "a2", "c2"])
        // A's next edit goes through: no counter gap, no sync refused for good.
        try put(a, "a3", 4)
        for store in stores { _ = try await sync(store, hub) }
        try expectEveryStore(stores, holds: ["a3"])
        for store in stores { #expect(try StoreVerifier(path: store.path).verify().isClean) }
    }

    /// Issue 54, scenario 2: a hub folder copied with `cp -r` and both copies used. B syncs the
    /// copy, then the original: the original lacks what B wrote to the copy, and is named a
    /// copy's original with the command that tells them apart; nothing is lost either way.
    @Test func aHubFolderCopiedAndUsedTwiceIsNamedAndLosesNoEdit() async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory)
        let stores = try ["a", "b"].map { try Store.create(at: directory.subpath($0), name: $0) }
        let (a, b) = (stores[0], stores[1])
        try put(a, "a1", 1)
        try put(b, "b1", 2)
        for _ in 0..<2 { for store in stores { _ = try await sync(store, hub) } }
        let copy = directory.subpath("hub-copy")
        try copyFolder(hub, to: copy)
        try put(b, "b2", 3)
        _ = try await sync(b, copy)
        try put(a, "a2", 4)
        _ = try await sync(a, hub)
        let original = try await sync(b, hub)
        #expect(original.plan != .upToDate)
        #expect(original.pushed == 1 && original.pulled == 1, "B brings b2 to the original and takes a2")
        let note = original.notes.first { $0.contains("is a copy") }
        #expect(note?.contains("ferry hub reidentify \(hub)") == true, "\(original.notes)")
        _ = try await sync(a, hub)
        try expectEveryStore(stores, holds: ["a1", "b1", "a2", "b2"])

        // Given an id of its own, the copy is another hub: both can be used, and edits still flow.
        let (old, new) = try await Hub.reidentify(FolderHubStorage(root: copy))
        #expect(old.id != new.id)
        try put(a, "a3", 5)
        _ = try await sync(a, hub)
        _ = try await sync(b, copy)
        _ = try await sync(b, hub)
        let status = try await Hub.status(of: FolderHubStorage(root: copy))
        #expect(status.descriptor.id == new.id)
        try expectEveryStore(stores, holds: ["a3"])
        for store in stores { #expect(try StoreVerifier(path: store.path).verify().isClean) }
    }

    /// Hub folders restored from random earlier backups between rounds of random edits and
    /// syncs: every edit still reaches every replica, and every replica verifies.
    @Test(arguments: [UInt64(1), 2, 3])
    func randomRestoresFromEarlierBackupsLoseNoEdit(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory)
        let stores = try (0..<3).map { try Store.create(at: directory.subpath("s\($0)"), name: "s\($0)") }
        var backups: [String] = []
        var written: Set<String> = []
        for round in 0..<12 {
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let store = stores[Int(random.next() % 3)]
                let id = "r\(round)-\(random.next() % 5)"
                try put(store, id, Int64(round))
                written.insert(id)
                _ = try await sync(store, hub)
            }
            switch random.next() % 3 {
            case 0:
                let backup = directory.subpath("backup-\(round)")
                try copyFolder(hub, to: backup)
                backups.append(backup)
            case 1 where !backups.isEmpty:
                try copyFolder(backups[Int(random.next() % UInt64(backups.count))], to: hub)
            default:
                break
            }
        }
        for _ in 0..<2 { for store in stores { _ = try await sync(store, hub) } }
        try expectEveryStore(stores, holds: written.sorted())
        let first = try ReplicaState(stores[0])
        for store in stores.dropFirst() { #expect(try ReplicaState(store) == first) }
        for store in stores { #expect(try StoreVerifier(path: store.path).verify().isClean) }
    }
}
