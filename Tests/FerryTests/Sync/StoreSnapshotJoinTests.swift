import Testing
import FerryTestSupport
@testable import Ferry

/// Joins from a store peer: an empty store takes the peer's live state (each record's current
/// versions, tombstones included) instead of every version ever written, bound to the hash of
/// the peer's journal entry it stands for; and then syncs, conflicts and verifies like any other.
@Suite struct StoreSnapshotJoinTests {
    let notes = try! EntityName("Note")

    /// A store with `records` notes edited `edits` times each, and note "gone" deleted.
    func makeHistory(_ directory: TemporaryDirectory, records: Int = 4, edits: Int = 6) throws -> Store {
        let a = try Store.create(at: directory.subpath("a"), name: "a")
        for edit in 0..<edits {
            for record in 0..<records { try a.put(["n": .integer(Int64(edit))], entity: notes, id: RecordID("r\(record)")) }
        }
        try a.put(["n": 0], entity: notes, id: RecordID("gone"))
        try a.delete(entity: notes, id: RecordID("gone"))
        return a
    }

    @Test func anEmptyStoreJoinsFromTheStateAndIsBoundToThePeersEntry() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeHistory(directory)
        let b = try Store.create(at: directory.subpath("b"), name: "b")
        let report = try await b.sync(with: FolderTransport(path: a.path))
        #expect(report.snapshot?.reason == .join)
        // Four live records and one tombstone: five entries, not the 26 of the history.
        #expect(try a.journalEntries().count == 26)
        #expect(try b.journalEntries().count == 5)
        #expect(try b.records(of: notes).count == 4)
        #expect(try b.get(entity: notes, id: RecordID("r2")) == ["n": 5])
        #expect(try b.state(of: RecordKey(entity: notes, id: RecordID("gone")))?.winner.isDelete == true)

        let join = try #require(try b.snapshotJoins()?.joins.last)
        #expect(join.position == 26)
        #expect(join.snapshot == (try a.journalEntries().last?.hash))
        #expect(join.source == a.replicaID)
        #expect(try verifyInPartitions(at: b.path).isClean)
        let check = try b.checkJoin(join, against: a)
        #expect(check.isProven, "\(check.problems)")
        #expect(check.recordCount == 5)

