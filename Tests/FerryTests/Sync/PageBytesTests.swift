import FerryTestSupport
import Testing

@testable import Ferry

/// A page of changes a store reads for a peer ends at a byte budget as well as at its count
/// (``StoreOptions/maximumPageBytes``), so a sync of large records holds no more in memory than
/// one of small records: 5,000 records of 8 KB made a full pull peak at 284 MB.
@Suite struct PageBytesTests {
    let notes = try! EntityName("Note")

    /// A store of 40 records of about 10 KB each, read with a 64 KiB page budget: six or seven
    /// records a page (the one that crosses the budget ends it).
    func largeRecords(_ directory: TemporaryDirectory) throws -> Store {
        var options = StoreOptions()
        options.maximumPageBytes = 64 << 10
        let store = try Store.create(at: directory.subpath("large"), name: "large", options: options)
        let body = String(repeating: "0123456789", count: 1_000)
        for index in 0..<40 {
            try store.put(["n": .integer(Int64(index)), "body": .string(body)], entity: notes, id: RecordID("r\(index)"))
        }
        return store
    }

    /// The most records of about 10 KB a page of 64 KiB may hold: those under the budget and
    /// the one that crosses it.
    static let mostPerPage = (64 << 10) / 10_000 + 1

    @Test func aJournalPageEndsAtItsByteBudget() throws {
        let directory = try TemporaryDirectory()
        let store = try largeRecords(directory)
        var through: UInt64 = 0
        var pages: [[Change]] = []
        while true {
            let batch = try store.changes(after: through, excluding: VersionVector(), limit: 5_000)
            pages.append(batch.changes)
            through = batch.through
            if batch.through >= batch.head { break }
        }
        #expect(pages.count >= 40 / Self.mostPerPage)
        #expect(pages.allSatisfy { !$0.isEmpty && $0.count <= Self.mostPerPage })
        #expect(pages.flatMap { $0 }.map(\.key.id.rawValue) == (0..<40).map { "r\($0)" })
    }

    @Test func aStatePageEndsAtItsByteBudget() throws {
        let directory = try TemporaryDirectory()
        let store = try largeRecords(directory)
        var snapshot = try #require(try store.snapshotOffer(for: VersionVector(), pending: nil))
        var pages: [[Change]] = []
        while let page = try store.snapshotChanges(&snapshot, limit: 5_000) { pages.append(page) }
        #expect(pages.count >= 40 / Self.mostPerPage)
        #expect(pages.allSatisfy { !$0.isEmpty && $0.count <= Self.mostPerPage })
        #expect(Set(pages.flatMap { $0 }.map(\.key.id.rawValue)) == Set((0..<40).map { "r\($0)" }))
    }

    /// One record larger than the budget still travels, a page of its own.
    @Test func aRecordLargerThanTheBudgetIsAPageOfItsOwn() throws {
        let directory = try TemporaryDirectory()
        var options = StoreOptions()
        options.maximumPageBytes = 1_000
        let store = try Store.create(at: directory.subpath("s"), name: "s", options: options)
        for index in 0..<3 {
            try store.put(["body": .string(String(repeating: "x", count: 5_000))], entity: notes, id: RecordID("r\(index)"))
        }
        let first = try store.changes(after: 0, excluding: VersionVector(), limit: 5_000)
        #expect(first.changes.count == 1 && first.through == 1 && first.head == 3)
    }

    /// Joining and pulling from a store that pages by bytes copies every record.
    @Test func syncsCopyEveryRecordPageByPage() async throws {
        let directory = try TemporaryDirectory()
        let source = try largeRecords(directory)
        var options = StoreOptions()
        options.maximumPageBytes = 64 << 10
        let joined = try Store.create(at: directory.subpath("joined"), name: "joined")
        var report = try await joined.sync(with: FolderTransport(path: source.path, options: options))
        #expect(report.pulled == 40)
        #expect(try joined.records(of: notes).count == 40)
        for index in 0..<10 {
            try source.put(["n": .integer(Int64(100 + index)), "body": .string(String(repeating: "y", count: 10_000))], entity: notes, id: RecordID("r\(index)"))
        }
        report = try await joined.sync(with: FolderTransport(path: source.path, options: options))
        #expect(report.plan == .incremental && report.pulled == 10)
        #expect(try joined.get(entity: notes, id: RecordID("r9"))?["n"] == .integer(109))
        #expect(try StoreVerifier(path: joined.path).verify().isClean)
    }
}
