import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// `hub compact` and snapshots: a new replica joins at the cost of the state, segments go only
/// once every recent replica has read them, a replica away past the window re-joins from the
/// snapshot without resurrecting a deletion, and a join stopped half way is finished, not lost.
@Suite struct HubCompactionTests {
    static let notes = try! EntityName("Note")
    static let day: UInt64 = 86_400_000

    func makeHub(_ directory: TemporaryDirectory, _ kind: HubUnderTest = .plain) async throws -> String {
        let path = directory.subpath("hub")
        try await kind.create(in: FolderHubStorage(root: path))
        return path
    }

    func sync(_ store: Store, _ storage: any HubStorage, at clock: any WallClock = SystemClock()) async throws -> SyncReport {
        try await store.sync(with: HubUnderTest.transport(storage, clock: clock), options: SyncOptions())
    }

    func sync(_ store: Store, _ hub: String, at clock: any WallClock = SystemClock()) async throws -> SyncReport {
        try await sync(store, FolderHubStorage(root: hub), at: clock)
    }

    func compact(_ hub: String, now: UInt64? = nil, partLimit: Int = 10_000) async throws -> HubCompactor.Report {
        var compactor = HubCompactor(storage: HubUnderTest.opened(FolderHubStorage(root: hub)), clock: ManualClock(milliseconds: now ?? SystemClock().milliseconds()))
        compactor.partChangeLimit = partLimit
        return try await compactor.compact()
    }

    func id(_ text: String) -> RecordID { try! RecordID(text) }
    func key(_ text: String) -> RecordKey { RecordKey(entity: Self.notes, id: id(text)) }

    /// 40 records, each written 5 times, 8 of them then deleted.
    func writeHistory(_ store: Store) throws {
        for round in 0..<5 {
            for n in 0..<40 { try store.put(["n": .integer(Int64(n)), "round": .integer(Int64(round))], entity: Self.notes, id: id("r\(n)")) }
        }
        for n in 0..<8 { try store.delete(entity: Self.notes, id: id("r\(n)")) }
    }

    func segmentFiles(_ hub: String) throws -> [String] {
        try folderContents(hub + "/segments").keys.filter { $0.hasSuffix(".seg") }
    }

