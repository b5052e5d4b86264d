import Foundation
import FerryTestSupport
import Testing

@testable import Ferry

/// Each kind of peer says where it stands with a mark of its own, which the engine keeps in
/// the checkpoint and compares whole: the planner never asks a hub to fake a journal hash, and
/// a peer that went back in time no longer holds the mark it gave.
@Suite struct PeerMarkTests {
    static let notes = try! EntityName("Note")

    func head(_ sequence: UInt64) -> StoreHead {
        StoreHead(sequence: sequence, hash: sequence == 0 ? .zero : SHA256.hash(Array("\(sequence)".utf8)), latestModification: .zero)
    }

    func peer(mark: PeerMark, isEmpty: Bool = false) -> PeerInfo {
        PeerInfo(replica: ReplicaID.generate(), name: nil, format: 1, mark: mark, isEmpty: isEmpty, latestModification: .zero)
    }

    // MARK: The planner compares marks

    @Test func thePlanComesFromTheMarksAloneAndNeverFromAPosition() {
        struct CustomMark: Codable, Hashable { var watermark: String }
        let seen = PeerMark(CustomMark(watermark: "2026-11-29 08:00:00.000Z"))
        let later = PeerMark(CustomMark(watermark: "2026-11-29 09:00:00.000Z"))
        let local = head(7)
        let checkpoint = SyncCheckpoint(peer: .generate(), peerMark: seen, localPosition: 7, localHash: local.hash, time: 0)
        #expect(SyncPlanner.plan(local: local, peer: peer(mark: seen), checkpoint: checkpoint) == .upToDate)
        #expect(SyncPlanner.plan(local: local, peer: peer(mark: later), checkpoint: checkpoint) == .incremental)
        #expect(SyncPlanner.plan(local: head(8), peer: peer(mark: seen), checkpoint: checkpoint) == .incremental)
        #expect(SyncPlanner.plan(local: local, peer: peer(mark: seen), checkpoint: nil) == .reconcile)
        #expect(SyncPlanner.plan(local: head(0), peer: peer(mark: seen), checkpoint: nil) == .fullPull)
        #expect(SyncPlanner.plan(local: local, peer: peer(mark: seen, isEmpty: true), checkpoint: nil) == .fullPush)
        #expect(SyncPlanner.plan(local: head(0), peer: peer(mark: seen, isEmpty: true), checkpoint: nil) == .upToDate)
    }

