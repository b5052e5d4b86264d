import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// A snapshot is tied to its writer's signed statement of the state: a new replica refuses one
/// whose versions were altered by someone with write access to the hub (signature kept, or
/// stripped), before it journals anything, and `ferry verify <hub>` reports it; an unsigned
/// (older) snapshot still joins, with a note that its state cannot be proven.
@Suite struct HubSnapshotProofTests {
    static let notes = try! EntityName("Note")

    func id(_ text: String) -> RecordID { try! RecordID(text) }

    func sync(_ store: Store, _ hub: String) async throws -> SyncReport {
        try await store.sync(with: HubTransport(storage: FolderHubStorage(root: hub)), options: SyncOptions())
    }

    /// A hub with laptop's two records, r1 (its change 1) and r2 (its change 2), compacted
    /// (signed by laptop unless `signed` is false), its only segment collected.
    func compactedHub(_ directory: TemporaryDirectory, signed: Bool = true) async throws -> (hub: String, laptop: Store) {
        let hub = directory.subpath("hub")
        try await Hub.create(in: FolderHubStorage(root: hub), openToAnyWriter: true)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        try laptop.put(["title": "real"], entity: Self.notes, id: id("r1"))
        try laptop.put(["title": "second"], entity: Self.notes, id: id("r2"))
        _ = try await sync(laptop, hub)
        var compactor = HubCompactor(storage: FolderHubStorage(root: hub))
        if signed { try compactor.sign(as: laptop) }
        let report = try await compactor.compact()
        #expect(report.wroteSnapshot && report.deletedSegments == 1)
        return (hub, laptop)
    }

    /// What a co-writer of the hub folder does: alters r1's version (not the frontier's),
    /// recomputes its digest, the part's hash and the manifest's id, and replaces the snapshot.
    /// `signature`: keep the manifest's signer and signature as they were, or strip them.
    func forgeSnapshot(_ hub: String, keepingSignature: Bool) throws {
        let manifests = try FileManager.default.contentsOfDirectory(atPath: hub + "/hub-snapshots")
        let manifestName = try #require(manifests.first)
        let oldID = try #require(HubSnapshot.id(ofManifestKey: "hub-snapshots/" + manifestName))
        let manifestPath = hub + "/hub-snapshots/" + manifestName
        let old = try HubSnapshot(manifest: Array(try Data(contentsOf: URL(fileURLWithPath: manifestPath))), id: oldID, location: hub)
        let part = try #require(old.parts.first)
        let partPath = hub + "/" + HubSnapshot.partKey(snapshot: oldID, part: part)
        var changes = try HubSnapshot.decodePart(Array(try Data(contentsOf: URL(fileURLWithPath: partPath))), expected: part, key: partPath, location: hub)
        let index = try #require(changes.firstIndex { $0.key.id == id("r1") })
        var forged = changes[index]
        forged.operation = .put(["title": "forged"])
        forged.chain = ChangeChain(forged, parent: forged.chainOrLegacy.parent)  // a fresh digest, no seal
        changes[index] = forged
        let (newPart, bytes) = HubSnapshot.encodePart(1, of: changes)
        var manifest = try #require(old.manifestJSON.objectValue)
        manifest["parts"] = [["n": 1, "hash": .string(newPart.hash.hex), "bytes": .integer(newPart.byteCount), "changes": .integer(Int64(newPart.changeCount))]]
        manifest["state"] = .string(HubSnapshot.stateDigest(of: changes).hex)
        if !keepingSignature {
            manifest["signer"] = nil
            manifest["sig"] = nil
        }
        let manifestBytes = JSONValue.object(manifest).canonicalBytes() + [UInt8(ascii: "\n")]
        let newID = SHA256.hash(manifestBytes)
        try FileManager.default.removeItem(atPath: manifestPath)
        try FileManager.default.removeItem(atPath: hub + "/snapshots/" + oldID.hex)
        try FileManager.default.createDirectory(atPath: hub + "/snapshots/" + newID.hex, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: hub + "/" + HubSnapshot.partKey(snapshot: newID, part: newPart)))
        try Data(manifestBytes).write(to: URL(fileURLWithPath: hub + "/" + HubSnapshot.manifestKey(newID)))
    }

    @Test(arguments: [true, false])
    func aForgedSnapshotIsRefusedAtJoinAndVerifyReportsIt(keepingSignature: Bool) async throws {
        let directory = try TemporaryDirectory()
        let (hub, _) = try await compactedHub(directory)
        try forgeSnapshot(hub, keepingSignature: keepingSignature)

        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        await #expect {
            _ = try await sync(desk, hub)
        } throws: { error in
            guard case SyncError.hub(.snapshotRefused(_, let key, let reason)) = error else { return false }
            return key.hasPrefix("hub-snapshots/")
                && reason.contains(keepingSignature ? "not validly signed" : "does not follow version 1, which the snapshot also holds")
        }
        #expect(desk.headSequence == 0 && desk.recordCount == 0, "nothing of the forged snapshot was journaled")
        #expect(try desk.snapshotJoins()?.pending == nil, "no join was begun")

        let verified = try await HubSnapshotProof.verifyAll(in: FolderHubStorage(root: hub))
        #expect(verified.findings.count == 1, "\(verified)")
        #expect(verified.findings.first?.hasPrefix("hub-snapshots/") == true, "\(verified)")
    }

    @Test func aSignedSnapshotJoinsAndTheJoinKeepsItsWritersStatement() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop) = try await compactedHub(directory)
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        let joined = try await sync(desk, hub)
        #expect(joined.snapshot?.reason == .join)
        #expect(try desk.get(entity: Self.notes, id: id("r1"))?["title"] == "real")
        let join = try #require(try desk.snapshotJoins()?.joins.first)
        let statement = try #require(join.statement?.objectValue)
        #expect(SignedObject.verdict(on: statement, domain: HubSnapshot.signatureDomain) == .signed(by: try laptop.publicKey()))
        #expect(SHA256.hash(JSONValue.object(statement).canonicalBytes() + [UInt8(ascii: "\n")]) == join.snapshot)
        let verified = try await HubSnapshotProof.verifyAll(in: FolderHubStorage(root: hub))
        #expect(verified.findings.isEmpty && verified.notes.count == 1 && verified.notes[0].contains("signed by key"), "\(verified)")
    }

    @Test func anUnsignedSnapshotStillJoinsWithANote() async throws {
        let directory = try TemporaryDirectory()
        let (hub, _) = try await compactedHub(directory, signed: false)
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        let joined = try await sync(desk, hub)
        #expect(joined.snapshot?.reason == .join)
        #expect(joined.notes.contains { $0.contains("written before snapshots were signed") }, "\(joined.notes)")
        #expect(try desk.snapshotJoins()?.joins.first?.statement == nil)
    }

    @Test func aSnapshotSignedByAKeyNoReplicaOfTheHubHoldsIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let (hub, _) = try await compactedHub(directory, signed: false)
        // A stranger with write access compacts again, signing with a key of its own.
        let stranger = try Store.create(at: directory.subpath("stranger"), name: "stranger")
        var compactor = HubCompactor(storage: FolderHubStorage(root: hub))
        try compactor.sign(as: stranger)
        #expect(try await compactor.compact().wroteSnapshot)
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        await #expect {
            _ = try await sync(desk, hub)
        } throws: { error in
            guard case SyncError.hub(.snapshotRefused(_, _, let reason)) = error else { return false }
            return reason.contains("not the key of any replica that writes to this hub")
        }
        #expect(desk.headSequence == 0)
    }
}
