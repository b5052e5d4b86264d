import Ferry
import FerryTestSupport
import FerryURLSession
import Foundation
import Testing

/// Two-way sync with a real PocketBase on loopback (no mock), including the ways the old
/// Parse-era sync engines lost data (../shared/DESIGN.md, "What they got wrong").
@Suite(.serialized) struct PocketBaseSyncTests {
    static let note = try! EntityName("Note")

    /// A server set up for `Note`, a sync user, and a second user standing for a web client.
    struct Fixture {
        let directory: TemporaryDirectory
        let server: PocketBaseServer
        let location: PocketBaseLocation
        let http = URLSessionHTTPClient()

        static func start() async throws -> Fixture? {
            let directory = try TemporaryDirectory()
            guard let server = try PocketBaseServer.startIfAvailable(in: directory.subpath("pb")) else { return nil }
            let fixture = Fixture(directory: directory, server: server, location: try PocketBaseLocation(parsing: server.location))
            var web = PocketBaseSetup(collections: [])
            web.syncUser = ("web@example.com", "web-password-123", "users")
            _ = try await web.run(with: fixture.client(superuser: true))
            var setup = PocketBaseSetup(collections: [.init(name: "Note", fields: ["title": .text, "rank": .number, "done": .bool, "body": .text, "data": .json])])
            setup.syncUser = ("laptop@example.com", "laptop-password-1", "users")
            setup.access = .users(["laptop@example.com", "web@example.com"])
            _ = try await setup.run(with: fixture.client(superuser: true))
            return fixture
        }

        func client(superuser: Bool = false, email: String = "laptop@example.com", password: String = "laptop-password-1") -> PocketBaseClient {
            let credentials: PocketBaseCredentials = superuser
                ? .password(email: server.superuserEmail, password: server.superuserPassword, collection: PocketBaseCredentials.superuserCollection)
                : .password(email: email, password: password, collection: "users")
            return PocketBaseClient(location: location, credentials: credentials, httpClient: http)
        }

        /// Another client of the same PocketBase, following the documented rules.
        var web: PocketBaseClient { client(email: "web@example.com", password: "web-password-123") }

        func store(_ name: String, clock: (any WallClock)? = nil) throws -> Store {
            var options = StoreOptions()
            if let clock { options.clock = clock }
            return try Store.create(at: directory.subpath(name), name: name, options: options)
        }

        /// Turns PocketBase's batch API on (a push then writes 50 records a request) and makes a
        /// store of `count` notes, `n0`… (title "note i", rank i), not yet synced.
        func batchingStore(_ name: String, notes count: Int) async throws -> Store {
            var setup = PocketBaseSetup(collections: [.init(name: "Note")])
            setup.enableBatch = true
            _ = try await setup.run(with: client(superuser: true))
            let store = try self.store(name)
            for index in 0..<count {
                try store.put(["title": .string("note \(index)"), "rank": .integer(Int64(index))], entity: PocketBaseSyncTests.note, id: RecordID("n\(index)"))
            }
            return store
        }

        func sync(
            _ store: Store, policy: ConflictPolicy = .keepBoth, pageSize: Int = 500, purgeAfter: Int64? = 30 * 86_400_000,
            backend: (any SyncBackend)? = nil, direction: SyncDirection = .both, dryRun: Bool = false, force: Bool = false
        ) async throws -> BackendSyncOutcome {
            var options = BackendPeer.Options(entities: [PocketBaseSyncTests.note])
            options.purgeAfterMilliseconds = purgeAfter
            options.pageSize = pageSize
            let peer = BackendPeer(backend: backend ?? PocketBaseBackend(client: client()), options: options)
            var syncOptions = SyncOptions(policy: policy)
            syncOptions.direction = direction
            syncOptions.dryRun = dryRun
            syncOptions.force = force
            syncOptions.deletionFloor = 0  // these stores hold a handful of records: the guard as a share alone
            let report = try await SyncEngine(store: store, transport: peer, options: syncOptions).run()
            return BackendSyncOutcome(report: report, counts: peer.counts)
        }

        /// Every record of Note on the server, by Ferry id.
        func serverRecords() async throws -> [String: [String: JSONValue]] {
            var result: [String: [String: JSONValue]] = [:]
            for item in try await client().records(in: "Note", perPage: 1000).items {
                let id = PocketBaseRecordID.ferryID(backendID: item["id"]?.stringValue ?? "", ferryIDField: item["ferry_id"]?.stringValue)
                result[id] = item
            }
            return result
        }

