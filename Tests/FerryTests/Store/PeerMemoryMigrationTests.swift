import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// Stores written before ``PeerMemory`` (checkpoints in `.ferry/peers/<id>.json`, hub caches in
/// `.ferry/hubs/`, backends in `.ferry/backends/`) are moved to `.ferry/peers/<peer id>/` when
/// opened, and sync on from what they remembered.
@Suite struct PeerMemoryMigrationTests {
    static let notes = try! EntityName("Note")

    /// A laptop that synced with a stick (a folder peer, which keeps a checkpoint of the laptop
    /// too) and with a hub folder, all closed and put back in the old layout.
    struct Fixture {
        let directory: TemporaryDirectory
        let laptop: String
        let stick: String
        let hub: String
        let stickID: ReplicaID
        let laptopID: ReplicaID
        let hubID: ReplicaID

        static func make() async throws -> Fixture {
            let directory = try TemporaryDirectory()
            let hub = directory.subpath("hub")
            try await Hub.create(in: FolderHubStorage(root: hub), openToAnyWriter: true)
            let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
            let stick = try Store.create(at: directory.subpath("stick"), name: "stick")
            try laptop.put(["v": 1], entity: notes, id: RecordID("a"))
            try stick.put(["v": 2], entity: notes, id: RecordID("b"))
            _ = try await laptop.sync(with: FolderTransport(path: stick.path))
            let hubReport = try await laptop.sync(with: HubTransport(folder: hub))
            let hubID = try #require(hubReport.peer)
            let fixture = Fixture(
                directory: directory, laptop: laptop.path, stick: stick.path, hub: hub, stickID: stick.replicaID,
                laptopID: laptop.replicaID, hubID: hubID)
            laptop.close()
            stick.close()
            try OldPeerLayout.write(fixture.laptop)
            try OldPeerLayout.write(fixture.stick)
            return fixture
        }

        /// What the old layout holds, as `OldPeerLayout` wrote it.
        var oldLaptopFiles: [String] {
            [".ferry/hubs/" + hubCacheDigest + ".json", ".ferry/peers/\(hubID).json", ".ferry/peers/\(stickID).json"].sorted()
        }

        /// What the new layout holds for the laptop.
        var newLaptopFiles: [String] {
            [".ferry/peers/hub-" + hubCacheDigest + "/hub-cache.json", ".ferry/peers/\(hubID)/checkpoint.json",
             ".ferry/peers/\(stickID)/checkpoint.json"].sorted()
        }

        var hubCacheDigest: String { String(SHA256.hash(Array(FolderHubStorage(root: hub).location.utf8)).hex.prefix(24)) }
    }

    @Test func anOldStoreIsMovedOnOpenAndSyncsIncrementallyWithWhatItRemembered() async throws {
        let fixture = try await Fixture.make()
        #expect(try OldPeerLayout.files(fixture.laptop) == fixture.oldLaptopFiles)
        #expect(try OldPeerLayout.files(fixture.stick) == [".ferry/peers/\(fixture.laptopID).json"])

        let laptop = try Store.open(at: fixture.laptop)
        #expect(try OldPeerLayout.files(fixture.laptop) == fixture.newLaptopFiles)
        #expect(!FileSystem.exists(fixture.laptop + "/.ferry/hubs"))
        #expect(try laptop.checkpoint(for: fixture.stickID) != nil)

        // The hub: its checkpoint and its cache are both found (one listing, no head read).
        let hub = try await laptop.sync(with: HubTransport(folder: fixture.hub))
        #expect(hub.plan == .upToDate)
        #expect(hub.requests == 1, "a listing only: \(hub.requests ?? -1)")

        // The stick is migrated when the folder transport opens it; one new change on each side.
        let stick = try Store.open(at: fixture.stick)
        try stick.put(["v": 3], entity: Self.notes, id: RecordID("c"))
        stick.close()
        try laptop.put(["v": 4], entity: Self.notes, id: RecordID("d"))
        let folder = try await laptop.sync(with: FolderTransport(path: fixture.stick))
        #expect(folder.plan == .incremental)
        #expect(folder.pulled == 1 && folder.pushed == 1)
        #expect(try OldPeerLayout.files(fixture.stick) == [".ferry/peers/\(fixture.laptopID)/checkpoint.json"])

        laptop.close()
    }

