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
        await #expect(throws: SyncError.self) { try await server.push([changes[0], changes[2]], maximumSkew: 1_000) }
        var altered = changes[1]
        altered.operation = .put(["n": 99])
        await #expect(throws: SyncError.self) { try await server.push([changes[0], altered], maximumSkew: 1_000) }
        #expect(server.journal.isEmpty, "nothing of a refused push is kept")
        #expect(try await server.push(changes, maximumSkew: 1_000).applied == 3)
        #expect(try await server.push(changes, maximumSkew: 1_000).alreadyKnown == 3)
    }
}