        /// Waits until the server's clock (its Date header, in whole seconds) reads
        /// `milliseconds` or later, each wait ending when the server's last answer says it
        /// will; `false` after 30 s.
        func waitForServerClock(toReach milliseconds: Int64) async throws -> Bool {
            let start = ContinuousClock.now
            while ContinuousClock.now - start < .seconds(30) {
                guard let now = try await client().records(in: "Note", perPage: 1).serverTime else { return false }
                if now >= milliseconds { return true }
                await Deadline.reached(after: Double(milliseconds - now) / 1000)
            }
            return false
        }

        /// An edit as another client makes it: the base revision it read, and a new one.
        func webEdit(_ ferryID: String, _ fields: [String: JSONValue]) async throws {
            let id = PocketBaseRecordID.backendID(for: ferryID)
            let current = try #require(try await web.records(in: "Note", filter: "id = '\(id)'").items.first)
            var body = fields
            body["ferry_base_rev"] = current["ferry_rev"] ?? ""
            body["ferry_rev"] = .string("web-\(UUID().uuidString.prefix(8))")
            _ = try await web.update(in: "Note", id: id, fields: body)
        }
    }

    static func documents(_ store: Store) throws -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for (id, document) in try store.records(of: note) { result[id.rawValue] = document }
        return result
    }

    @Test func recordsGoUpAndOtherClientsEditsComeDown() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "first", "rank": 1], entity: Self.note, id: RecordID("n1"))
        try laptop.put(["title": "second", "done": true], entity: Self.note, id: RecordID("abc123def456ghi"))
        let first = try await fixture.sync(laptop)
        #expect(first.pushed == 2 && first.pulled == 0, "\(first)")
        let server = try await fixture.serverRecords()
        #expect(server["n1"]?["title"] == "first" && server["n1"]?["rank"] == 1 && server["n1"]?["ferry_id"] == "n1")
        #expect(server["n1"]?["id"] == .string(PocketBaseRecordID.backendID(for: "n1")))
        #expect(server["abc123def456ghi"]?["ferry_id"] == "", "an id shaped like PocketBase's is used as it is")

        // Another client edits one record and creates one (with no Ferry revision at all).
        try await fixture.webEdit("n1", ["title": "edited on the web"])
        let created = try await fixture.web.create(in: "Note", fields: ["title": "from the web", "rank": 7])
        let second = try await fixture.sync(laptop)
        #expect(second.pulled == 2 && second.pushed == 0 && second.conflicts.isEmpty, "\(second)")
        let documents = try Self.documents(laptop)
        #expect(documents["n1"] == ["title": "edited on the web", "rank": 1])
        #expect(documents[try #require(created["id"]?.stringValue)] == ["title": "from the web", "rank": 7])
        // They are changes of the replica that stands for the backend, with their own stamps.
        let entries = try laptop.journalEntries()
        #expect(Set(entries.suffix(2).map(\.change.origin)).count == 1 && entries.last?.change.origin != laptop.replicaID)

        // Nothing changed: nothing moves; a sign-in, one listing and one count.
        let idle = try await fixture.sync(laptop)
        #expect(idle.pulled == 0 && idle.pushed == 0 && idle.requests == 3, "\(idle)")
        #expect(try StoreVerifier(path: laptop.path).verify().isClean)
    }

    /// A record as deep as a store takes (512 levels) goes up and comes back down to another
    /// replica: PocketBase's answers were parsed 64 levels deep at most, so the pull of a page
    /// holding it failed, on every sync.
    @Test func aRecordAsDeepAsAStoreTakesGoesUpAndComesDown() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        // The record's object and 511 arrays: 512 levels, the store's limit (one more is refused).
        var inner: JSONValue = 1
        for _ in 0..<511 { inner = .array([inner]) }
        let deep: JSONValue = ["title": "deep", "data": inner]
        #expect(throws: StoreError.self) { try laptop.put(["title": "too deep", "data": .array([inner])], entity: Self.note, id: RecordID("deeper")) }
        try laptop.put(deep, entity: Self.note, id: RecordID("deep"))
        let pushed = try await fixture.sync(laptop)
        #expect(pushed.pushed == 1, "\(pushed)")
        let phone = try fixture.store("phone")
        let pulled = try await fixture.sync(phone)
        #expect(pulled.pulled == 1, "\(pulled)")
        #expect(try phone.get(entity: Self.note, id: RecordID("deep")) == deep)
    }

    @Test func recordsWrittenInTheSameSecondAreNeverSkipped() async throws {
        // The seeds' whole-second watermark skipped records updated later in the same second.
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        _ = try await fixture.sync(laptop)
        for index in 0..<12 { _ = try await fixture.web.create(in: "Note", fields: ["title": .string("burst \(index)")]) }
        // Pages of two: the keyset paging crosses records of the same millisecond.
        let report = try await fixture.sync(laptop, pageSize: 2)
        #expect(report.pulled == 12, "\(report)")
        for index in 12..<15 { _ = try await fixture.web.create(in: "Note", fields: ["title": .string("burst \(index)")]) }
        #expect(try await fixture.sync(laptop, pageSize: 2).pulled == 3)
        #expect(try Self.documents(laptop).count == 15)
    }

    @Test func aStaleLocalClockNeverHidesTheServersChanges() async throws {
        // The seeds compared a local "updatedAt" with the server's: a replica whose clock ran
        // ahead thought its data newer and skipped the server's changes.
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let ahead = ManualClock(milliseconds: UInt64(Date().timeIntervalSince1970 * 1000) + 3_600_000)
        let laptop = try fixture.store("laptop", clock: ahead)
        try laptop.put(["title": "mine"], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.sync(laptop)
        try await fixture.webEdit("n1", ["title": "theirs"])
        _ = try await fixture.web.create(in: "Note", fields: ["title": "new"])
        let report = try await fixture.sync(laptop)
        #expect(report.pulled == 2, "\(report)")
        #expect(try Self.documents(laptop)["n1"] == ["title": "theirs"])
    }

    @Test func aHardDeleteOnTheServerArrivesButNeverDeletesAnOfflineCreate() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        // One sync each: a record deleted outright that was the newest Ferry wrote there is not
        // told from a backend restored from a backup (PocketBaseRestoreTests), so n1 is not it.
        for id in ["n1", "n2"] {
            try laptop.put(["title": .string(id)], entity: Self.note, id: RecordID(id))
            _ = try await fixture.sync(laptop)
        }
        // Offline, the laptop creates n3; meanwhile another client deletes n1 outright.
        try laptop.put(["title": "offline"], entity: Self.note, id: RecordID("n3"))
        try await fixture.web.delete(in: "Note", id: PocketBaseRecordID.backendID(for: "n1"))
        let report = try await fixture.sync(laptop)
        #expect(report.deletedOnBackend == 1 && report.pushed == 1, "\(report)")
        #expect(Set(try Self.documents(laptop).keys) == ["n2", "n3"])
        #expect(Set(try await fixture.serverRecords().keys) == ["n2", "n3"])
        // Ferry's own delete is a soft delete other clients see.
        try laptop.delete(entity: Self.note, id: RecordID("n2"))
        _ = try await fixture.sync(laptop)
        #expect(try await fixture.serverRecords()["n2"]?["ferry_deleted"] == true)
        let desktop = try fixture.store("desktop")
        _ = try await fixture.sync(desktop)
        #expect(try Self.documents(desktop) == ["n3": ["title": "offline"]])
    }

    /// Ferry's soft deletes are deleted outright after the retention period, unless another
    /// client changed the record meanwhile (here: restored it between the listing and the
    /// purge); a replica that was away meanwhile loses the record as a delete.
    @Test(arguments: [false, true]) func softDeletesArePurgedAfterTheRetentionUnlessChangedMeanwhile(batch: Bool) async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        if batch {
            // With the batch API, the compare-and-set and the delete are one transaction.
            var setup = PocketBaseSetup(collections: [])
            setup.enableBatch = true
            _ = try await setup.run(with: fixture.client(superuser: true))
        }
        let laptop = try fixture.store("laptop")
        for id in ["n1", "n2", "n3"] { try laptop.put(["title": .string(id)], entity: Self.note, id: RecordID(id)) }
        _ = try await fixture.sync(laptop)
        let desktop = try fixture.store("desktop")
        _ = try await fixture.sync(desktop)
        for id in ["n1", "n2"] { try laptop.delete(entity: Self.note, id: RecordID(id)) }
        // Two of three records deleted: the backend is guarded as any peer is, until --force.
        await #expect(throws: SyncError.self) { try await fixture.sync(laptop, purgeAfter: 1000) }
        #expect(try await fixture.serverRecords()["n1"]?["ferry_deleted"] == false)
        let deleted = try await fixture.sync(laptop, purgeAfter: 1000, force: true)
        #expect(deleted.pushed == 2 && deleted.purged == 0, "\(deleted)")
        #expect(try await fixture.serverRecords()["n1"]?["ferry_deleted"] == true)
        // The backend's clock comes from the Date header, in whole seconds: once it reads 2 s
        // past the later delete, the deletes are older than 1 s by it.
        let records = try await fixture.serverRecords()
        let deletedAt = try ["n1", "n2"].map { id in
            try #require(records[id]?["updated"]?.stringValue.flatMap { ISO8601Milliseconds.parse($0.replacingOccurrences(of: " ", with: "T")) })
        }.max() ?? 0
        #expect(try await fixture.waitForServerClock(toReach: deletedAt + 2000))

        let racing = RacingBackend(PocketBaseBackend(client: fixture.client())) {
            try await fixture.webEdit("n2", ["title": "restored", "ferry_deleted": false])
        }
        let purge = try await fixture.sync(laptop, purgeAfter: 1000, backend: racing)
        #expect(purge.purged == 1, "\(purge)")
        let server = try await fixture.serverRecords()
        #expect(Set(server.keys) == ["n2", "n3"] && server["n2"]?["ferry_deleted"] == false, "\(server)")
        let after = try await fixture.sync(laptop, purgeAfter: 1000)
        #expect(after.purged == 0 && after.pulled == 1, "\(after)")
        #expect(try Self.documents(laptop) == ["n2": ["title": "restored"], "n3": ["title": "n3"]])
        let away = try await fixture.sync(desktop)
        #expect(away.deletedOnBackend == 1, "\(away)")
        #expect(try Self.documents(desktop) == ["n2": ["title": "restored"], "n3": ["title": "n3"]])
    }

    @Test func anOfflineEditAndAServerEditMeetAsAConflict() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "draft", "rank": 1, "body": "text"], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.sync(laptop)
        try laptop.put(["title": "laptop title", "rank": 1, "body": "text"], entity: Self.note, id: RecordID("n1"))
        try await fixture.webEdit("n1", ["rank": 5])
        // Different fields: merged against the common ancestor, both edits kept, pushed back.
        let merged = try await fixture.sync(laptop, policy: .merge)
        #expect(merged.resolved == 1 && merged.conflicts.isEmpty && merged.pushed == 1, "\(merged)")
        #expect(try Self.documents(laptop)["n1"] == ["title": "laptop title", "rank": 5, "body": "text"])
        let onServer = try await fixture.serverRecords()["n1"]
        #expect(onServer?["rank"] == 5 && onServer?["title"] == "laptop title")
        // The same field on both sides, keep-both: a conflict for the user; the server keeps its version.
        try laptop.put(["title": "laptop again", "rank": 5, "body": "text"], entity: Self.note, id: RecordID("n1"))
        try await fixture.webEdit("n1", ["title": "web again"])
        let kept = try await fixture.sync(laptop)
        #expect(kept.conflicts.map(\.id.rawValue) == ["n1"], "\(kept)")
    }

    /// Another client writes the record between Ferry's pull and its push: the compare-and-set
    /// refuses Ferry's stale write, Ferry pulls the other edit, merges, and pushes again.
    @Test func aRaceBetweenPullAndPushLosesNoUpdate() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        try laptop.put(["title": "draft", "rank": 1], entity: Self.note, id: RecordID("n1"))
        _ = try await fixture.sync(laptop)
        try laptop.put(["title": "laptop title", "rank": 1], entity: Self.note, id: RecordID("n1"))
        let racing = RacingBackend(PocketBaseBackend(client: fixture.client())) {
            try await fixture.webEdit("n1", ["rank": 9])
        }
        let report = try await fixture.sync(laptop, policy: .merge, backend: racing)
        #expect(report.rounds == 2 && report.pushed == 1 && report.waiting.isEmpty, "\(report)")
        #expect(try Self.documents(laptop)["n1"] == ["title": "laptop title", "rank": 9])
        let server = try await fixture.serverRecords()["n1"]
        #expect(server?["title"] == "laptop title" && server?["rank"] == 9)
    }

    /// With the batch API on, a push writes 50 records per request; a batch with one stale
    /// write fails as a whole, is written one by one, and the stale record waits for the pull.
    @Test func batchesWhereTheServerAllowsThem() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try await fixture.batchingStore("laptop", notes: 120)
        let first = try await fixture.sync(laptop)
        #expect(first.pushed == 120 && first.requests == 7, "a sign-in, a listing, a count, three batches, the daily purge listing: \(first)")
        #expect(try await fixture.serverRecords().count == 120)
        for index in 0..<60 { try laptop.put(["title": .string("edited \(index)"), "rank": .integer(Int64(index))], entity: Self.note, id: RecordID("n\(index)")) }
        let racing = RacingBackend(PocketBaseBackend(client: fixture.client())) {
            try await fixture.webEdit("n7", ["rank": 700])
        }
        let second = try await fixture.sync(laptop, policy: .merge, backend: racing)
        #expect(second.pushed == 60 && second.rounds == 2 && second.waiting.isEmpty, "\(second)")
        let server = try await fixture.serverRecords()
        #expect(server["n7"]?["title"] == "edited 7" && server["n7"]?["rank"] == 700)
        #expect(server["n8"]?["title"] == "edited 8")
    }

    @Test func twoFerryReplicasAndAWebClientConverge() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        let desktop = try fixture.store("desktop")
        try laptop.put(["title": "from laptop"], entity: Self.note, id: RecordID("a"))
        try desktop.put(["title": "from desktop"], entity: Self.note, id: RecordID("b"))
        for _ in 0..<2 {
            _ = try await fixture.sync(laptop)
            _ = try await fixture.sync(desktop)
        }
        try await fixture.webEdit("a", ["title": "web edit of a"])
        try desktop.put(["title": "desktop edit of b"], entity: Self.note, id: RecordID("b"))
        for _ in 0..<2 {
            _ = try await fixture.sync(laptop, policy: .merge)
            _ = try await fixture.sync(desktop, policy: .merge)
        }
        let expected: [String: JSONValue] = ["a": ["title": "web edit of a"], "b": ["title": "desktop edit of b"]]
        #expect(try Self.documents(laptop) == expected)
        #expect(try Self.documents(desktop) == expected)
        // Ferry's revisions come back as changes the other store knows (or learns by the server): no echo.
        let idle = try await fixture.sync(laptop)
        #expect(idle.pulled == 0 && idle.pushed == 0, "\(idle)")
    }

    @Test func superuserCredentialsAreRefusedForSync() async throws {
        guard let fixture = try await Fixture.start() else { return }
        defer { fixture.server.stop() }
        let laptop = try fixture.store("laptop")
        let peer = BackendPeer(backend: PocketBaseBackend(client: fixture.client(superuser: true)), options: .init(entities: [Self.note]))
        do {
            _ = try await SyncEngine(store: laptop, transport: peer).run()
            Issue.record("a superuser's sync should be refused")
        } catch {
            guard case SyncError.backend(let refusal)? = error as? SyncError else { throw error }
            #expect(refusal.kind == .forbidden && refusal.message.contains("bypass every API rule"), "\(error)")
        }
    }
}