    @Test(arguments: HubUnderTest.allCases) func aNewReplicaJoinsFromTheSnapshotAtTheCostOfTheState(_ kind: HubUnderTest) async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory, kind)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        try writeHistory(laptop)
        _ = try await sync(laptop, hub)
        _ = try await sync(phone, hub)
        #expect(try segmentFiles(hub).count == 1)

        let report = try await compact(hub, partLimit: 7)
        #expect(report.wroteSnapshot)
        #expect(report.records == 40 && report.versions == 40, "one version per record, tombstones included")
        #expect(report.deletedSegments == 1, "both replicas have read the only segment")
        #expect(try segmentFiles(hub).isEmpty)
        #expect(try await HubVerifier(storage: HubUnderTest.opened(FolderHubStorage(root: hub))).verify().isClean)

        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        let joined = try await sync(desk, hub)
        #expect(joined.snapshot?.reason == .join)
        #expect(joined.snapshot?.recordCount == 40)
        #expect(try ReplicaState(desk) == ReplicaState(laptop))
        #expect(desk.headSequence == 40, "the state (40 versions), not the history (208 changes)")
        #expect(desk.recordCount == 32)
        let base = try #require(try desk.snapshotJoins())
        #expect(base.pending == nil && base.joins.count == 1 && base.frontier.knowledge == laptop.knowledge)
        #expect(desk.knowledge == laptop.knowledge)
        #expect(try StoreVerifier(path: desk.path).verify().isClean)

        // It goes on like any replica: nothing to do, then its edits reach the others.
        let again = try await sync(desk, hub)
        #expect(again.pulled == 0 && again.pushed == 0 && again.snapshot == nil)
        try desk.put(["by": "desk"], entity: Self.notes, id: id("r20"))
        try desk.delete(entity: Self.notes, id: id("r21"))
        _ = try await sync(desk, hub)
        _ = try await sync(laptop, hub)
        _ = try await sync(phone, hub)
        #expect(try ReplicaState(laptop) == ReplicaState(desk))
        #expect(try ReplicaState(phone) == ReplicaState(desk))
        #expect(try laptop.get(entity: Self.notes, id: id("r20")) == ["by": "desk"])
        // Reopened (index rebuilt from its journal), it still knows what the base says.
        try FileManager.default.removeItem(atPath: desk.path + "/.ferry/index")
        let reopened = try Store.open(at: desk.path)
        #expect(reopened.knowledge == desk.knowledge)
        #expect(try await sync(reopened, hub).pulled == 0)
    }

    /// The proof before a join keeps the parts it decoded, up to a budget, and the join takes
    /// them from it: a budget that keeps none, some or all of the parts gives the same store.
    @Test(arguments: HubUnderTest.allCases, [0, 1_500, 1 << 20])
    func aJoinTakesThePartsTheProofKeptAndReadsTheRest(_ kind: HubUnderTest, budget: Int) async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory, kind)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        try writeHistory(laptop)
        _ = try await sync(laptop, hub)
        #expect(try await compact(hub, partLimit: 7).wroteSnapshot)
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        let transport = HubUnderTest.transport(FolderHubStorage(root: hub))
        transport.snapshotBytesKeptForJoin = budget
        let joined = try await desk.sync(with: transport, options: SyncOptions())
        #expect(joined.snapshot?.reason == .join && joined.pulled == 40, "\(joined)")
        #expect(try ReplicaState(desk) == ReplicaState(laptop))
        #expect(desk.headSequence == 40)
        #expect(try StoreVerifier(path: desk.path).verify().isClean)
    }

    @Test(arguments: HubUnderTest.allCases) func segmentsStayUntilEveryRecentReplicaHasReadThem(_ kind: HubUnderTest) async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory, kind)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        try phone.put(["by": "phone"], entity: Self.notes, id: id("p"))
        _ = try await sync(phone, hub)  // seen now, has read nothing of the laptop's
        try writeHistory(laptop)
        _ = try await sync(laptop, hub)

        let first = try await compact(hub)
        #expect(first.wroteSnapshot && first.deletedSegments == 1, "the phone's segment: the laptop has read it")
        #expect(first.waitingFor.map(\.name) == ["phone"])
        #expect(try segmentFiles(hub).count == 1)

        // The phone reads the segment (not the snapshot: it is cheaper), then it may go.
        let read = try await sync(phone, hub)
        #expect(read.snapshot == nil && read.pulled == 208)
        let second = try await compact(hub)
        #expect(!second.wroteSnapshot, "nothing new to cover: the same snapshot")
        #expect(second.deletedSegments == 1 && second.waitingFor.isEmpty)
        #expect(try ReplicaState(phone) == ReplicaState(laptop))
    }

    @Test(arguments: HubUnderTest.allCases) func aReplicaAwayPastTheWindowRejoinsWithoutResurrectingADeletion(_ kind: HubUnderTest) async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory, kind)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let stick = try Store.create(at: directory.subpath("stick"), name: "stick")
        for name in ["keep", "gone", "edited"] { try laptop.put(["v": 1], entity: Self.notes, id: id(name)) }
        _ = try await sync(laptop, hub)
        _ = try await sync(stick, hub)
        #expect(stick.recordCount == 3)

        // The stick goes away; meanwhile the laptop deletes one record and edits another.
        try laptop.delete(entity: Self.notes, id: id("gone"))
        try laptop.put(["v": 2], entity: Self.notes, id: id("edited"))
        _ = try await sync(laptop, hub)
        try stick.put(["offline": true], entity: Self.notes, id: id("new"))
        try stick.put(["v": 3, "by": "stick"], entity: Self.notes, id: id("keep"))

        // 31 days later the laptop syncs again, then compaction does not wait for the stick.
        let later = SystemClock().milliseconds() + 31 * Self.day
        _ = try await sync(laptop, hub, at: ManualClock(milliseconds: later))
        let report = try await compact(hub, now: later)
        #expect(report.away.map(\.name) == ["stick"])
        #expect(report.waitingFor.isEmpty)
        #expect(report.deletedSegments == 2)

        let back = try await sync(stick, hub)
        guard case .collected = back.snapshot?.reason else {
            Issue.record("expected a re-join from the snapshot, got \(String(describing: back.snapshot))")
            return
        }
        #expect(back.notes.contains { $0.contains("collected by 'ferry hub compact' while it was away") })
        #expect(try stick.get(entity: Self.notes, id: id("gone")) == nil, "the deletion holds")
        #expect(try stick.get(entity: Self.notes, id: id("edited")) == ["v": 2])
        #expect(try stick.get(entity: Self.notes, id: id("keep")) == ["v": 3, "by": "stick"])
        #expect(back.pushed == 2, "its own offline changes go out")
        _ = try await sync(laptop, hub)
        #expect(try laptop.get(entity: Self.notes, id: id("gone")) == nil, "nothing resurrected")
        #expect(try laptop.get(entity: Self.notes, id: id("new")) == ["offline": true])
        #expect(try ReplicaState(laptop) == ReplicaState(stick))
        #expect(try StoreVerifier(path: stick.path).verify().isClean)
        #expect(try await HubVerifier(storage: HubUnderTest.opened(FolderHubStorage(root: hub))).verify().isClean)
    }

    /// Plain only: it hides a part by its plain name.
    @Test(arguments: [HubUnderTest.plain]) func aJoinStoppedHalfWayIsFinishedByThatHubAndNothingElse(_ kind: HubUnderTest) async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory, kind)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        try writeHistory(laptop)
        _ = try await sync(laptop, hub)
        _ = try await compact(hub, partLimit: 10)

        // Part 3 of 4 vanishes once the snapshot was proven: the join stops after two parts.
        // (The proof keeps no part for the join here, so the join reads them all again.)
        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        let flaky = HubUnderTest.transport(HidingHubStorage(root: hub, hiding: "/0003-", afterReads: 1))
        flaky.snapshotBytesKeptForJoin = 0
        await #expect(throws: SyncError.self) { try await desk.sync(with: flaky, options: SyncOptions()) }
        #expect(desk.headSequence == 20)
        #expect(try desk.snapshotJoins()?.pending != nil)

        // Nothing else may sync with it meanwhile: its counters have gaps.
        let other = try Store.create(at: directory.subpath("other"), name: "other")
        do {
            _ = try await other.sync(with: FolderTransport(path: desk.path))
            Issue.record("a store half way through a join was synced with")
        } catch {
            guard case .joinInProgress = error else { throw error }
        }
        await #expect(throws: SyncError.self) { try await desk.sync(with: FolderTransport(path: other.path)) }

        // Every snapshot removed by hand: the join cannot finish, and says how to go on.
        let snapshots = try folderContents(hub + "/hub-snapshots")
        try FileManager.default.moveItem(atPath: hub + "/hub-snapshots", toPath: directory.subpath("aside"))
        do {
            _ = try await sync(desk, hub)
            Issue.record("a join went on without its snapshot")
        } catch {
            #expect("\(error)".contains("is no longer in the hub") && "\(error)".contains("ferry hub compact"), "\(error)")
        }
        try FileManager.default.moveItem(atPath: directory.subpath("aside"), toPath: hub + "/hub-snapshots")
        #expect(try folderContents(hub + "/hub-snapshots") == snapshots)

        let finished = try await sync(desk, hub)
        #expect(finished.snapshot?.reason == .resume)
        #expect(try desk.snapshotJoins()?.pending == nil)
        #expect(try ReplicaState(desk) == ReplicaState(laptop))
        #expect(desk.headSequence == 40, "the two parts already taken are not taken again")
        #expect(try StoreVerifier(path: desk.path).verify().isClean)
    }

    @Test(arguments: HubUnderTest.allCases) func aJoinReadsTheSnapshotThenOnlyTheSegmentsAfterIt(_ kind: HubUnderTest) async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory, kind)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        try writeHistory(laptop)
        _ = try await sync(laptop, hub)
        _ = try await compact(hub)
        try laptop.put(["after": true], entity: Self.notes, id: id("late"))
        try laptop.delete(entity: Self.notes, id: id("r30"))
        _ = try await sync(laptop, hub)

        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        let report = try await sync(desk, hub)
        #expect(report.snapshot?.reason == .join)
        #expect(report.pulled == 40 + 2)
        #expect(try ReplicaState(desk) == ReplicaState(laptop))
        // A second compaction builds on the first and replaces it.
        let second = try await compact(hub)
        #expect(second.wroteSnapshot && second.deletedSnapshots == 1)
        #expect(try folderContents(hub + "/hub-snapshots").count == 1)
        #expect(try await HubVerifier(storage: HubUnderTest.opened(FolderHubStorage(root: hub))).verify().isClean)
        let tablet = try Store.create(at: directory.subpath("tablet"), name: "tablet")
        #expect(try await sync(tablet, hub).pulled == 41)
        #expect(try ReplicaState(tablet) == ReplicaState(laptop))
    }

    @Test(arguments: HubUnderTest.allCases) func aDryRunChangesNothingAndAnUnreadableHeadStopsCompaction(_ kind: HubUnderTest) async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory, kind)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        try writeHistory(laptop)
        _ = try await sync(laptop, hub)
        let before = try folderContents(hub)
        let dry = try await HubCompactor(storage: HubUnderTest.opened(FolderHubStorage(root: hub)), dryRun: true).compact()
        #expect(dry.dryRun && dry.records == 40 && dry.deletedSegments == 1 && !dry.wroteSnapshot)
        #expect(try folderContents(hub) == before)

        let head = hub + "/heads/" + laptop.replicaID.rawValue + ".json"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: head))
        try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: head))
        do {
            _ = try await compact(hub)
            Issue.record("compaction went on without knowing what a replica has read")
        } catch let error as HubError {
            guard case .cannotCompact = error else { throw error }
            #expect(error.description.contains("nothing was deleted"))
        }
        #expect(try segmentFiles(hub).count == 1)
    }
}

