import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// A hub's members: once a hub has a members list, work from a replica that is not a member is
/// refused naming the replica and the object, `--trust-new` admits and adds it, a removed
/// member's past work stays and its later work is refused, and a members list deleted from the
/// hub is a warning while the list accepted before stays in force.
@Suite struct HubMembersTests {
    static let notes = try! EntityName("Note")

    func id(_ text: String) -> RecordID { try! RecordID(text) }

    func sync(_ store: Store, _ hub: String, trustNew: Bool = false) async throws -> SyncReport {
        let transport = HubTransport(storage: FolderHubStorage(root: hub))
        transport.trustNew = trustNew
        return try await store.sync(with: transport, options: SyncOptions())
    }

    /// A hub whose members list holds laptop, which wrote r0; and phone, a stranger that
    /// wrote r1 and synced.
    func hubWithAStranger(_ directory: TemporaryDirectory) async throws -> (hub: String, laptop: Store, phone: Store) {
        let hub = directory.subpath("hub")
        try await Hub.create(in: FolderHubStorage(root: hub))
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        try laptop.put(["by": "laptop"], entity: Self.notes, id: id("r0"))
        // The first replica to write to a new hub records itself as its first member.
        let founded = try await sync(laptop, hub)
        #expect(founded.notes.contains { $0.contains("recorded this replica as the hub's first member") }, "\(founded.notes)")
        let members = try #require(try await HubMembers.load(from: FolderHubStorage(root: hub)).members)
        #expect(members.current.keys.sorted() == [laptop.replicaID])
        #expect(members.current[laptop.replicaID]?.key == (try laptop.publicKey()))
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        try phone.put(["by": "phone"], entity: Self.notes, id: id("r1"))
        let stranger = try await sync(phone, hub)
        #expect(stranger.notes.contains { $0.contains("is not a member of the hub") && $0.contains("ferry hub members add") }, "\(stranger.notes)")
        return (hub, laptop, phone)
    }

    /// Two replicas writing to a new hub at the same moment: entry 1 is written create-only, so
    /// the one that comes second takes the other's list and is told it is not a member.
    @Test func twoReplicasFoundingAtOnceLeaveOneFirstMemberAndTellTheOther() async throws {
        let directory = try TemporaryDirectory()
        let hub = directory.subpath("hub")
        let storage = FolderHubStorage(root: hub)
        let descriptor = try await Hub.create(in: storage)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        // The laptop founded the list after the phone listed the hub (and saw no list).
        var phoneMembership = HubMembership(cachePath: nil)
        try await phoneMembership.refresh(listed: try await storage.list(prefix: "h"), storage: storage, hub: descriptor.id)
        #expect(phoneMembership.members == nil)
        var laptopMembership = HubMembership(cachePath: nil)
        try await laptopMembership.foundIfNew(
            as: laptop.replicaID, name: "laptop", signer: try laptop.signingKey(), publishing: true, otherHeads: 0, storage: storage, hub: descriptor.id, at: 1)
        try await phoneMembership.foundIfNew(
            as: phone.replicaID, name: "phone", signer: try phone.signingKey(), publishing: true, otherHeads: 0, storage: storage, hub: descriptor.id, at: 2)
        #expect(phoneMembership.members?.current.keys.sorted() == [laptop.replicaID])
        #expect(phoneMembership.notes.contains { $0.contains("at the same moment") && $0.contains(phone.replicaID.rawValue) }, "\(phoneMembership.notes)")
        let members = try #require(try await HubMembers.load(from: storage).members)
        #expect(members.entries.count == 1 && members.current.keys.sorted() == [laptop.replicaID])
    }

    @Test func aHubOpenedToAnyWriterFoundsNoListAndAnOldHubWithOtherWritersStaysOpenWithANote() async throws {
        let directory = try TemporaryDirectory()
        let open = directory.subpath("open")
        try await Hub.create(in: FolderHubStorage(root: open), openToAnyWriter: true)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        try laptop.put(["by": "laptop"], entity: Self.notes, id: id("r0"))
        try phone.put(["by": "phone"], entity: Self.notes, id: id("r1"))
        _ = try await sync(laptop, open)
        _ = try await sync(phone, open)
        #expect(try await sync(laptop, open).pulled == 1)
        #expect(try await HubMembers.load(from: FolderHubStorage(root: open)).members == nil)

        // A hub written by two replicas before members existed: neither founds a list by itself.
        let old = directory.subpath("old")
        try await Hub.create(in: FolderHubStorage(root: old), openToAnyWriter: true)
        _ = try await sync(laptop, old)
        _ = try await sync(phone, old)
        let descriptor = try HubDescriptor(bytes: try FileSystem.readFile(old + "/hub.json"), location: old)
        var legacy = descriptor
        legacy.isOpenToAnyWriter = false
        try FileSystem.writeFileAtomically(old + "/hub.json", legacy.bytes, durable: false)
        try phone.put(["by": "phone", "n": 2], entity: Self.notes, id: id("r1"))
        let report = try await sync(phone, old)
        #expect(report.notes.contains { $0.contains("has no members list") }, "\(report.notes)")
        #expect(try await HubMembers.load(from: FolderHubStorage(root: old)).members == nil)
        #expect(try await sync(laptop, old).pulled == 1)
    }

