import Ferry
import FerryTestSupport
import FerryURLSession
import Foundation
import Testing

/// PocketBase through the one sync engine (``BackendPeer``): what only that makes possible for
/// a backend: a dry run, one-way syncs, and rounds driven by deferred pushes.
@Suite(.serialized) struct BackendPeerTests {
    typealias Fixture = PocketBaseSyncTests.Fixture
    static let note = PocketBaseSyncTests.note

    /// The server's live records as Ferry documents (title and rank), by Ferry id.
    static func serverDocuments(_ fixture: Fixture) async throws -> [String: JSONValue] {
        var documents: [String: JSONValue] = [:]
        for (id, record) in try await fixture.serverRecords() where record["ferry_deleted"] != true {
            var document: [String: JSONValue] = [:]
            if let title = record["title"], title != "" { document["title"] = title }
            if let rank = record["rank"], rank != 0 { document["rank"] = rank }
            documents[id] = .object(document)
        }
        return documents
    }

    /// A laptop store whose note n1 ("one", rank 1) reached the backend, where the web client
    /// then set its rank to 5.
    static func laptopWithAWebEdit(_ fixture: Fixture) async throws -> Store {
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "one", "rank": 1], entity: note, id: RecordID("n1"))
        _ = try await fixture.sync(laptop)
        try await fixture.webEdit("n1", ["rank": 5])
        return laptop
    }

    /// What a store remembers of the backend, byte for byte.
    static func memory(_ store: Store) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let root = store.path + "/.ferry/peers"
        guard let walker = FileManager.default.enumerator(atPath: root) else { return files }
        for case let path as String in walker where FileSystem.isRegularFile(root + "/" + path) && !path.hasSuffix("/lock") {
            files[path] = try FileSystem.readFile(root + "/" + path, limit: 64 << 20)
        }
        return files
    }

    @Test func aDryRunChangesNeitherSideAndPredictsPullsPushesAndConflicts() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "one", "rank": 1], entity: Self.note, id: RecordID("n1"))
        try laptop.put(["title": "two", "rank": 2], entity: Self.note, id: RecordID("n2"))
        _ = try await fixture.sync(laptop)
        // Both sides edit n1; the web creates a record; the laptop creates one.
        try laptop.put(["title": "laptop", "rank": 1], entity: Self.note, id: RecordID("n1"))
        try await fixture.webEdit("n1", ["title": "web"])
        _ = try await fixture.web.create(in: "Note", fields: ["title": "from the web", "rank": 3])
        try laptop.put(["title": "three", "rank": 3], entity: Self.note, id: RecordID("n3"))

        let serverBefore = try await fixture.serverRecords()
        let headBefore = laptop.head
        let memoryBefore = try Self.memory(laptop)
        let dry = try await fixture.sync(laptop, dryRun: true)
        #expect(dry.dryRun && dry.plan == .incremental, "\(dry)")
        #expect(dry.pulled == 2 && dry.pushed == 2, "\(dry)")
        #expect(dry.conflicts.map(\.description) == ["Note/n1"], "\(dry)")
        #expect(try await fixture.serverRecords() == serverBefore)
        #expect(laptop.head == headBefore)
        #expect(try Self.memory(laptop) == memoryBefore)
        #expect(try laptop.conflicts().isEmpty)

        // The real sync does what the dry run said.
        let real = try await fixture.sync(laptop)
        #expect(real.pulled == 2 && real.conflicts.map(\.description) == ["Note/n1"], "\(real)")
        #expect(try await fixture.serverRecords()["n3"]?["title"] == "three")
    }

    @Test func pullOnlyAndPushOnlyMoveOneWayAndAFullSyncStillConverges() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try await Self.laptopWithAWebEdit(fixture)
        let created = try await fixture.web.create(in: "Note", fields: ["title": "from the web", "rank": 7])
        let webID = try #require(created["id"]?.stringValue)
        try laptop.put(["title": "two", "rank": 2], entity: Self.note, id: RecordID("n2"))

        // Push-only: n2 goes up; nothing comes down, and the web's edit is not overwritten.
        let headBefore = laptop.head
        let pushed = try await fixture.sync(laptop, direction: .pushOnly)
        #expect(pushed.pushed == 1 && pushed.pulled == 0 && pushed.direction == .pushOnly, "\(pushed)")
        #expect(laptop.head == headBefore)
        #expect(try PocketBaseSyncTests.documents(laptop) == ["n1": ["title": "one", "rank": 1], "n2": ["title": "two", "rank": 2]])
        var server = try await Self.serverDocuments(fixture)
        #expect(server["n2"] == ["title": "two", "rank": 2] && server["n1"] == ["title": "one", "rank": 5], "\(server)")

        // Pull-only: the web's edit and record come down; the laptop's new record stays here.
        try laptop.put(["title": "three", "rank": 3], entity: Self.note, id: RecordID("n3"))
        let pulled = try await fixture.sync(laptop, direction: .pullOnly)
        #expect(pulled.pulled == 2 && pulled.pushed == 0, "\(pulled)")
        #expect(try PocketBaseSyncTests.documents(laptop)[webID] == ["title": "from the web", "rank": 7])
        #expect(try PocketBaseSyncTests.documents(laptop)["n1"] == ["title": "one", "rank": 5])
        server = try await Self.serverDocuments(fixture)
        #expect(server["n3"] == nil, "\(server)")

        // A full sync then pushes only what is left, and both sides agree.
        let full = try await fixture.sync(laptop)
        #expect(full.pushed == 1 && full.pulled == 0 && full.conflicts.isEmpty, "\(full)")
        server = try await Self.serverDocuments(fixture)
        #expect(try PocketBaseSyncTests.documents(laptop) == server)
        let idle = try await fixture.sync(laptop)
        #expect(idle.plan == .upToDate && idle.pulled == 0 && idle.pushed == 0, "\(idle)")
        #expect(try StoreVerifier(path: laptop.path).verify().isClean)
    }

    /// A dashboard edit lands between Ferry's pull and its push, in every round: the push is
    /// deferred, each round pulls the edit as a conflict and the policy merges it, and after
    /// the last round the record waits, said so; the next sync pushes it.
    @Test func aPushThatMeetsADashboardEditDefersAndTheRoundsResolveIt() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "draft", "rank": 1], entity: Self.note, id: RecordID("n1"))
        try laptop.put(["title": "other", "rank": 1], entity: Self.note, id: RecordID("n2"))
        _ = try await fixture.sync(laptop)
        try laptop.put(["title": "laptop title", "rank": 1], entity: Self.note, id: RecordID("n1"))
        try laptop.put(["title": "other edited", "rank": 1], entity: Self.note, id: RecordID("n2"))
        var rank: Int64 = 10
        let racing = RacingBackend(PocketBaseBackend(client: fixture.client()), times: 3) {
            rank += 1
            try await fixture.webEdit("n1", ["rank": .integer(rank)])
        }
        let report = try await fixture.sync(laptop, policy: .merge, backend: racing)
        #expect(report.rounds == 3 && report.waiting.map(\.description) == ["Note/n1"], "\(report)")
        #expect(report.resolved == 2 && report.conflicts.isEmpty, "\(report)")
        #expect(report.notes.contains { $0.hasPrefix("1 record changed on \(fixture.location) again while this sync ran") }, "\(report)")
        // Merged with the dashboard's edit of the last round pulled; its next edit is on the server.
        #expect(try PocketBaseSyncTests.documents(laptop)["n1"] == ["title": "laptop title", "rank": 12])
        // n2 met no newer version: written in the first round.
        #expect(try await fixture.serverRecords()["n2"]?["title"] == "other edited")
        #expect(try await fixture.serverRecords()["n1"]?["title"] == "draft")

        let next = try await fixture.sync(laptop, policy: .merge)
        #expect(next.pulled == 1 && next.resolved == 1 && next.pushed == 1 && next.waiting.isEmpty && next.rounds == 1, "\(next)")
        let server = try await fixture.serverRecords()["n1"]
        #expect(server?["title"] == "laptop title" && server?["rank"] == 13, "\(String(describing: server))")
        let idle = try await fixture.sync(laptop)
        #expect(idle.plan == .upToDate, "\(idle)")
    }

    /// With keep-both, the edit a deferred push met arrives in the next round as a conflict,
    /// left for the user; lww writes the winner and pushes it in the same sync.
    @Test(arguments: [ConflictPolicy.keepBoth, .lastWriterWins])
    func theNextRoundPullsTheNewerVersionAsAConflict(policy: ConflictPolicy) async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "draft"], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.sync(laptop)
        try laptop.put(["title": "laptop"], entity: Self.note, id: RecordID("n1"))
        let racing = RacingBackend(PocketBaseBackend(client: fixture.client())) {
            try await fixture.webEdit("n1", ["title": "dashboard"])
        }
        let report = try await fixture.sync(laptop, policy: policy, backend: racing)
        #expect(report.rounds == 2 && report.waiting.isEmpty, "\(report)")
        if policy == .keepBoth {
            // The dashboard's version, stamped when it was pulled, wins here and is not pushed
            // back; the laptop's stays beside it for the user.
            #expect(report.conflicts.map(\.description) == ["Note/n1"], "\(report)")
        } else {
            #expect(report.resolved == 1 && report.conflicts.isEmpty, "\(report)")
            let server = try await fixture.serverRecords()["n1"]?["title"]
            #expect(try PocketBaseSyncTests.documents(laptop)["n1"]?["title"] == server, "\(String(describing: server))")
        }
    }

    /// A sync whose push fails after the store took what it pulled saves nothing of the pull
    /// at the backend's side; the next sync lists those records again and continues the
    /// stand-in's chain after the changes the store holds: no counter gap, no conflict, and
    /// what waited is pushed.
    @Test func aPushThatFailsAfterThePullWasAppliedIsRunAgainCleanly() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try await Self.laptopWithAWebEdit(fixture)
        try laptop.put(["title": "two"], entity: Self.note, id: RecordID("n2"))
        let failing = FailingWrites(PocketBaseBackend(client: fixture.client()))
        await #expect(throws: SyncError.self) { try await fixture.sync(laptop, backend: failing) }
        #expect(try PocketBaseSyncTests.documents(laptop)["n1"] == ["title": "one", "rank": 5], "the pull was applied")

        let again = try await fixture.sync(laptop)
        #expect(again.pushed == 1 && again.conflicts.isEmpty, "\(again)")
        let server = try await Self.serverDocuments(fixture)
        #expect(try PocketBaseSyncTests.documents(laptop) == server)
        let idle = try await fixture.sync(laptop)
        #expect(idle.plan == .upToDate, "\(idle)")
        #expect(try StoreVerifier(path: laptop.path).verify().isClean)
    }

    /// The count that notices hard deletes is asked for while the listing runs, so a sync that
    /// finds nothing new waits for one round trip: the listing here waits for the count to
    /// start (for a minute at most, which only a count asked for after it would take).
    @Test func theCountRunsBesideTheListing() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try await Self.laptopWithAWebEdit(fixture)
        let watched = CountBesideListing(PocketBaseBackend(client: fixture.client()))
        let report = try await fixture.sync(laptop, backend: watched)
        #expect(watched.listingsThatMetACount == 1 && watched.listings == 1, "listings \(watched.listings), beside a count \(watched.listingsThatMetACount)")
        #expect(report.pulled == 1 && report.deletedOnBackend == 0, "\(report)")
        #expect(try PocketBaseSyncTests.documents(laptop)["n1"] == ["title": "one", "rank": 5])
    }

    /// A push hands PocketBase a batch's worth at a time, two at once, and reads the next
    /// records from the store while the first are written: the first batch is still in flight
    /// when the second leaves (it waits for it, a minute at most, which a push that read every
    /// record before its first write would take). A push whose writes fail sends no more.
    @Test func aPushWritesItsFirstBatchWhileItReadsTheNext() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try await fixture.batchingStore("laptop", notes: 120)
        let watched = OverlappingWrites(PocketBaseBackend(client: fixture.client()))
        let first = try await fixture.sync(laptop, backend: watched)
        #expect(first.pushed == 120 && first.requests == 7, "a sign-in, a listing, a count, three batches, the daily purge listing: \(first)")
        #expect(watched.sizes.sorted() == [20, 50, 50] && watched.firstSawTheSecond, "write calls \(watched.sizes)")
        #expect(try await fixture.serverRecords().count == 120)

        for index in 0..<120 { try laptop.put(["title": .string("edited \(index)")], entity: Self.note, id: RecordID("n\(index)")) }
        let failing = FailingWrites(PocketBaseBackend(client: fixture.client()))
        await #expect(throws: SyncError.self) { try await fixture.sync(laptop, backend: failing) }
        #expect(failing.calls == 2, "the two batches in flight failed; the third was not sent (\(failing.calls) calls)")
        let again = try await fixture.sync(laptop)
        #expect(again.pushed == 120, "\(again)")
        #expect(try await fixture.serverRecords()["n119"]?["title"] == "edited 119")
    }
}

