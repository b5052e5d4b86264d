import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// The sync engine against a peer with no disk: plans, pulls, pushes, policies, dry runs and
/// checkpoints behave as with a store folder, and the peer's journal is a store's journal.
@Suite struct MemoryReplicaTests {
    static let notes = try! EntityName("Note")

    func id(_ text: String) -> RecordID { try! RecordID(text) }

    @Test func twoStoresConvergeThroughAMemoryReplicaWithTheSamePlans() async throws {
        let directory = try TemporaryDirectory()
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let phone = try Store.create(at: directory.subpath("phone"), name: "phone")
        let server = MemoryReplica(name: "server")
        for n in 0..<12 { try laptop.put(["n": .integer(Int64(n))], entity: Self.notes, id: id("n\(n)")) }

        #expect(try await laptop.sync(with: server).plan == .fullPush)
        #expect(server.records.count == 12)
        #expect(server.checkpoints[laptop.replicaID] != nil, "the checkpoint is left at the peer too")
        let pulled = try await phone.sync(with: server)
        #expect(pulled.plan == .fullPull && pulled.pulled == 12)
        #expect(try await laptop.sync(with: server).plan == .upToDate)

        // Both edit one record: the same conflict as between two folders, then lww settles it.
        try laptop.put(["by": "laptop"], entity: Self.notes, id: id("n1"))
        try phone.put(["by": "phone"], entity: Self.notes, id: id("n1"))
        try phone.delete(entity: Self.notes, id: id("n2"))
        let first = try await laptop.sync(with: server)
        #expect(first.plan == .incremental && first.pushed == 1)
        let second = try await phone.sync(with: server, policy: .lastWriterWins)
        #expect(second.pulled == 1 && second.resolved == 1 && second.pushed == 3)
        _ = try await laptop.sync(with: server)
        #expect(try ReplicaState(laptop) == ReplicaState(phone))
        #expect(try laptop.get(entity: Self.notes, id: id("n2")) == nil)
        #expect(try await server.liveRecordCount() == 11)
    }

    @Test func itsJournalIsAStoresJournalLineForLine() async throws {
        let directory = try TemporaryDirectory()
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let server = MemoryReplica()
        for n in 0..<5 { try laptop.put(["n": .integer(Int64(n))], entity: Self.notes, id: id("n\(n)")) }
        try laptop.delete(entity: Self.notes, id: id("n0"))
        _ = try await laptop.sync(with: server)

        let journal = server.journal
        #expect(journal.count == 6)
        for (index, entry) in journal.enumerated() {
            #expect(entry.sequence == UInt64(index + 1))
            #expect(entry.previousHash == (index == 0 ? .zero : journal[index - 1].hash), "one hash chain")
            #expect(entry.computedHash() == entry.hash)
            let decoded = try server.journalLines[index].withUnsafeBytes { try JournalEntry.decode(line: $0) }
            #expect(decoded == entry, "the line a store's journal would hold")
        }
        // The same changes, with the digests they were made with.
        for (entry, mine) in zip(journal, try laptop.changes(after: 0, excluding: VersionVector(), limit: 100).changes) {
            #expect(entry.change.identity == mine.identity && entry.change.digest == mine.digest)
        }
    }

    @Test func dryRunsAndOneWaySyncsWriteOnlyWhereThePlanSays() async throws {
        let directory = try TemporaryDirectory()
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        let server = MemoryReplica()
        try laptop.put(["n": 1], entity: Self.notes, id: id("a"))

        var dry = SyncOptions()
        dry.dryRun = true
        let planned = try await laptop.sync(with: server, options: dry)
        #expect(planned.dryRun && planned.pushed == 1)
        #expect(server.journal.isEmpty && server.checkpoints.isEmpty)

        var pullOnly = SyncOptions()
        pullOnly.direction = .pullOnly
        #expect(try await laptop.sync(with: server, options: pullOnly).pushed == 0)
        #expect(server.journal.isEmpty)

        server.isReadOnly = true
        let refused = try await laptop.sync(with: server, options: dry)
        #expect(refused.refusals.contains { $0.contains("may not be written") })
        await #expect(throws: SyncError.self) { try await laptop.sync(with: server) }
        #expect(server.journal.isEmpty)
        server.isReadOnly = false
        #expect(try await laptop.sync(with: server).pushed == 1)
        #expect(server.records.count == 1)
    }

    @Test func aPushThatSkipsCountersOrCarriesAnAlteredChangeIsRefusedWhole() async throws {
        let directory = try TemporaryDirectory()
        let laptop = try Store.create(at: directory.subpath("laptop"), name: "laptop")
        for n in 0..<3 { try laptop.put(["n": .integer(Int64(n))], entity: Self.notes, id: id("n\(n)")) }
        let changes = try laptop.changes(after: 0, excluding: VersionVector(), limit: 10).changes
        let server = MemoryReplica()
        await #expect(throws: SyncError.self) { try await server.push([changes[0], changes[2]], maximumSkew: 1_000, continuing: nil) }
        var altered = changes[1]
        altered.operation = .put(["n": 99])
        await #expect(throws: SyncError.self) { try await server.push([changes[0], altered], maximumSkew: 1_000, continuing: nil) }
        #expect(server.journal.isEmpty, "nothing of a refused push is kept")
        #expect(try await server.push(changes, maximumSkew: 1_000, continuing: nil).applied == 3)
        #expect(try await server.push(changes, maximumSkew: 1_000, continuing: nil).alreadyKnown == 3)
    }

    // MARK: The engine with no disk at all: memory replicas on both sides