    @Test func aNonMembersSegmentIsRefusedNamingTheReplicaAndTheObject() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, phone) = try await hubWithAStranger(directory)
        let before = laptop.headSequence
        do {
            _ = try await sync(laptop, hub)
            Issue.record("a non-member's segment was taken")
        } catch {
            guard case SyncError.hub(.notAMember(_, let replica, let key)) = error else { throw error }
            #expect(replica == phone.replicaID)
            #expect(key.hasPrefix("segments/") && key.contains(phone.replicaID.rawValue), "\(key)")
            #expect("\(error)".contains("--trust-new") && "\(error)".contains("ferry hub members add"), "\(error)")
        }
        #expect(laptop.headSequence == before)
        #expect(try laptop.get(entity: Self.notes, id: id("r1")) == nil)
    }

    /// A member's snapshot covers members' work only: a stranger's segments are left out (and
    /// left alone), so a replica joining from the snapshot never takes them on the member's word.
    @Test func compactionLeavesANonMembersSegmentsOutOfTheSnapshot() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, phone) = try await hubWithAStranger(directory)
        var compactor = HubCompactor(storage: FolderHubStorage(root: hub))
        try compactor.sign(as: laptop)
        let report = try await compactor.compact()
        #expect(report.records == 1 && report.wroteSnapshot)
        #expect(report.notes.contains { $0.contains("replica \(phone.replicaID) is not a member") }, "\(report.notes)")
        #expect(try folderContents(hub).keys.contains { $0.hasPrefix("segments/\(phone.replicaID)") }, "its segments are left alone")
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        do { _ = try await sync(desk, hub) } catch {
            guard case SyncError.hub(.notAMember) = error else { throw error }
        }
        #expect(try desk.get(entity: Self.notes, id: id("r1")) == nil)
    }

    @Test func trustNewAdmitsTheReplicaAndAddsItToTheMembers() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, phone) = try await hubWithAStranger(directory)
        let report = try await sync(laptop, hub, trustNew: true)
        #expect(report.pulled == 1)
        #expect(try laptop.get(entity: Self.notes, id: id("r1")) == ["by": "phone"])
        #expect(report.notes.contains { $0.contains("trusted replica \(phone.replicaID)") }, "\(report.notes)")
        let members = try #require(try await HubMembers.load(from: FolderHubStorage(root: hub)).members)
        let phoneKey = try phone.publicKey()
        #expect(members.current[phone.replicaID]?.key == phoneKey)
        // From then on it is a member: its next work comes in with no flag.
        try phone.put(["by": "phone", "n": 2], entity: Self.notes, id: id("r1"))
        _ = try await sync(phone, hub)
        #expect(try await sync(laptop, hub).pulled == 1)
    }

    @Test func removingAMemberKeepsItsPastWorkAndRefusesItsNewWork() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, phone) = try await hubWithAStranger(directory)
        let storage = FolderHubStorage(root: hub)
        _ = try await HubMembers.change(.add, replica: phone.replicaID, key: nil, name: nil, in: storage, as: laptop)
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        _ = try await HubMembers.change(.add, replica: desk.replicaID, key: try desk.publicKey(), name: "desk", in: storage, as: laptop)
        let removed = try await HubMembers.change(.remove, replica: phone.replicaID, key: nil, name: nil, in: storage, as: laptop)
        #expect(removed.members[phone.replicaID]?.removed?.segments == 1)
        try phone.put(["by": "phone", "after": "removal"], entity: Self.notes, id: id("r2"))
        _ = try await sync(phone, hub)

        let report = try await sync(desk, hub)
        #expect(try desk.get(entity: Self.notes, id: id("r1")) == ["by": "phone"], "its past work stays")
        #expect(try desk.get(entity: Self.notes, id: id("r2")) == nil, "its new work is refused")
        #expect(report.notes.contains { $0.contains("after it was removed") && $0.contains(phone.replicaID.rawValue) }, "\(report.notes)")
    }

    @Test func aDeletedMembersListIsAWarningAndTheAcceptedListStays() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, phone) = try await hubWithAStranger(directory)
        _ = try? await sync(laptop, hub)  // refused (phone), but the list is accepted and kept
        try FileManager.default.removeItem(atPath: hub + "/hub-members")
        do {
            _ = try await sync(laptop, hub)
            Issue.record("deleting the members list opened the hub")
        } catch {
            guard case SyncError.hub(.notAMember(_, let replica, _)) = error else { throw error }
            #expect(replica == phone.replicaID)
        }
        #expect(try laptop.get(entity: Self.notes, id: id("r1")) == nil)
    }

    @Test func onAHubWithMembersOnlyAMembersSignedSnapshotIsWrittenAndTaken() async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, phone) = try await hubWithAStranger(directory)
        let storage = FolderHubStorage(root: hub)
        // Unsigned, or signed by a stranger: refused before anything is written.
        await #expect(throws: HubError.self) { _ = try await HubCompactor(storage: storage).compact() }
        var byStranger = HubCompactor(storage: storage)
        try byStranger.sign(as: phone)
        await #expect(throws: HubError.self) { _ = try await byStranger.compact() }
        let written = (try? FileManager.default.contentsOfDirectory(atPath: hub + "/hub-snapshots")) ?? []
        #expect(written.isEmpty, "no snapshot was written")

        // A co-writer strips a member's signature: a joiner refuses the snapshot.
        _ = try await sync(laptop, hub, trustNew: true)
        var byMember = HubCompactor(storage: storage)
        try byMember.sign(as: laptop)
        #expect(try await byMember.compact().wroteSnapshot)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: hub + "/hub-snapshots").first)
        let oldID = try #require(HubSnapshot.id(ofManifestKey: "hub-snapshots/" + name))
        var manifest = try #require(try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: hub + "/hub-snapshots/" + name)))).objectValue)
        manifest["signer"] = nil
        manifest["sig"] = nil
        let bytes = JSONValue.object(manifest).canonicalBytes() + [UInt8(ascii: "\n")]
        let newID = SHA256.hash(bytes)
        try FileManager.default.moveItem(atPath: hub + "/snapshots/" + oldID.hex, toPath: hub + "/snapshots/" + newID.hex)
        try FileManager.default.removeItem(atPath: hub + "/hub-snapshots/" + name)
        try Data(bytes).write(to: URL(fileURLWithPath: hub + "/" + HubSnapshot.manifestKey(newID)))
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        do {
            _ = try await sync(desk, hub)
            Issue.record("an unsigned snapshot was taken on a hub with members")
        } catch {
            guard case SyncError.hub(.snapshotRefused(_, _, let reason)) = error else { throw error }
            #expect(reason.contains("not signed, and this hub has members"), "\(reason)")
        }
        #expect(desk.headSequence == 0)
    }
}