extension HubCompactionTests {
    /// Plain only: it alters a part's plain text (a sealed part altered does not open: EncryptedHubTests).
    @Test(arguments: [HubUnderTest.plain]) func verifyFindsAnAlteredPartAndASnapshotThatDropsAVersion(_ kind: HubUnderTest) async throws {
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory, kind)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        try writeHistory(laptop)
        _ = try await sync(laptop, hub)
        try phone.put(["by": "phone"], entity: Self.notes, id: id("p"))
        var pushOnly = SyncOptions()
        pushOnly.direction = .pushOnly
        _ = try await phone.sync(with: HubUnderTest.transport(FolderHubStorage(root: hub)), options: pushOnly)
        let report = try await compact(hub)  // neither has read the other's segment: both stay
        #expect(report.deletedSegments == 0 && report.records == 41)
        let snapshotID = try #require(report.snapshot)
        let storage = FolderHubStorage(root: hub)
        #expect(try await HubVerifier(storage: storage).verify().isClean)

        // A snapshot that lost one version, with its manifest and parts rewritten to match.
        let manifestBytes = try #require(try await storage.get(HubSnapshot.manifestKey(snapshotID), limit: HubSnapshot.maximumManifestByteCount)?.bytes)
        let real = try HubSnapshot(manifest: manifestBytes, id: snapshotID, location: hub)
        var versions: [Change] = []
        for part in real.parts {
            let key = HubSnapshot.partKey(snapshot: snapshotID, part: part)
            versions += try HubSnapshot.decodePart(try #require(try await storage.get(key, limit: HubSnapshot.maximumPartByteCount)?.bytes), expected: part, key: key, location: hub)
        }
        let dropped = versions.remove(at: 5)
        let encoded = HubSnapshot.encodePart(1, of: versions, limit: 1_000)
        let forged = HubSnapshot(
            hub: real.hub, covers: real.covers, frontier: real.frontier, recordCount: real.recordCount - 1, liveCount: real.liveCount,
            changeCount: versions.count, parts: [encoded.part])
        _ = try await storage.put(HubSnapshot.partKey(snapshot: forged.id, part: encoded.part), encoded.bytes, createOnly: true)
        _ = try await storage.put(HubSnapshot.manifestKey(forged.id), forged.manifestBytes, createOnly: true)
        let lost = try await HubVerifier(storage: storage).verify()
        #expect(lost.findings.contains { $0.contains("change \(dropped.identity)") && $0.contains("is missing from snapshot \(forged.id.hex.prefix(12))") },
            "\(lost.findings)")
        #expect(lost.findings.contains { $0.contains("does not match the segments it covers") }, "\(lost.findings)")
        try await storage.delete(HubSnapshot.manifestKey(forged.id))

