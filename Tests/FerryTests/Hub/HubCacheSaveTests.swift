import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// The hub cache holds the hash of the head a store is about to write, saved durably first: when
/// that save fails, the sync stops before the head is written (the next sync would otherwise
/// take the store's own head for a copy's).
@Suite struct HubCacheSaveTests {
    static let notes = try! EntityName("Note")

    @Test func aCacheThatCannotBeSavedStopsTheSyncBeforeTheHeadIsWritten() async throws {
        let directory = try TemporaryDirectory()
        let hub = directory.subpath("hub")
        try await Hub.create(in: FolderHubStorage(root: hub))
        let store = try Store.create(at: directory.subpath("a"), name: "a")
        try store.put(["v": 1], entity: Self.notes, id: RecordID("x"))
        // A file where the hub's memory folder goes: neither save can write there.
        let memory = HubCache.memory(for: FolderHubStorage(root: hub).location, in: store.layout)
        try FileSystem.writeFileAtomically(memory.folder, Array("in the way".utf8), durable: false)

        do {
            _ = try await store.sync(with: HubTransport(folder: hub))
            Issue.record("synced without saving the hub cache")
        } catch {
            guard case .store(.io(let cause)) = error else { throw error }
            #expect(cause.path?.hasPrefix(memory.folder) == true, "\(error)")
        }
        #expect(!FileSystem.exists(hub + "/heads/\(store.replicaID).json"), "the head waits for the cache")

        try FileSystem.removeFile(memory.folder)
        let report = try await store.sync(with: HubTransport(folder: hub))
        #expect(report.pushed == 1)
        #expect(FileSystem.isRegularFile(memory.hubCache) && FileSystem.exists(hub + "/heads/\(store.replicaID).json"))
        store.close()
    }
}
