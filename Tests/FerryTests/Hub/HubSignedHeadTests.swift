import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// What a co-writer of a hub (anyone who can write to its folder or bucket) can no longer pass
/// off as a replica's work: a head rewritten without the replica's key, a segment deleted from
/// under a head, a change published under another replica's identity. Each is named, never a
/// silent "pulled 0", and the owner repairs what it can at its next sync.
@Suite struct HubSignedHeadTests {
    static let notes = try! EntityName("Note")

    func makeHub(_ directory: TemporaryDirectory) async throws -> String {
        let path = directory.subpath("hub")
        try await Hub.create(in: FolderHubStorage(root: path), openToAnyWriter: true)
        return path
    }

    func makeStore(_ directory: TemporaryDirectory, _ name: String) throws -> Store {
        try Store.create(at: directory.subpath(name), name: name)
    }

    func sync(_ store: Store, _ hub: String, clock: any WallClock = SystemClock()) async throws -> SyncReport {
        try await store.sync(with: HubTransport(storage: FolderHubStorage(root: hub), clock: clock))
    }

    func put(_ store: Store, _ id: String, _ value: Int64) throws {
        _ = try store.put(["v": .integer(value)], entity: Self.notes, id: RecordID(id))
    }

    func holds(_ store: Store, _ id: String) throws -> Bool {
        try store.get(entity: Self.notes, id: RecordID(id)) != nil
    }

    /// Three stores and a hub where the victim published `records` and the co-writer read them.
    struct Scene {
        let directory: TemporaryDirectory
        let hub: String
        let victim: Store
        let cowriter: Store
        let third: Store
    }