        // Nothing new: the next sync reads the peer's journal after the join, not again.
        #expect(try await b.sync(with: FolderTransport(path: a.path)).plan == .upToDate)
    }

    @Test func aSnapshotStartedReplicaSyncsAndConflictsLikeAnyOther() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeHistory(directory)
        let b = try Store.create(at: directory.subpath("b"), name: "b")
        _ = try await b.sync(with: FolderTransport(path: a.path))
        try a.put(["n": 100], entity: notes, id: RecordID("r0"))
        try b.put(["n": 200], entity: notes, id: RecordID("r1"))
        var report = try await b.sync(with: FolderTransport(path: a.path))
        #expect(report.plan == .incremental)
        #expect(report.pulled == 1 && report.pushed == 1)
        #expect(try b.get(entity: notes, id: RecordID("r0")) == ["n": 100])
        #expect(try a.get(entity: notes, id: RecordID("r1")) == ["n": 200])

        // Concurrent edits of one record conflict on both sides, and resolve everywhere.
        try a.put(["n": 1], entity: notes, id: RecordID("r3"))
        try b.put(["n": 2], entity: notes, id: RecordID("r3"))
        report = try await b.sync(with: FolderTransport(path: a.path))
        let key = try RecordKey(entity: notes, id: RecordID("r3"))
        #expect(report.conflicts == [key])
        #expect(try a.conflicts().map(\.key) == [key])
        #expect(try b.conflicts().map(\.key) == [key])
        try b.resolve(key, with: ["n": 3])
        _ = try await b.sync(with: FolderTransport(path: a.path))
        #expect(try a.conflicts().isEmpty && (try b.conflicts()).isEmpty)
        #expect(try a.get(entity: notes, id: key.id) == ["n": 3])

        // The full history cannot come from b, which holds part of it only as state: refused, named.
        let full = try Store.create(at: directory.subpath("full"), name: "full")
        await #expect(throws: SyncError.historyNotHeld(peer: b.path)) {
            _ = try await full.sync(with: FolderTransport(path: b.path), options: fullHistory)
        }
        #expect(try full.journalEntries().isEmpty)
        #expect(try verifyInPartitions(at: b.path).isClean)
        #expect(try verifyInPartitions(at: a.path).isClean)
        #expect(try ReplicaState(a).differences(from: ReplicaState(b)).isEmpty)
    }

    @Test func aTombstoneInTheSnapshotKeepsAStaleReplicaFromResurrectingTheRecord() async throws {
        let directory = try TemporaryDirectory()
        let a = try Store.create(at: directory.subpath("a"), name: "a")
        let stale = try Store.create(at: directory.subpath("stale"), name: "stale")
        try a.put(["n": 1], entity: notes, id: RecordID("k"))
        _ = try await stale.sync(with: FolderTransport(path: a.path))
        try a.delete(entity: notes, id: RecordID("k"))
        let b = try Store.create(at: directory.subpath("b"), name: "b")
        _ = try await b.sync(with: FolderTransport(path: a.path))
        #expect(try b.get(entity: notes, id: RecordID("k")) == nil)
        // The stale replica never saw the delete; syncing with b (not a) must delete, not resurrect
        // (its only record: past the mass-deletion limit, so forced).
        var forced = SyncOptions()
        forced.force = true
        _ = try await stale.sync(with: FolderTransport(path: b.path), options: forced)
        #expect(try stale.get(entity: notes, id: RecordID("k")) == nil)
        #expect(try b.get(entity: notes, id: RecordID("k")) == nil)
    }

    @Test func historyFullCopiesEveryVersion() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeHistory(directory)
        let b = try Store.create(at: directory.subpath("b"), name: "b")
        let report = try await b.sync(with: FolderTransport(path: a.path), options: fullHistory)
        #expect(report.snapshot == nil)
        #expect(try b.journalEntries().count == 26)
        #expect(try b.snapshotJoins() == nil)
        #expect(try b.get(entity: notes, id: RecordID("r2")) == ["n": 5])
    }

    @Test func aJoinFromAJoinedStoreChainsAndAStoreWithItsOwnChangesTakesTheStateTheJournalLacks() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeHistory(directory)
        let b = try Store.create(at: directory.subpath("b"), name: "b")
        _ = try await b.sync(with: FolderTransport(path: a.path))
        try b.put(["n": 50], entity: notes, id: RecordID("fromB"))

        // c joins from b, which holds a's early history only as state.
        let c = try Store.create(at: directory.subpath("c"), name: "c")
        let report = try await c.sync(with: FolderTransport(path: b.path))
        #expect(report.snapshot?.reason == .join)
        #expect(try verifyInPartitions(at: c.path).isClean)
        let join = try #require(try c.snapshotJoins()?.joins.last)
        #expect(try c.checkJoin(join, against: b).isProven)
        // c then syncs with a directly: nothing to exchange but b's new record.
        _ = try await c.sync(with: FolderTransport(path: a.path))
        #expect(try a.get(entity: notes, id: RecordID("fromB")) == ["n": 50])

        // d has changes of its own, so it does not join; b's journal lacks a's early changes,
        // so b offers its state for them, and d's own changes stay and reach b.
        let d = try Store.create(at: directory.subpath("d"), name: "d")
        try d.put(["n": 7], entity: notes, id: RecordID("fromD"))
        let second = try await d.sync(with: FolderTransport(path: b.path))
        #expect(second.snapshot?.reason == .historyNotHeld)
        #expect(try d.get(entity: notes, id: RecordID("r3")) == ["n": 5])
        #expect(try d.get(entity: notes, id: RecordID("fromD")) == ["n": 7])
        #expect(try b.get(entity: notes, id: RecordID("fromD")) == ["n": 7])
        #expect(try verifyInPartitions(at: d.path).isClean)
        #expect(try ReplicaState(d).differences(from: ReplicaState(b)).isEmpty)
    }

    @Test func aJoinCheckFindsAPeerWhoseHistoryWasReplaced() async throws {
        let directory = try TemporaryDirectory()
        let a = try makeHistory(directory)
        let b = try Store.create(at: directory.subpath("b"), name: "b")
        _ = try await b.sync(with: FolderTransport(path: a.path))
        var join = try #require(try b.snapshotJoins()?.joins.last)
        join.snapshot = SHA256.hash(Array("another history".utf8))
        let check = try b.checkJoin(join, against: a)
        #expect(!check.isProven)
        #expect(check.problems.first?.contains("rewritten") == true)
        // Checked against a store it never joined from: named, not passed.
        let other = try Store.create(at: directory.subpath("other"), name: "other")
        #expect(!(try b.checkJoin(join, against: other).isProven))
    }

    var fullHistory: SyncOptions {
        var options = SyncOptions()
        options.history = .full
        return options
    }
}