/// A backend sync's report, with what the backend peer counted besides (hard deletes found,
/// records purged).
@dynamicMemberLookup
struct BackendSyncOutcome: CustomStringConvertible {
    let report: SyncReport
    let counts: BackendPeer.Counts

    subscript<T>(dynamicMember path: KeyPath<SyncReport, T>) -> T { report[keyPath: path] }
    var deletedOnBackend: Int { counts.deletedOnBackend }
    var purged: Int { counts.purged }
    var requests: Int { report.requests ?? 0 }
    var description: String { "\(report.jsonValue)" }
}

/// The real backend, with another client's write slipped in before Ferry's first update:
/// a race, made to happen every time.
final class RacingBackend: ForwardingBackend, @unchecked Sendable {
    private var racing: (() async throws -> Void)?
    private var racesLeft: Int

    /// - Parameter times: how many of Ferry's writes (or purge listings) the race comes before.
    init(_ inner: any SyncBackend, times: Int = 1, race: @escaping () async throws -> Void) {
        self.racing = race
        self.racesLeft = times
        super.init(inner)
    }

    /// The race, once more, while it has races left.
    private var race: (() async throws -> Void)? {
        get { racesLeft > 0 ? racing : nil }
        set { if newValue == nil { racesLeft -= 1 } }
    }

    override func softDeleted(in collection: String, updatedBefore cutoff: String, limit: Int) async throws(BackendError) -> [SoftDeletedRecord] {
        let found = try await inner.softDeleted(in: collection, updatedBefore: cutoff, limit: limit)
        if let race {
            self.race = nil
            do { try await race() } catch { throw BackendError(.protocolViolation, "the racing edit failed: \(error)") }
        }
        return found
    }
    override func write(_ writes: [BackendWrite]) async -> [Result<BackendWriteOutcome, BackendError>] {
        if !writes.isEmpty, let race {
            self.race = nil
            do { try await race() } catch { return writes.map { _ in .failure(BackendError(.protocolViolation, "the racing edit failed: \(error)")) } }
        }
        return await inner.write(writes)
    }
    override func update(_ record: BackendRecord, base: String, baseUpdated: String?, clearing: [String: JSONValue]) async throws(BackendError) -> BackendWriteOutcome {
        if let race {
            self.race = nil
            do { try await race() } catch { throw BackendError(.protocolViolation, "the racing edit failed: \(error)") }
        }
        return try await inner.update(record, base: base, baseUpdated: baseUpdated, clearing: clearing)
    }
}
