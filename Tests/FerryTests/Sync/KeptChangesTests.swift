import FerryTestSupport
import Testing

@testable import Ferry

/// A sync checks every change before it applies or pushes any, and keeps them in memory
/// between the two only up to ``SyncOptions/maximumKeptChangeBytes``; past it, a pull keeps
/// them in a spool file and a push reads its journal again, page by page, so memory stays flat
/// however many changes it carries (an incremental pull of 333k changes held them all and
/// peaked at 629 MB). A pull without a spool file reads them from the peer again. Kept,
/// spooled or read again, the result is the same, and every check still comes before anything
/// is written.
@Suite struct KeptChangesTests {
    let notes = try! EntityName("Note")

    /// Options that keep about ten changes of these records, in pages of 16.
    static var small: SyncOptions {
        var options = SyncOptions()
        options.maximumKeptChangeBytes = 3_000
        options.pageSize = 16
        return options
    }

    /// The same without a spool file: a pull reads its changes from the peer again.
    static var smallWithoutSpool: SyncOptions {
        var options = small
        options.spoolDirectory = nil
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

    /// Past the budget a pull keeps what it checked in a spool file and applies it from there:
    /// each page is fetched from the peer once (over S3 or HTTP, a second read cost every
    /// request again). Without a spool folder, or with one where no file can be made, it reads
    /// them from the peer again; the result is the same every way.
    @Test func anIncrementalPullPastTheBudgetIsSpooledOrReadAgainWithTheSameResult() async throws {
        let directory = try TemporaryDirectory()
        let (source, kept, spooled) = try await replicas(directory)
        let readAgain = try Store.create(at: directory.subpath("read-again"), name: "read-again")
        let unwritable = try Store.create(at: directory.subpath("unwritable"), name: "unwritable")
        for replica in [readAgain, unwritable] { _ = try await replica.sync(with: FolderTransport(path: source.path)) }
        for index in 0..<60 { try source.put(["n": .integer(Int64(1_000 + index)), "text": .string("é \u{1F600} \(index)"), "x": 0.1], entity: notes, id: RecordID("r\(index)")) }
        for index in 90..<95 { _ = try source.delete(entity: notes, id: RecordID("r\(index)")) }
        for index in 100..<110 { try source.put(["n": .integer(Int64(index)), "nested": ["a": [1, 2.5, "b", nil]]], entity: notes, id: RecordID("r\(index)")) }

        let defaults = try await SyncEngine(store: kept, transport: FolderTransport(path: source.path)).run()
        let counting = RereadingTransport(FolderTransport(path: source.path)) { _, changes in changes }
        let paged = try await SyncEngine(store: spooled, transport: counting, options: Self.small).run()
        let again = try await SyncEngine(store: readAgain, transport: FolderTransport(path: source.path), options: Self.smallWithoutSpool).run()
        var noFolder = Self.small
        noFolder.spoolDirectory = directory.subpath("no/such/folder")
        let fallback = try await SyncEngine(store: unwritable, transport: FolderTransport(path: source.path), options: noFolder).run()
        for report in [defaults, paged, again, fallback] {
            #expect(report.plan == .incremental && report.pulled == 75)
        }
        #expect(defaults.changesReadAgain == 0 && defaults.changesSpooled == 0)
        #expect(paged.changesSpooled == 75 && paged.changesReadAgain == 0)
        #expect(counting.rereadCount == 0, "a page of the peer was fetched twice")
        #expect(again.changesReadAgain == 75 && again.changesSpooled == 0)
        #expect(fallback.changesReadAgain == 75 && fallback.changesSpooled == 0)
        for replica in [kept, spooled, readAgain, unwritable] {
            #expect(try contents(replica) == contents(source))
            #expect(try StoreVerifier(path: replica.path).verify().isClean)
            // The checkpoint covers what was applied: nothing is left to pull.
            let next = try await SyncEngine(store: replica, transport: FolderTransport(path: source.path), options: Self.small).run()
            #expect(next.plan == .upToDate)
        }
    }

    /// With a spool file, a peer that would give other changes on a second read (rewritten
    /// between the reads) is never read twice: the pull applies exactly what it checked.
    @Test func aSpooledPullAppliesWhatItCheckedEvenIfThePeerChangesMeanwhile() async throws {
        let directory = try TemporaryDirectory()
        let (source, _, replica) = try await replicas(directory)
        for index in 0..<60 { try source.put(["n": .integer(Int64(1_000 + index))], entity: notes, id: RecordID("r\(index)")) }
        let stranger = try #require(try source.changes(after: 0, excluding: VersionVector(), limit: 1).changes.first)
        let rewriting = RereadingTransport(FolderTransport(path: source.path)) { _, changes in
            changes.isEmpty ? changes : changes.dropLast() + [stranger]
        }
        let report = try await SyncEngine(store: replica, transport: rewriting, options: Self.small).run()
        #expect(report.pulled == 60 && report.changesSpooled == 60)
        #expect(rewriting.rereadCount == 0)
        #expect(try contents(replica) == contents(source))
    }

    @Test func aPushPastTheBudgetIsReadAgainWithTheSameResult() async throws {
        let directory = try TemporaryDirectory()
        let (source, _, replica) = try await replicas(directory)
        for index in 0..<50 { try replica.put(["n": .integer(Int64(5_000 + index))], entity: notes, id: RecordID("r\(index)")) }
        let report = try await SyncEngine(store: replica, transport: FolderTransport(path: source.path), options: Self.small).run()
        #expect(report.pushed == 50 && report.pulled == 0)
        #expect(report.changesReadAgain == 50 && report.changesSpooled == 0)
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

    /// Without a spool file, a peer whose changes read back differently the second time
    /// (rewritten, or another store put in its place, between the sync's two reads) stops the sync before a change
    /// that was not checked is applied; the pages before stay, and the next sync completes.
    /// The stranger here is a valid change of another replica (its digest matches, so
    /// applying would take it): a deletion no check saw.
    @Test func changesThatReadBackDifferentlyAreNeverApplied() async throws {
        let directory = try TemporaryDirectory()
        let (source, _, replica) = try await replicas(directory)
        for index in 0..<60 { try source.put(["n": .integer(Int64(1_000 + index))], entity: notes, id: RecordID("r\(index)")) }
        let other = try Store.create(at: directory.subpath("other"), name: "other")
        _ = try await other.sync(with: FolderTransport(path: source.path))
        _ = try other.delete(entity: notes, id: RecordID("r99"))
        let stranger = try #require(try other.changes(after: other.headSequence - 1, excluding: VersionVector(), limit: 1).changes.first)
        #expect(stranger.isDelete)
        // From the third page read again on, each page's last change is the stranger.
        let rewriting = RereadingTransport(FolderTransport(path: source.path)) { reread, changes in
            guard reread >= 3, !changes.isEmpty else { return changes }
            return changes.dropLast() + [stranger]
        }
        do {
            _ = try await SyncEngine(store: replica, transport: rewriting, options: Self.smallWithoutSpool).run()
            Issue.record("the sync applied changes it had not checked")
        } catch {
            #expect("\(error)".contains("changed during the sync"), "\(error)")
            #expect("\(error)".contains("read back differently"), "\(error)")
        }
        #expect(try replica.get(entity: notes, id: RecordID("r99")) == ["n": 99])
        // Two pages of 16 went in before the third was found changed, and no more.
        let updated = try contents(replica).values.filter { ($0["n"]?.integerValue ?? 0) >= 1_000 }
        #expect(updated.count == 32)
        #expect(try StoreVerifier(path: replica.path).verify().isClean)

        let again = try await SyncEngine(store: replica, transport: FolderTransport(path: source.path), options: Self.small).run()
        #expect(again.pulled == 28)
        #expect(try contents(replica) == contents(source))
    }

    /// Without a spool file, a peer that cannot give all the changes checked again (its
    /// journal cut short between the reads) stops the sync with a message, and nothing unchecked is applied.
    @Test func changesThatCannotBeReadAgainStopTheSync() async throws {
        let directory = try TemporaryDirectory()
        let (source, _, replica) = try await replicas(directory)
        for index in 0..<60 { try source.put(["n": .integer(Int64(1_000 + index))], entity: notes, id: RecordID("r\(index)")) }
        let vanishing = RereadingTransport(FolderTransport(path: source.path)) { reread, changes in
            reread >= 2 ? [] : changes
        }
        do {
            _ = try await SyncEngine(store: replica, transport: vanishing, options: Self.smallWithoutSpool).run()
            Issue.record("the sync ended without the changes it had checked")
        } catch {
            #expect("\(error)".contains("only 16 of the 60 changes checked could be read again"), "\(error)")
        }
        let again = try await SyncEngine(store: replica, transport: FolderTransport(path: source.path)).run()
        #expect(again.pulled == 44)
        #expect(try contents(replica) == contents(source))
    }
}

/// A folder peer whose pages read a second time (at a position read before) go through
/// `rewrite`, told how many pages were read again so far (1 for the first).
private final class RereadingTransport: ForwardingFolderPeer, @unchecked Sendable {
    let rewrite: (Int, [Change]) -> [Change]
    private var positionsRead = Set<UInt64>()
    private var rereads = 0
    /// How many pages were read at a position read before.
    var rereadCount: Int { rereads }

    init(_ inner: FolderTransport, rewrite: @escaping (Int, [Change]) -> [Change]) {
        self.rewrite = rewrite
        super.init(inner)
    }

    override func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch {
        var batch = try await inner.changes(after: position, excluding: knowledge, limit: limit)
        if !positionsRead.insert(position).inserted {
            rereads += 1
            batch.changes = rewrite(rereads, batch.changes)
        }
        return batch
    }
}