extension HubMembersTests {
    /// A hub made with a founder (`ferry hub init --store`) records the founder as its first
    /// member: a second replica's work is refused, naming it, until a member adds it.
    @Test func aNewHubsSecondReplicaIsRefusedUntilAdded() async throws {
        let directory = try TemporaryDirectory()
        let hub = directory.subpath("hub")
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        try await Hub.create(in: FolderHubStorage(root: hub), founder: laptop)
        let (_, members) = try await HubMembers.load(from: FolderHubStorage(root: hub))
        #expect(members?.current.keys.sorted() == [laptop.replicaID])
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        try phone.put(["by": "phone"], entity: Self.notes, id: id("r1"))
        _ = try await sync(phone, hub)
        do {
            _ = try await sync(laptop, hub)
            Issue.record("a replica that is not a member was read")
        } catch {
            guard case SyncError.hub(.notAMember(_, let replica, _)) = error else { throw error }
            #expect(replica == phone.replicaID)
        }
        #expect(try laptop.get(entity: Self.notes, id: id("r1")) == nil)
        _ = try await HubMembers.change(.add, replica: phone.replicaID, key: try phone.signingKey().publicKey, name: "phone", in: FolderHubStorage(root: hub), as: laptop)
        _ = try await sync(laptop, hub)
        #expect(try laptop.get(entity: Self.notes, id: id("r1")) == ["by": "phone"])
    }
}