    func sync(_ replica: MemoryReplica, _ peer: MemoryReplica, policy: ConflictPolicy = .keepBoth, dryRun: Bool = false) async throws -> SyncReport {
        var options = SyncOptions(policy: policy)
        options.dryRun = dryRun
        options.force = true  // a few deletes of a small replica are "mass deletions"
        return try await SyncEngine(replica: replica, transport: peer, options: options).run()
    }

    func state(_ replica: MemoryReplica) -> [RecordKey: [JSONValue?]] { replica.records }

    @Test func pullResolvePushAndCheckpointWithNoDisk() async throws {
        let laptop = MemoryReplica(name: "laptop")
        let phone = MemoryReplica(name: "phone")
        let server = MemoryReplica(name: "server")
        for n in 0..<6 { try laptop.put(["n": .integer(Int64(n)), "title": .string("note \(n)")], entity: Self.notes, id: id("n\(n)")) }

        #expect(try await sync(laptop, server).plan == .fullPush)
        #expect(try await sync(phone, server).plan == .fullPull)
        #expect(try await sync(laptop, server).plan == .upToDate, "the checkpoints on both sides match")
        #expect(try laptop.checkpoint(for: server.replicaID) != nil && server.checkpoints[laptop.replicaID] != nil)

        // Concurrent edits of different fields: the merge policy joins them against the ancestor.
        try laptop.put(["n": 1, "title": "renamed on the laptop"], entity: Self.notes, id: id("n1"))
        try phone.put(["n": 100, "title": "note 1"], entity: Self.notes, id: id("n1"))
        // Concurrent edits of one field: last writer wins when asked.
        try laptop.put(["n": 2, "title": "laptop"], entity: Self.notes, id: id("n2"))
        try phone.put(["n": 2, "title": "phone"], entity: Self.notes, id: id("n2"))
        try phone.delete(entity: Self.notes, id: id("n5"))
        _ = try await sync(laptop, server)
        let merged = try await sync(phone, server, policy: .merge)
        #expect(merged.plan == .incremental && merged.pulled == 2 && merged.resolved == 1)
        #expect(phone.get(entity: Self.notes, id: id("n1")) == ["n": 100, "title": "renamed on the laptop"])
        #expect(try phone.conflicts().map(\.key) == [RecordKey(entity: Self.notes, id: id("n2"))], "one field edited twice stays a conflict")
        let settled = try await sync(phone, server, policy: .lastWriterWins)
        #expect(settled.resolved == 0, "lww resolves what a sync brings, not older conflicts")
        try phone.resolve(RecordKey(entity: Self.notes, id: id("n2")), with: ["n": 2, "title": "agreed"])
        _ = try await sync(phone, server)
        _ = try await sync(laptop, server)
        #expect(state(laptop) == state(phone))
        #expect(laptop.get(entity: Self.notes, id: id("n2")) == ["n": 2, "title": "agreed"])
        #expect(laptop.get(entity: Self.notes, id: id("n5")) == nil, "the tombstone travelled")
        #expect(try laptop.conflicts().isEmpty && phone.conflicts().isEmpty)

        // A dry run plans and counts, and writes nothing on either side.
        try laptop.put(["n": 7], entity: Self.notes, id: id("n7"))
        let laptopJournal = laptop.journal.count
        let serverJournal = server.journal.count
        let dry = try await sync(laptop, server, dryRun: true)
        #expect(dry.dryRun && dry.pushed == 1)
        #expect(laptop.journal.count == laptopJournal && server.journal.count == serverJournal)
    }

    @Test(arguments: [UInt64(21), 22, 23])
    func randomEditsBetweenMemoryReplicasConverge(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let replicas = (0..<4).map { MemoryReplica(name: "r\($0)") }
        let server = MemoryReplica(name: "server")
        for _ in 0..<40 {
            let replica = replicas.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let recordID = id("k\(Int.random(in: 0..<8, using: &random))")
                if Bool.random(using: &random), replica.get(entity: Self.notes, id: recordID) != nil {
                    try replica.delete(entity: Self.notes, id: recordID)
                } else {
                    try replica.put(["v": .integer(Int64.random(in: 0...99, using: &random))], entity: Self.notes, id: recordID)
                }
            }
            let policy = [ConflictPolicy.keepBoth, .lastWriterWins, .merge].randomElement(using: &random)!
            _ = try await sync(replica, server, policy: policy)
        }
        for _ in 0..<3 { for replica in replicas { _ = try await sync(replica, server) } }
        for replica in replicas.dropFirst() { #expect(state(replica) == state(replicas[0]), "seed \(seed)") }
        for replica in replicas {
            #expect(try replica.currentKnowledge() == server.currentKnowledge(), "seed \(seed)")
            for (index, entry) in replica.journal.enumerated() where index > 0 {
                #expect(entry.previousHash == replica.journal[index - 1].hash)
            }
        }
    }

    @Test func aStoreAndAMemoryReplicaSyncBothWays() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("store"), name: "store")
        let memory = MemoryReplica(name: "memory")
        try store.put(["from": "store"], entity: Self.notes, id: id("a"))
        try memory.put(["from": "memory"], entity: Self.notes, id: id("b"))
        // The memory replica runs the sync, the store is its peer through a folder transport.
        let report = try await SyncEngine(replica: memory, transport: FolderTransport(path: store.path)).run()
        #expect(report.pulled == 1 && report.pushed == 1)
        #expect(try store.get(entity: Self.notes, id: id("b")) == ["from": "memory"])
        #expect(memory.get(entity: Self.notes, id: id("a")) == ["from": "store"])
        #expect(try StoreVerifier(path: store.path).verify().isClean)
    }
}
