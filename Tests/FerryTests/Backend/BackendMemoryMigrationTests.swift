import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// An app backend's folder, in `.ferry/backends/<16 hex>/` before ``PeerMemory``, is moved to
/// `.ferry/peers/backend-<16 hex>/backend/` on open, keeping its stand-in replica, watermarks
/// and bases.
@Suite struct BackendMemoryMigrationTests {
    static let note = try! EntityName("Note")
    static let location = "pocketbase+http://127.0.0.1:8090"

    /// A store that remembered a backend (a stand-in replica, a watermark, one base), closed and
    /// put back in the old layout. Returns the store's path and the stand-in replica.
    func oldStore(_ directory: TemporaryDirectory) throws -> (path: String, proxy: ReplicaID) {
        let store = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let folder = BackendState.folder(of: Self.location, in: store)
        var state = BackendState(location: Self.location, proxy: .generate())
        state.watermarks["Note"] = "2026-11-21 20:00:00.000Z"
        state.pushedThrough = 3
        try state.save(to: folder)
        let bases = try BackendState.bases(in: folder, collection: "Note")
        bases.set(.init(ferryID: "n1", revision: "r1", version: VersionVector([state.proxy: 1]), isDeleted: false), for: "abc")
        try bases.save(durable: true)
        store.close()
        try OldPeerLayout.write(store.path)
        return (store.path, state.proxy)
    }

    var digest: String { String(PeerMemoryID.backend(location: Self.location).rawValue.dropFirst(8)) }

    func expectRemembered(_ store: Store, proxy: ReplicaID) throws {
        let folder = BackendState.folder(of: Self.location, in: store)
        let state = try BackendState.load(from: folder, location: Self.location)
        #expect(state.proxy == proxy)
        #expect(state.watermarks["Note"] == "2026-11-21 20:00:00.000Z" && state.pushedThrough == 3)
        #expect(try BackendState.bases(in: folder, collection: "Note").base(for: "abc")?.revision == "r1")
    }

    @Test func anOldBackendFolderIsMovedOnOpenWithEverythingInIt() throws {
        let directory = try TemporaryDirectory()
        let (path, proxy) = try oldStore(directory)
        #expect(FileSystem.isRegularFile(path + "/.ferry/backends/\(digest)/state.json"))

        let store = try Store.open(at: path)
        defer { store.close() }
        #expect(BackendState.folder(of: Self.location, in: store) == path + "/.ferry/peers/backend-\(digest)/backend")
        #expect(!FileSystem.exists(path + "/.ferry/backends"))
        try expectRemembered(store, proxy: proxy)
    }

    @Test func anOldFolderWinsOverANewOneAndACutOffSwapIsFinished() throws {
        let directory = try TemporaryDirectory()
        let (path, proxy) = try oldStore(directory)
        let memory = StoreLayout(root: path).peerMemory(for: .backend(location: Self.location))
        // A newer Ferry's folder (another stand-in) is there too, and a swap was cut off after
        // it moved the new folder aside once before.
        try FileSystem.createDirectories(memory.backend)
        try BackendState(location: Self.location, proxy: .generate()).save(to: memory.backend)
        try FileSystem.createDirectories(memory.folder + "/backend-replaced/bases")

        let store = try Store.open(at: path)
        defer { store.close() }
        try expectRemembered(store, proxy: proxy)
        #expect(try FileSystem.contents(ofDirectory: memory.folder).map(\.name) == ["backend"])
        #expect(!FileSystem.exists(path + "/.ferry/backends"))
    }

    @Test func aBackendSyncAfterTheMovePullsOnlyWhatIsNew() async throws {
        guard let fixture = try await PocketBaseSyncTests.Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "first"], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.web.create(in: "Note", fields: ["title": "from the web"])
        let first = try await fixture.sync(laptop)
        #expect(first.pushed == 1 && first.pulled == 1)
        let path = laptop.path
        laptop.close()
        try OldPeerLayout.write(path)
        #expect(try OldPeerLayout.files(path).contains { $0.hasPrefix(".ferry/backends/") && $0.hasSuffix("/state.json") })

        _ = try await fixture.web.create(in: "Note", fields: ["title": "later"])
        let reopened = try Store.open(at: path)
        defer { reopened.close() }
        let before = reopened.head.sequence
        let second = try await fixture.sync(reopened)
        #expect(second.pulled == 1 && second.pushed == 0 && second.conflicts.isEmpty, "\(second)")
        #expect(reopened.head.sequence == before + 1)
    }

    /// A `state.json` the engine before ``BackendPeer`` wrote has no stand-in position, and the
    /// store has no checkpoint for the stand-in: the first sync reads the store's journal once,
    /// pulls only what is new and pushes only what the backend lacks.
    @Test func aStateWrittenBeforeTheStandInHadAPositionSyncsOnlyWhatIsNew() async throws {
        guard let fixture = try await PocketBaseSyncTests.Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "first"], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.web.create(in: "Note", fields: ["title": "from the web"])
        let first = try await fixture.sync(laptop)
        #expect(first.pushed == 1 && first.pulled == 1, "\(first)")
        // Back to what the engine before left: no stand-in position, no checkpoint for it.
        let folder = BackendState.folder(of: fixture.location.description, in: laptop)
        var state = try #require(try JSONParser.parse(try FileSystem.readFile(folder + "/state.json", limit: 1 << 20)).objectValue)
        let proxy = try #require(state["proxy"]?.stringValue)
        #expect(state["standIn"] != nil)
        state["standIn"] = nil
        _ = try FileSystem.writeFileAtomically(folder + "/state.json", JSONValue.object(state).prettyBytes(), durable: true)
        try FileManager.default.removeItem(atPath: laptop.path + "/.ferry/peers/\(proxy)/checkpoint.json")

        _ = try await fixture.web.create(in: "Note", fields: ["title": "later"])
        try laptop.put(["title": "second"], entity: Self.note, id: RecordID("n2"))
        let before = laptop.head.sequence
        let second = try await fixture.sync(laptop)
        #expect(second.pulled == 1 && second.pushed == 1 && second.conflicts.isEmpty, "\(second)")
        #expect(laptop.head.sequence == before + 1)
        #expect(try await fixture.serverRecords().count == 4)
        let idle = try await fixture.sync(laptop)
        #expect(idle.plan == .upToDate, "\(idle)")
    }
}