        // One byte of a part changed.
        let partKey = HubSnapshot.partKey(snapshot: snapshotID, part: real.parts[0])
        var bytes = try #require(try await storage.get(partKey, limit: HubSnapshot.maximumPartByteCount)?.bytes)
        let index = try #require(bytes.firstIndex(of: UInt8(ascii: "r")))
        bytes[index] = UInt8(ascii: "s")
        try Data(bytes).write(to: URL(fileURLWithPath: hub + "/" + partKey))
        let altered = try await HubVerifier(storage: storage).verify()
        #expect(altered.findings.contains { $0.hasPrefix(partKey) && $0.contains("does not match its hash") }, "\(altered.findings)")
    }
}

extension HubCompactionTests {
    /// A hub, and a laptop and a stick that both hold the same ten records through it.
    func laptopAndStickInStep(_ directory: TemporaryDirectory, _ kind: HubUnderTest) async throws -> (hub: String, laptop: Store, stick: Store) {
        let hub = try await makeHub(directory, kind)
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let stick = try Store.create(at: directory.subpath("stick"), name: "stick")
        for n in 0..<10 { try laptop.put(["v": 1], entity: Self.notes, id: id("r\(n)")) }
        _ = try await sync(laptop, hub)
        _ = try await sync(stick, hub)
        return (hub, laptop, stick)
    }

