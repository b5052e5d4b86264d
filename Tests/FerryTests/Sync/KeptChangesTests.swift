import FerryTestSupport
import Testing

@testable import Ferry

/// A sync checks every change before it applies or pushes any, and keeps them in memory
/// between the two only up to ``SyncOptions/maximumKeptChangeBytes``; past it, it reads them
/// again page by page, so memory stays flat however many changes it carries (an incremental
/// pull of 333k changes held them all and peaked at 629 MB). Read again or kept, the result
/// is the same, and every check still comes before anything is written.
@Suite struct KeptChangesTests {
    let notes = try! EntityName("Note")

    /// Options that keep about ten changes of these records, in pages of 16.
    static var small: SyncOptions {
        var options = SyncOptions()
        options.maximumKeptChangeBytes = 3_000
        options.pageSize = 16
        return options
    }

    func contents(_ store: Store) throws -> [String: JSONValue] {
        var contents: [String: JSONValue] = [:]
        for (id, document) in try store.records(of: notes) { contents[id.rawValue] = document }
        return contents
    }

    /// A source of 100 records, and two replicas that pulled them all.
    func replicas(_ directory: TemporaryDirectory) async throws -> (source: Store, kept: Store, readAgain: Store) {
        let source = try Store.create(at: directory.subpath("source"), name: "source")
        for index in 0..<100 { try source.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("r\(index)")) }
        let kept = try Store.create(at: directory.subpath("kept"), name: "kept")
        let readAgain = try Store.create(at: directory.subpath("again"), name: "again")
        for replica in [kept, readAgain] { _ = try await replica.sync(with: FolderTransport(path: source.path)) }
        return (source, kept, readAgain)
    }

    @Test func anIncrementalPullPastTheBudgetIsReadAgainWithTheSameResult() async throws {
        let directory = try TemporaryDirectory()
        let (source, kept, readAgain) = try await replicas(directory)
        for index in 0..<60 { try source.put(["n": .integer(Int64(1_000 + index))], entity: notes, id: RecordID("r\(index)")) }
        for index in 90..<95 { _ = try source.delete(entity: notes, id: RecordID("r\(index)")) }
        for index in 100..<110 { try source.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("r\(index)")) }

        let defaults = try await SyncEngine(store: kept, transport: FolderTransport(path: source.path)).run()
        let paged = try await SyncEngine(store: readAgain, transport: FolderTransport(path: source.path), options: Self.small).run()
        #expect(defaults.plan == .incremental && paged.plan == .incremental)
        #expect(defaults.pulled == 75 && paged.pulled == 75)
        #expect(defaults.changesReadAgain == 0)
        #expect(paged.changesReadAgain == 75)
        #expect(try contents(readAgain) == contents(source))
        #expect(try contents(kept) == contents(source))
        #expect(try StoreVerifier(path: readAgain.path).verify().isClean)
        // The checkpoint covers what was applied: nothing is left to pull.
        let again = try await SyncEngine(store: readAgain, transport: FolderTransport(path: source.path), options: Self.small).run()
        #expect(again.plan == .upToDate)
    }

    @Test func aPushPastTheBudgetIsReadAgainWithTheSameResult() async throws {
        let directory = try TemporaryDirectory()
        let (source, _, replica) = try await replicas(directory)
        for index in 0..<50 { try replica.put(["n": .integer(Int64(5_000 + index))], entity: notes, id: RecordID("r\(index)")) }
        let report = try await SyncEngine(store: replica, transport: FolderTransport(path: source.path), options: Self.small).run()
        #expect(report.pushed == 50 && report.pulled == 0)
        #expect(report.changesReadAgain == 50)
        #expect(try contents(source) == contents(replica))
        #expect(try source.get(entity: notes, id: RecordID("r49")) == ["n": 5_049])
        #expect(try StoreVerifier(path: source.path).verify().isClean)
    }

    /// Checked page by page, a mass deletion is still refused before any page is written,
    /// on either side.
    @Test func aMassDeletionPastTheBudgetIsRefusedBeforeAnythingIsWritten() async throws {
        let directory = try TemporaryDirectory()
        let (source, _, replica) = try await replicas(directory)
        // Changes first, deletions last: a pull that applied as it read would write the changes.
        for index in 0..<30 { try source.put(["n": .integer(Int64(7_000 + index))], entity: notes, id: RecordID("r\(index)")) }
        for index in 30..<100 { _ = try source.delete(entity: notes, id: RecordID("r\(index)")) }
        let headBefore = replica.head
        await #expect(throws: SyncError.self) {
            try await SyncEngine(store: replica, transport: FolderTransport(path: source.path), options: Self.small).run()
        }
        #expect(replica.head == headBefore)
        #expect(try replica.get(entity: notes, id: RecordID("r0")) == ["n": 0])

        // The other way: the replica deletes, the push is refused and the source keeps all.
        let pusher = try Store.create(at: directory.subpath("pusher"), name: "pusher")
        let target = try Store.create(at: directory.subpath("target"), name: "target")
        for index in 0..<100 { try target.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("t\(index)")) }
        _ = try await pusher.sync(with: FolderTransport(path: target.path))
        for index in 0..<30 { try pusher.put(["n": .integer(Int64(index + 1))], entity: notes, id: RecordID("t\(index)")) }
        for index in 30..<100 { _ = try pusher.delete(entity: notes, id: RecordID("t\(index)")) }
        let targetHead = target.head
        var pushOnly = Self.small
        pushOnly.direction = .pushOnly
        await #expect(throws: SyncError.self) {
            try await SyncEngine(store: pusher, transport: FolderTransport(path: target.path), options: pushOnly).run()
        }
        #expect(try Store.open(at: target.path).head == targetHead)
    }
}
