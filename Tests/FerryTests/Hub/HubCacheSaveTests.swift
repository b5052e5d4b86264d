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

    /// A sync with nothing new writes the cache file no more (it would write the same bytes, twice,
    /// each rename costing a flush and a trim); a sync that reads a changed head writes it, and
    /// a cache file deleted meanwhile is written again by the same transport (a watch's).
    @Test func aSyncWithNothingNewLeavesTheCacheFileAsItIs() async throws {
        let directory = try TemporaryDirectory()
        let hub = directory.subpath("hub")
        try await Hub.create(in: FolderHubStorage(root: hub), openToAnyWriter: true)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        try laptop.put(["v": 1], entity: Self.notes, id: RecordID("x"))
        let transport = HubTransport(folder: hub)
        _ = try await laptop.sync(with: transport)
        _ = try await desk.sync(with: HubTransport(folder: hub))
        _ = try await laptop.sync(with: transport)  // reads desk's head once
        let cache = HubCache.memory(for: FolderHubStorage(root: hub).location, in: laptop.layout).hubCache
        let before = try #require(try FileSystem.status(cache))

        let idle = try await laptop.sync(with: transport)
        #expect(idle.plan == .upToDate && idle.pulled == 0 && idle.pushed == 0, "\(idle)")
        let after = try #require(try FileSystem.status(cache))
        #expect(after.inode == before.inode && after.modificationNanoseconds == before.modificationNanoseconds, "the cache file was written again")

        try desk.put(["v": 2], entity: Self.notes, id: RecordID("y"))
        _ = try await desk.sync(with: HubTransport(folder: hub))
        let pulled = try await laptop.sync(with: transport)
        #expect(pulled.pulled == 1, "\(pulled)")
        #expect(try FileSystem.status(cache)?.inode != before.inode, "the head read is cached")

        try FileSystem.removeFile(cache)
        let again = try await laptop.sync(with: transport)
        #expect(again.pulled == 0 && again.pushed == 0, "\(again)")
        #expect(FileSystem.isRegularFile(cache), "a cache file deleted is written again")
        laptop.close()
        desk.close()
    }
}