/// The real backend, whose writes all fail as a server that went away.
final class FailingWrites: ForwardingBackend, @unchecked Sendable {
    private let lock = NSLock()
    private var made = 0
    /// The ``write(_:)`` calls made.
    var calls: Int { lock.withLock { made } }

    override func create(_ record: BackendRecord, clearing: [String: JSONValue]) async throws(BackendError) -> BackendWriteOutcome {
        throw BackendError(.unreachable, "no answer")
    }
    override func update(_ record: BackendRecord, base: String, baseUpdated: String?, clearing: [String: JSONValue]) async throws(BackendError) -> BackendWriteOutcome {
        throw BackendError(.unreachable, "no answer")
    }
    override func write(_ writes: [BackendWrite]) async -> [Result<BackendWriteOutcome, BackendError>] {
        lock.withLock { made += 1 }
        return writes.map { _ in .failure(BackendError(.unreachable, "no answer")) }
    }
}

/// The real backend, whose first ``write(_:)`` call waits (a minute at most) for a second to
/// start before it writes, and says whether one did; the size of every call.
final class OverlappingWrites: ForwardingBackend, @unchecked Sendable {
    private let second = Latch()
    private let lock = NSLock()
    private var calls: [Int] = []
    private var sawSecond = false

    var sizes: [Int] { lock.withLock { calls } }
    var firstSawTheSecond: Bool { lock.withLock { sawSecond } }

    override func write(_ writes: [BackendWrite]) async -> [Result<BackendWriteOutcome, BackendError>] {
        let call = lock.withLock { () -> Int in
            calls.append(writes.count)
            return calls.count
        }
        if call == 2 { second.open() }
        if call == 1 {
            let met = await second.wait(upTo: 60)
            lock.withLock { sawSecond = met }
        }
        return await super.write(writes)
    }
}

/// The real backend, whose listings each wait (a minute at most) for a count to have started,
/// and say whether one did.
final class CountBesideListing: ForwardingBackend, @unchecked Sendable {
    private let counting = Latch()
    private let lock = NSLock()
    private var (listed, metACount) = (0, 0)

    var listings: Int { lock.withLock { listed } }
    var listingsThatMetACount: Int { lock.withLock { metACount } }

    override func count(in collection: String) async throws(BackendError) -> Int {
        counting.open()
        return try await super.count(in: collection)
    }

    override func changes(in collection: String, since: String?, after: (updated: String, id: String)?, limit: Int) async throws(BackendError) -> BackendPage {
        let met = await counting.wait(upTo: 60)
        lock.withLock {
            listed += 1
            if met { metACount += 1 }
        }
        return try await super.changes(in: collection, since: since, after: after, limit: limit)
    }
}