    /// Away past the window while others went on: the snapshot, then the segments after it.
    @Test(arguments: HubUnderTest.allCases) func aReturningReplicaTakesTheSnapshotThenTheChangesAfterIt(_ kind: HubUnderTest) async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, stick) = try await laptopAndStickInStep(directory, kind)
        let later = SystemClock().milliseconds() + 40 * Self.day
        for n in 0..<3 { try laptop.put(["v": 2], entity: Self.notes, id: id("r\(n)")) }
        _ = try await sync(laptop, hub, at: ManualClock(milliseconds: later))
        #expect(try await compact(hub, now: later).deletedSegments == 2)
        for n in 3..<5 { try laptop.put(["v": 3], entity: Self.notes, id: id("r\(n)")) }
        _ = try await sync(laptop, hub, at: ManualClock(milliseconds: later))

        let back = try await sync(stick, hub)
        guard case .collected = back.snapshot?.reason else {
            Issue.record("expected a re-join, got \(String(describing: back.snapshot))")
            return
        }
        #expect(try ReplicaState(stick) == ReplicaState(laptop))
        #expect(try stick.get(entity: Self.notes, id: id("r4")) == ["v": 3])
        #expect(try StoreVerifier(path: stick.path).verify().isClean)
    }

    /// Plain only: it removes parts by their plain names.
    @Test(arguments: [HubUnderTest.plain]) func aSnapshotWhosePartsHaveNotArrivedIsPassedOverForTheSegments(_ kind: HubUnderTest) async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, _) = try await laptopAndStickInStep(directory, kind)
        try laptop.put(["v": 2], entity: Self.notes, id: id("r1"))
        _ = try await sync(laptop, hub)  // the stick has not read this one: it stays
        let report = try await compact(hub)
        #expect(report.wroteSnapshot && report.deletedSegments == 1)

        let desk = try Store.create(at: directory.subpath("desk"), name: "desk")
        let joined = try await sync(desk, HidingHubStorage(root: hub, hiding: "/0001-"))
        #expect(joined.snapshot == nil)
        #expect(joined.notes.contains { $0.contains("has not fully arrived") }, "\(joined.notes)")
        // The first segment is collected and the second follows it: nothing can be applied yet,
        // and nothing is mistaken for a deletion.
        #expect(desk.recordCount == 0 && joined.pulled == 0)
        #expect(joined.notes.contains { $0.contains("wait for earlier ones") }, "\(joined.notes)")
        #expect(try await sync(desk, hub).snapshot?.reason == .join)
        #expect(try ReplicaState(desk) == ReplicaState(laptop))
    }

    @Test(arguments: HubUnderTest.allCases) func aRejoinThatWouldDeleteMostRecordsIsRefusedUnlessForced(_ kind: HubUnderTest) async throws {
        let directory = try TemporaryDirectory()
        let (hub, laptop, stick) = try await laptopAndStickInStep(directory, kind)
        for n in 0..<8 { try laptop.delete(entity: Self.notes, id: id("r\(n)")) }
        var force = SyncOptions()
        force.force = true
        let later = SystemClock().milliseconds() + 40 * Self.day
        _ = try await laptop.sync(with: HubUnderTest.transport(FolderHubStorage(root: hub), clock: ManualClock(milliseconds: later)), options: force)
        _ = try await compact(hub, now: later)

        let before = try folderContents(stick.path, skipping: [".ferry/lock", ".ferry/index", ".ferry/index-delta", ".ferry/peers/hub-"])
        var strict = SyncOptions()
        strict.deletionFloor = 0  // 8 records are under the default floor
        do {
            _ = try await stick.sync(with: HubUnderTest.transport(FolderHubStorage(root: hub)), options: strict)
            Issue.record("a re-join deleting 8 of 10 records went ahead")
        } catch let error as SyncError {
            guard case .massDeletion(_, let deleting, let total, _, _) = error else { throw error }
            #expect(deleting == 8 && total == 10)
        }
        #expect(try folderContents(stick.path, skipping: [".ferry/lock", ".ferry/index", ".ferry/index-delta", ".ferry/peers/hub-"]) == before)
        _ = try await stick.sync(with: HubUnderTest.transport(FolderHubStorage(root: hub)), options: force)
        #expect(stick.recordCount == 2)
        #expect(try ReplicaState(stick) == ReplicaState(laptop))
    }
}