    func scene(records: [String]) async throws -> Scene {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory)
        let scene = Scene(
            directory: directory, hub: hub, victim: try makeStore(directory, "victim"), cowriter: try makeStore(directory, "cowriter"),
            third: try makeStore(directory, "third"))
        for (index, id) in records.enumerated() { try put(scene.victim, id, Int64(index + 1)) }
        _ = try await sync(scene.victim, hub)
        _ = try await sync(scene.cowriter, hub)
        return scene
    }

    func readHead(_ hub: String, _ replica: ReplicaID) throws -> HubHead {
        let key = HubHead.key(of: replica)
        let bytes = try FileSystem.readFile(hub + "/" + key)
        return try HubHead(bytes: bytes, key: key, expected: replica, location: hub)
    }

    func write(_ bytes: [UInt8], _ hub: String, _ key: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: hub + "/" + key))
    }

    enum Forger: String, CaseIterable, CustomTestStringConvertible {
        case unsigned, otherKey
        var testDescription: String { rawValue }
    }

    /// A co-writer replaces the victim's head with one that lists no segments: the third
    /// replica is told which object was rewritten (not "pulled 0"), the co-writer keeps the copy
    /// it read before, the victim writes its head anew, and then the third replica gets its work.
    @Test(arguments: Forger.allCases)
    func forgedHeadRewriteIsNamedAndIgnored(forger: Forger) async throws {
        let scene = try await scene(records: ["a", "b"])
        let (hub, victim, cowriter, third) = (scene.hub, scene.victim, scene.cowriter, scene.third)
        #expect(try holds(cowriter, "a"))

        let empty = HubHead(replica: victim.replicaID, name: "victim", updated: SystemClock().milliseconds())
        let forged = forger == .unsigned ? empty.unsigned : empty.signed(with: try cowriter.signingKey())
        let key = HubHead.key(of: victim.replicaID)
        try write(forged.bytes, hub, key)

        let first = try await sync(third, hub)
        let named = first.notes.filter { $0.contains("\(key) was rewritten by someone without replica \(victim.replicaID.short)'s key") }
        #expect(named.count == 1, "\(first.notes)")
        #expect(named.first?.contains("cannot be read until it syncs again") == true, "\(first.notes)")
        #expect(try !holds(third, "a"))

        // One that read the head before keeps using what it read.
        try put(cowriter, "c", 3)
        let cowriting = try await sync(cowriter, hub)
        #expect(cowriting.notes.contains { $0.contains("\(key) was rewritten") && $0.contains("the copy read at the last sync is used") })

        // The victim notices its own head was rewritten, and writes it anew.
        let repair = try await sync(victim, hub)
        #expect(repair.notes.contains { $0.contains("\(key) was rewritten") && $0.contains("this replica writes its own anew") }, "\(repair.notes)")
        #expect(try readHead(hub, victim.replicaID).segments.count == 1)
        #expect(try holds(victim, "c"))

        let after = try await sync(third, hub)
        #expect(!after.notes.contains { $0.contains("was rewritten") }, "\(after.notes)")
        #expect(try holds(third, "a") && holds(third, "b") && holds(third, "c"))
    }

    /// A segment deleted from under a signed head: past a cloud drive's late arrival it is
    /// named as missing, the reader's head reports it, the owner writes its changes again at
    /// its next sync, and the reader then gets them; `verify` names it until then.
    @Test func deletedSegmentIsRepublishedByItsOwner() async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory)
        let owner = try makeStore(directory, "owner")
        let reader = try makeStore(directory, "reader")
        try put(owner, "a", 1)
        try put(owner, "b", 2)
        _ = try await sync(owner, hub)
        let head = try readHead(hub, owner.replicaID)
        let segmentKey = try head.key(of: #require(head.segments.first))
        try FileManager.default.removeItem(atPath: hub + "/" + segmentKey)

        // Soon after: late, not missing (a cloud drive may show the head first).
        let early = try await sync(reader, hub)
        #expect(early.notes.contains { $0.contains("has not arrived yet") }, "\(early.notes)")
        #expect(try readHead(hub, reader.replicaID).missing.isEmpty)

        let later = OffsetClock(offsetMilliseconds: Int64(HubTransport.lateArrivalMilliseconds) + 60_000)
        let missing = try await sync(reader, hub, clock: later)
        #expect(missing.notes.contains { $0.contains("\(segmentKey), listed by replica \(owner.replicaID.short)'s head, is missing from the hub") }, "\(missing.notes)")
        #expect(try readHead(hub, reader.replicaID).missing == [owner.replicaID: [1]])
        let verified = try await HubVerifier(storage: FolderHubStorage(root: hub)).verify()
        #expect(verified.missing == [segmentKey])

        let republish = try await sync(owner, hub)
        #expect(republish.notes.contains { $0.contains("\(segmentKey) was deleted from the hub") && $0.contains("written again as segment 2") }, "\(republish.notes)")
        let republished = try readHead(hub, owner.replicaID)
        #expect(republished.segments.count == 2 && republished.segments.last?.republishes == 1)

        let caughtUp = try await sync(reader, hub, clock: later)
        #expect(caughtUp.pulled == 2, "\(caughtUp.notes)")
        #expect(try holds(reader, "a") && holds(reader, "b"))
        #expect(try readHead(hub, reader.replicaID).missing.isEmpty)
        let clean = try await HubVerifier(storage: FolderHubStorage(root: hub)).verify()
        #expect(clean.missing.isEmpty && clean.findings.isEmpty, "\(clean.findings) \(clean.missing)")
    }

    /// A replica made before heads were signed (a random id, no key) writes unsigned heads: they
    /// still sync, and `verify` says they cannot be proven.
    @Test func unsignedHeadsOfALegacyReplicaStillSyncAndVerifySaysSo() async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory)
        let legacy = MemoryReplica(name: "legacy")
        #expect(!legacy.replicaID.isKeyDerived)
        try legacy.put(["v": 1], entity: Self.notes, id: RecordID("old"))
        _ = try await SyncEngine(replica: legacy, transport: HubTransport(folder: hub)).run()
        #expect(try readHead(hub, legacy.replicaID).signature == .unsigned)

        let store = try makeStore(directory, "store")
        let report = try await sync(store, hub)
        #expect(report.pulled == 1)
        #expect(!report.notes.contains { $0.contains("was rewritten") }, "\(report.notes)")
        #expect(try holds(store, "old"))
        #expect(try readHead(hub, store.replicaID).signature == .valid(try store.publicKey()))

        let verified = try await HubVerifier(storage: FolderHubStorage(root: hub)).verify()
        #expect(verified.findings.isEmpty, "\(verified.findings)")
        #expect(verified.unsigned == [HubHead.key(of: legacy.replicaID)])
        #expect(verified.unprovable.contains { $0.contains(HubHead.key(of: legacy.replicaID)) && $0.contains("not signed") })
        #expect(verified.unprovable.contains { $0.hasPrefix("replica \(legacy.replicaID.short)'s changes through 1 are not signed") }, "\(verified.unprovable)")
        let status = try await Hub.status(of: FolderHubStorage(root: hub))
        #expect(status.replicas.first { $0.replica == legacy.replicaID }?.isSigned == false)
        #expect(status.replicas.first { $0.replica == store.replicaID }?.isSigned == true)
        #expect(status.rewritten.isEmpty)
    }

    /// `verify` and `hub status` name a head signed by a key that is not its replica's.
    @Test func verifyAndStatusNameABadlySignedHead() async throws {
        let scene = try await scene(records: ["a"])
        let (hub, victim, cowriter) = (scene.hub, scene.victim, scene.cowriter)
        var forged = try readHead(hub, victim.replicaID)
        forged.segments = []
        try write(forged.signed(with: try cowriter.signingKey()).bytes, hub, HubHead.key(of: victim.replicaID))
        let verified = try await HubVerifier(storage: FolderHubStorage(root: hub)).verify()
        let key = HubHead.key(of: victim.replicaID)
        #expect(verified.findings.contains { $0.hasPrefix("\(key): rewritten by someone without replica \(victim.replicaID.short)'s key") }, "\(verified.findings)")
        #expect(verified.unsigned.isEmpty)
        let status = try await Hub.status(of: FolderHubStorage(root: hub))
        #expect(status.rewritten.count == 1 && status.rewritten.first?.hasPrefix("\(key): rewritten by someone without") == true, "\(status.rewritten)")
        #expect(status.replicas.map(\.replica) == [cowriter.replicaID])
    }

    /// A co-writer publishes the victim's next change in a segment of its own, its own head
    /// properly signed: the victim is told someone else published under its identity, naming
    /// the segment; a third replica refuses it as unsigned work. The forged version is never applied.
    @Test func changeUnderAnotherReplicasIdentityIsRefused() async throws {
        let scene = try await scene(records: ["a"])
        let (hub, victim, cowriter, third) = (scene.hub, scene.victim, scene.cowriter, scene.third)

        let last = try #require(victim.changes(after: 0, excluding: VersionVector(), limit: 100).changes.last)
        var forged = Change(
            origin: victim.replicaID, counter: last.counter + 1, timestamp: last.timestamp, key: last.key,
            operation: .put(["v": 666]), version: VersionVector([victim.replicaID: last.counter + 1]))
        forged.chain = ChangeChain(forged, parent: last.digest)
        let segmentKey = try publish(forged, as: cowriter, in: hub)

        do {
            _ = try await sync(victim, hub)
            Issue.record("the victim took a change it never made")
        } catch {
            guard let error = error as? SyncError, case .impersonated = error else { throw error }
            #expect(error.description.contains("someone else published a change under this store's identity"))
            #expect(error.description.contains(segmentKey), "\(error)")
        }
        do {
            _ = try await sync(third, hub)
            Issue.record("a third replica took the forged change")
        } catch {
            guard let error = error as? SyncError, case .unsignedWork(_, let origin, let counter, _) = error else { throw error }
            #expect(origin == victim.replicaID && counter == last.counter + 1)
        }
        #expect(try victim.get(entity: Self.notes, id: RecordID("a")) == ["v": 1])
        #expect(try third.get(entity: Self.notes, id: RecordID("a")) != ["v": 666])
        let verified = try await HubVerifier(storage: FolderHubStorage(root: hub)).verify()
        #expect(verified.findings.contains { $0.hasPrefix("\(segmentKey) line 2: change \(forged.identity)") && $0.contains("is not signed") }, "\(verified.findings)")
    }
    /// Publishes `forged` in a new segment of the co-writer's own (its head signed by its own key).
    func publish(_ forged: Change, as cowriter: Store, in hub: String) throws -> String {
        var head = try readHead(hub, cowriter.replicaID)
        let encoded = HubSegment.encode(
            [forged], replica: cowriter.replicaID, number: UInt64(head.segments.count + 1), previous: head.segments.last?.hash ?? .zero)
        let segmentKey = head.key(of: encoded.segment)
        try FileManager.default.createDirectory(atPath: hub + "/segments/" + cowriter.replicaID.rawValue, withIntermediateDirectories: true)
        try write(encoded.bytes, hub, segmentKey)
        head.segments.append(encoded.segment)
        try write(head.signed(with: try cowriter.signingKey()).bytes, hub, HubHead.key(of: cowriter.replicaID))
        return segmentKey
    }

    /// Compaction signs the state it snapshots, so it checks what it covers as a sync checks a
    /// pull: a change under another replica's identity, a change that names no parent, and a
    /// head rewritten without its replica's key each stop it, named, with nothing deleted.
    @Test func compactionNeverSignsWorkItsOriginDidNotSign() async throws {
        let scene = try await scene(records: ["a", "b"])
        let (hub, victim, cowriter) = (scene.hub, scene.victim, scene.cowriter)
        let storage = FolderHubStorage(root: hub)
        let last = try #require(victim.changes(after: 0, excluding: VersionVector(), limit: 100).changes.last)
        func forge(parent: SHA256Digest) -> Change {
            var forged = Change(
                origin: victim.replicaID, counter: last.counter + 1, timestamp: last.timestamp, key: last.key,
                operation: .put(["v": 666]), version: VersionVector([victim.replicaID: last.counter + 1]))
            forged.chain = ChangeChain(forged, parent: parent)
            return forged
        }
        func compact() async throws -> HubError? {
            var compactor = HubCompactor(storage: storage)
            try compactor.sign(as: scene.third)
            do { _ = try await compactor.compact() } catch { return error }
            return nil
        }

        // Under the victim's identity, not signed by it.
        let before = try folderContents(hub)
        let segmentKey = try publish(forge(parent: last.digest), as: cowriter, in: hub)
        let unsigned = try #require(try await compact())
        #expect("\(unsigned)".contains("replica \(victim.replicaID)") && "\(unsigned)".contains("nothing was deleted"), "\(unsigned)")
        let others = { (key: String) in !key.hasPrefix("segments/\(cowriter.replicaID)") && !key.hasPrefix("heads/\(cowriter.replicaID)") }
        #expect(try folderContents(hub).filter { others($0.key) } == before.filter { others($0.key) }, "nothing was written or deleted")
        try FileManager.default.removeItem(atPath: hub + "/" + segmentKey)

        // A change past the first that names no parent.
        let orphanKey = try publishReplacing(forge(parent: .zero), as: cowriter, in: hub)
        let orphan = try #require(try await compact())
        #expect("\(orphan)".contains("names no parent") && "\(orphan)".contains(orphanKey), "\(orphan)")
        try FileManager.default.removeItem(atPath: hub + "/" + orphanKey)
        try restoreHead(of: cowriter, in: hub)

        // The victim's head rewritten by someone without its key.
        var head = try readHead(hub, victim.replicaID)
        head.recordCount = 99
        try write(head.unsigned.bytes, hub, HubHead.key(of: victim.replicaID))
        let rewritten = try #require(try await compact())
        #expect("\(rewritten)".contains(HubHead.key(of: victim.replicaID)) && "\(rewritten)".contains("rewritten by someone without"), "\(rewritten)")
        #expect(try folderContents(hub).keys.contains { $0.hasPrefix("segments/\(victim.replicaID)") })

        // Once the victim writes its head anew, compaction goes on.
        _ = try await sync(victim, hub)
        #expect(try await compact() == nil)
    }

    /// Like ``publish(_:as:in:)``, replacing the co-writer's last segment in its head.
    func publishReplacing(_ forged: Change, as cowriter: Store, in hub: String) throws -> String {
        try restoreHead(of: cowriter, in: hub)
        return try publish(forged, as: cowriter, in: hub)
    }

    /// Drops the co-writer's last (forged) segment from its head.
    func restoreHead(of cowriter: Store, in hub: String) throws {
        var head = try readHead(hub, cowriter.replicaID)
        head.segments.removeLast()
        try write(head.signed(with: try cowriter.signingKey()).bytes, hub, HubHead.key(of: cowriter.replicaID))
    }
}