    @Test func openingAgainChangesNothing() async throws {
        let fixture = try await Fixture.make()
        try Store.open(at: fixture.laptop).close()
        let skip = [".ferry/lock", ".ferry/index", ".ferry/index-delta"]
        let once = try folderContents(fixture.laptop, skipping: skip)
        try Store.open(at: fixture.laptop).close()
        #expect(try folderContents(fixture.laptop, skipping: skip) == once)
        #expect(try OldPeerLayout.files(fixture.laptop) == fixture.newLaptopFiles)
    }

    @Test func aMigrationCutOffHalfwayIsFinishedByTheNextOpen() async throws {
        let fixture = try await Fixture.make()
        let layout = StoreLayout(root: fixture.laptop)
        // The first checkpoint moved, its folder made for the second, the hub cache not yet.
        let stickMemory = layout.peerMemory(for: .replica(fixture.stickID))
        try FileSystem.createDirectory(stickMemory.folder)
        try FileSystem.rename(layout.peers + "/\(fixture.stickID).json", to: stickMemory.checkpoint)
        try FileSystem.createDirectory(layout.peerMemory(for: .replica(fixture.hubID)).folder)
        let stickCheckpoint = try FileSystem.readFile(stickMemory.checkpoint)

        let laptop = try Store.open(at: fixture.laptop)
        #expect(try OldPeerLayout.files(fixture.laptop) == fixture.newLaptopFiles)
        #expect(try FileSystem.readFile(stickMemory.checkpoint) == stickCheckpoint)
        let hub = try await laptop.sync(with: HubTransport(folder: fixture.hub))
        #expect(hub.plan == .upToDate && hub.requests == 1)
        laptop.close()
    }

    @Test func whenACheckpointIsInBothPlacesTheOldPlacesIsKept() async throws {
        let fixture = try await Fixture.make()
        let layout = StoreLayout(root: fixture.laptop)
        try Store.open(at: fixture.laptop).close()
        // An older Ferry synced after the migration: it wrote the old place only.
        let memory = layout.peerMemory(for: .replica(fixture.stickID))
        var newer = try #require(SyncCheckpoint(json: try JSONParser.parse(try FileSystem.readFile(memory.checkpoint))))
        newer.time += 1000
        try FileSystem.writeFileAtomically(layout.peers + "/\(fixture.stickID).json", newer.jsonValue.prettyBytes(), durable: false)
        #expect(StoreVerifier.checkpoints(layout).first { $0.checkpoint.peer == fixture.stickID }?.relativePath == ".ferry/peers/\(fixture.stickID).json")

        let laptop = try Store.open(at: fixture.laptop)
        #expect(try laptop.checkpoint(for: fixture.stickID) == newer)
        #expect(try OldPeerLayout.files(fixture.laptop) == fixture.newLaptopFiles)
        laptop.close()
    }

    @Test func verifyReadsTheCheckpointsOfAStoreNotYetMoved() async throws {
        let fixture = try await Fixture.make()
        let checkpoints = StoreVerifier.checkpoints(StoreLayout(root: fixture.laptop))
        #expect(checkpoints.map(\.checkpoint.peer) == [fixture.hubID, fixture.stickID].sorted())
        #expect(checkpoints.allSatisfy { $0.relativePath == ".ferry/peers/\($0.checkpoint.peer).json" })
        #expect(try Store.verify(at: fixture.laptop).isClean)
        #expect(try OldPeerLayout.files(fixture.laptop) == fixture.oldLaptopFiles, "verify moves nothing")
    }

    @Test func peerIDsAreSingleSafePathComponents() throws {
        for bad in ["", ".", "..", "a/b", ".tmp-x", "-x", "Hub-1", "a b", String(repeating: "a", count: 65)] {
            #expect(PeerMemoryID(rawValue: bad) == nil, "\(bad)")
        }
        let replica = ReplicaID.generate()
        #expect(PeerMemoryID.replica(replica).rawValue == replica.rawValue)
        #expect(PeerMemoryID.replica(replica).replica == replica)
        let hub = PeerMemoryID.hub(location: "s3://bucket/team")
        let backend = PeerMemoryID.backend(location: "pocketbase+http://127.0.0.1:8090")
        #expect(hub.rawValue.count == 4 + 24 && backend.rawValue.count == 8 + 16)
        for id in [hub, backend] { #expect(PeerMemoryID(rawValue: id.rawValue) == id && id.replica == nil) }
    }
}