    /// A store's mark is written and read without Foundation's coders, as the same JSON they
    /// make and read, so checkpoints written either way compare equal.
    @Test(arguments: [UInt64(0), 1, 8_193, UInt64(Int64.max)])
    func aStoreMarkIsTheJSONItsCodableFormWrites(position: UInt64) throws {
        let mark = StoreMark(position: position, hash: position == 0 ? .zero : SHA256.hash(Array("\(position)".utf8)))
        let direct = PeerMark(mark)
        #expect(direct.json == (try JSONValue(encoding: mark)))
        #expect(direct.decode(StoreMark.self) == mark)
        #expect(try direct.json.decode(StoreMark.self) == mark)
        let reordered = try JSONParser.parse(Array(#"{"hash":"\#(mark.hash.hex)","position":\#(position),"extra":1}"#.utf8))
        #expect(PeerMark(json: reordered).decode(StoreMark.self) == mark)
        for foreign in [#"{"position":-1,"hash":"\#(mark.hash.hex)"}"#, #"{"position":1,"hash":"zz"}"#, #"{"position":"1","hash":"\#(mark.hash.hex)"}"#, "[1]"] {
            #expect(PeerMark(json: try JSONParser.parse(Array(foreign.utf8))).decode(StoreMark.self) == nil, "\(foreign)")
        }
    }

    @Test func aHubMarkIsTheJSONItsCodableFormWrites() throws {
        let origins = (0..<3).map { _ in ReplicaID.generate() }
        var knowledge = VersionVector()
        var digests: [ReplicaID: SHA256Digest] = [:]
        for (index, origin) in origins.enumerated() {
            knowledge[origin] = UInt64(index * 1_000 + 7)
            digests[origin] = SHA256.hash(Array(origin.rawValue.utf8))
        }
        let mark = HubMark(hub: .generate(), location: "s3://bucket/team notes", frontier: ReplicaFrontier(knowledge: knowledge, digests: digests))
        let direct = PeerMark(mark)
        #expect(direct.json == (try JSONValue(encoding: mark)))
        #expect(direct.decode(HubMark.self) == mark)
        #expect(try direct.json.decode(HubMark.self) == mark)
        #expect(direct.decode(StoreMark.self) == nil)
    }

    @Test func aMarkDecodesOnlyAsItsOwnKind() {
        let store = PeerMark(StoreMark(position: 3, hash: SHA256.hash(Array("x".utf8))))
        #expect(store.decode(StoreMark.self)?.position == 3)
        #expect(store.decode(HubMark.self) == nil)
        let hub = PeerMark(HubMark(hub: .generate(), location: "/hub", frontier: ReplicaFrontier(knowledge: VersionVector(), digests: [:])))
        #expect(hub.decode(StoreMark.self) == nil)
        #expect(hub.decode(HubMark.self) != nil)
    }

    // MARK: The checkpoint file

    @Test func aCheckpointWrittenBeforeMarksReadsAsTheStoreMarkOfItsPositions() throws {
        let peer = ReplicaID.generate()
        let hash = SHA256.hash(Array("entry 12".utf8))
        let old: JSONValue = [
            "peer": .string(peer.rawValue), "peerPosition": 12, "peerHash": .string(hash.hex), "localPosition": 0,
            "localHash": .string(SHA256Digest.zero.hex), "time": "2026-11-01T10:00:00.000Z",
        ]
        let checkpoint = try #require(SyncCheckpoint(json: old))
        #expect(checkpoint.peerStoreMark == StoreMark(position: 12, hash: hash))
    }

    @Test func everyKindOfMarkAndNoMarkRoundTripThroughTheFile() throws {
        let hubMark = PeerMark(
            HubMark(hub: .generate(), location: "/hub", frontier: ReplicaFrontier(knowledge: VersionVector([.generate(): 4]), digests: [:])))
        for mark in [hubMark, PeerMark(StoreMark(position: 9, hash: SHA256.hash([1]))), nil] {
            let checkpoint = SyncCheckpoint(peer: .generate(), peerMark: mark, localPosition: 2, localHash: SHA256.hash([2]), time: 5)
            let read = try #require(SyncCheckpoint(json: try JSONParser.parse(checkpoint.jsonValue.canonicalBytes())))
            #expect(read == checkpoint)
        }
    }

    // MARK: A hub's mark is its frontier

    func sync(_ store: Store, _ hub: String) async throws -> SyncReport {
        try await store.sync(with: HubTransport(folder: hub))
    }

    func put(_ store: Store, _ id: String, _ value: Int64) throws {
        _ = try store.put(["v": .integer(value)], entity: Self.notes, id: RecordID(id))
    }

    @Test func aHubCheckpointKeepsTheHubsFrontierNotAJournalPosition() async throws {
        let directory = try TemporaryDirectory()
        let hub = directory.subpath("hub")
        let descriptor = try await Hub.create(in: FolderHubStorage(root: hub))
        let a = try Store.create(at: directory.subpath("a"), name: "a")
        try put(a, "a1", 1)
        _ = try await sync(a, hub)
        let checkpoint = try #require(try a.checkpoint(for: descriptor.id))
        #expect(checkpoint.peerStoreMark == nil, "a hub has no journal position to fake")
        let mark = try #require(checkpoint.peerMark?.decode(HubMark.self))
        #expect(mark.hub == descriptor.id)
        #expect(mark.frontier == (try a.currentFrontier()))
        #expect(try await sync(a, hub).plan == .upToDate)
    }
}