extension HubCompactionTests {
    /// Random edits, syncs at random times (days apart) and compactions in between: replicas
    /// away past the window re-join, and in the end every replica holds the same state.
    @Test(arguments: HubUnderTest.allCases, [UInt64(11), 12, 13, 14])
    func randomSyncsAndCompactionsOverWeeksConverge(_ kind: HubUnderTest, seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let directory = try TemporaryDirectory()
        let hub = try await makeHub(directory, kind)
        let stores = try (0..<4).map { try Store.create(at: directory.subpath("r\($0)"), name: "r\($0)") }
        var now = SystemClock().milliseconds()
        var force = SyncOptions()
        force.force = true  // a few deletes of a small store are "mass deletions"
        var rejoins = 0
        for _ in 0..<30 {
            now += UInt64.random(in: 0...(12 * Self.day), using: &random)
            let store = stores.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let recordID = id("k\(Int.random(in: 0..<12, using: &random))")
                // The random numbers drawn as before issue 55, so each seed takes the same path.
                let deleting = try Bool.random(using: &random) && store.get(entity: Self.notes, id: recordID) != nil
                let document: JSONValue = deleting ? [:] : ["v": .integer(Int64.random(in: 0...999, using: &random))]
                try store.edit(RecordKey(entity: Self.notes, id: recordID), deleting: deleting, document: document)
            }
            let report = try await store.sync(with: HubUnderTest.transport(FolderHubStorage(root: hub), clock: ManualClock(milliseconds: now)), options: force)
            if case .collected = report.snapshot?.reason { rejoins += 1 }
            if Int.random(in: 0..<4, using: &random) == 0 { _ = try await compact(hub, now: now) }
        }
        #expect(rejoins > 0, "seed \(seed): the schedule lets some replica fall past the window and re-join")
        var rounds = 0
        while rounds < 6 {
            rounds += 1
            var moved = 0
            for store in stores {
                let report = try await store.sync(with: HubUnderTest.transport(FolderHubStorage(root: hub), clock: ManualClock(milliseconds: now)), options: force)
                moved += report.pulled + report.pushed
            }
            if moved == 0 { break }
        }
        let first = try ReplicaState(stores[0])
        for store in stores.dropFirst() {
            let state = try ReplicaState(store)
            #expect(state == first, "seed \(seed), \(rejoins) re-joins: \(state.differences(from: first).prefix(5))")
        }
        for store in stores { #expect(try StoreVerifier(path: store.path).verify().isClean, "seed \(seed)") }
        let verified = try await HubVerifier(storage: HubUnderTest.opened(FolderHubStorage(root: hub))).verify()
        #expect(verified.isClean, "seed \(seed): \(verified.findings.prefix(3)) \(verified.missing.prefix(3))")
    }
}

/// A hub folder in which the objects whose key contains a given text have not arrived yet.
final class HidingHubStorage: HubStorage, @unchecked Sendable {
    let folder: FolderHubStorage
    let hiding: String
    /// Reads of a hidden key that still find it (a joiner proves a snapshot before it joins).
    private var visibleReads: Int

    init(root: String, hiding: String, afterReads: Int = 0) {
        folder = FolderHubStorage(root: root)
        self.hiding = hiding
        visibleReads = afterReads
    }

    var location: String { folder.location }
    var requestCount: Int { folder.requestCount }
    func list(prefix: String) async throws(HubError) -> [HubObject] {
        try await folder.list(prefix: prefix).filter { !$0.key.contains(hiding) }
    }
    func get(_ key: String, limit: Int) async throws(HubError) -> (bytes: [UInt8], tag: String)? {
        guard key.contains(hiding) else { return try await folder.get(key, limit: limit) }
        guard visibleReads > 0 else { return nil }
        visibleReads -= 1
        return try await folder.get(key, limit: limit)
    }
    func put(_ key: String, _ bytes: [UInt8], createOnly: Bool) async throws(HubError) -> String {
        try await folder.put(key, bytes, createOnly: createOnly)
    }
    func delete(_ key: String) async throws(HubError) { try await folder.delete(key) }
}
