import Foundation
import FerryTestSupport
import Testing
@testable import Ferry

/// With a ``HandEditMonitor`` running, `status` and `commit` examine only the record files it
/// saw touched, and whenever it cannot vouch for the rest they scan, never answering wrong.
/// "Examined only those" is read from ``StoreStatus/search``, a count of files, not a time.
@Suite struct HandEditMonitorTests {
    static let notes = try! EntityName("Note")

    /// A store of `count` notes `n0`, `n1`, …, clean.
    static func store(in directory: TemporaryDirectory, count: Int = 200) throws -> Store {
        let store = try Store.create(at: directory.path + "/store")
        try store.write((0..<count).map { .put(key("n\($0)"), ["n": .integer(Int64($0))]) })
        return store
    }

    static func key(_ id: String) -> RecordKey {
        RecordKey(entity: notes, id: try! RecordID(id))
    }

    /// Runs `body` with a store of `count` notes, a monitor running for it, and a first status
    /// behind them (a scan: nothing to start from yet), the point the next ones start from.
    static func withWatchedStore(count: Int = 200, _ body: (Store, HandEditMonitor) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory, count: count)
        defer { store.close() }
        let monitor = try store.startHandEditMonitor()
        defer { monitor.stop() }
        let first = try store.status()
        #expect(first.isClean)
        guard case .scan = first.search else {
            Issue.record("the first status has nothing to start from, yet: \(first.search)")
            return
        }
        try body(store, monitor)
    }

    static func write(_ text: String, to key: RecordKey, in store: Store) throws {
        _ = try FileSystem.writeFileAtomically(store.layout.recordFile(key), Array(text.utf8), durable: false)
    }

    /// The first status with a monitor scans (nothing to start from); the next ones examine
    /// only what changed, and find a modified, a created and a deleted file as a scan does.
    @Test func editsCreationsAndDeletionsAreFoundByExaminingOnlyThoseFiles() throws {
        try Self.withWatchedStore { store, monitor in try Self.findEditsCreationsAndDeletions(store, monitor) }
    }

    static func findEditsCreationsAndDeletions(_ store: Store, _ monitor: HandEditMonitor) throws {
        let quiet = try store.status()
        #expect(quiet.isClean)
        #expect(quiet.search == .watcher(pid: monitor.processID, examined: 0))

        try Self.write(#"{"n": 1000}"#, to: Self.key("n1"), in: store)
        try Self.write(#"{"new": true}"#, to: Self.key("fresh"), in: store)
        try FileSystem.removeFile(store.layout.recordFile(Self.key("n2")))
        let edited = try store.status()
        #expect(edited.search == .watcher(pid: monitor.processID, examined: 3))
        #expect(edited.edits.map(\.kind) == [.created, .modified, .deleted], "\(edited.edits)")
        #expect(edited.edits.map(\.key.id.rawValue) == ["fresh", "n1", "n2"])
        #expect(edited.edits.map(\.document) == [["new": true], ["n": 1000], nil])

        // Unjournaled edits stay in what the next status examines, until committed.
        #expect(try store.status().edits == edited.edits)
        #expect(try store.commit().committed.count == 3)
        // The commit wrote the journaled files anew (Ferry's writes, which the monitor reports
        // too): the status after it examines those, and the one after that nothing.
        let after = try store.status()
        #expect(after.isClean)
        guard case .watcher(_, let examined) = after.search else {
            Issue.record("after a commit the monitor can still vouch, yet: \(after.search)")
            return
        }
        #expect(examined <= 3)
        #expect(try store.status().search == .watcher(pid: monitor.processID, examined: 0))
    }

    /// Ferry's own writes touch record files too: the monitor reports them, and the
    /// comparison with the index tells them from hand edits.
    @Test func ferrysOwnWritesAreNotHandEdits() throws {
        try Self.withWatchedStore { store, _ in try Self.tellOwnWritesFromHandEdits(store) }
    }

    static func tellOwnWritesFromHandEdits(_ store: Store) throws {
        try store.put(["n": 70], entity: Self.notes, id: RecordID("n7"))
        try store.put(["n": -1], entity: Self.notes, id: RecordID("added"))
        _ = try store.delete(entity: Self.notes, id: RecordID("n8"))
        let status = try store.status()
        #expect(status.isClean, "\(status.edits)")
        guard case .watcher(_, let examined) = status.search else {
            Issue.record("the monitor could vouch, yet: \(status.search)")
            return
        }
        #expect(examined == 3)
    }

    /// An edit made a moment before `status` is never missed: the status drops a cookie and
    /// waits until the monitor has heard of it, and the kernel queued the edit before it.
    @Test func anEditJustBeforeStatusIsNeverMissed() throws {
        try Self.withWatchedStore(count: 20) { store, _ in try Self.editThenStatus(store, rounds: 200) }
    }

    static func editThenStatus(_ store: Store, rounds: Int) throws {
        var examinedOnly = 0
        for round in 0..<rounds {
            let key = Self.key("n\(round % 20)")
            try Self.write(#"{"round": \#(round)}"#, to: key, in: store)
            let status = try store.status()
            #expect(status.edits.map(\.key) == [key], "round \(round): \(status.search)")
            #expect(status.edits.first?.document == ["round": .integer(Int64(round))], "round \(round)")
            if case .watcher = status.search { examinedOnly += 1 }
            try store.commit()
        }
        // Not a scan in disguise: the monitor answered (a loaded machine may let a few time out).
        #expect(examinedOnly >= rounds * 3 / 4, "\(examinedOnly) of \(rounds) statuses used the monitor")
    }

    /// A status or commit of a store watched from this very process (as each round of
    /// `ferry sync --watch` is) waits for its cookie on the monitor itself: it opens no inotify
    /// instance of its own, whose close waits for the kernel's fsnotify grace period (seconds,
    /// on a busy machine, with the store's lock held: the stalls of a served live sync).
    @Test func aMonitorOfThisProcessAnswersWithoutAnInotifyInstance() throws {
        try Self.withWatchedStore(count: 20) { store, monitor in
            let opened = OpenedInstances()
            try DirectoryEvents.$openingObserver.withValue({ opened.count() }) {
                try Self.write(#"{"n": 99}"#, to: Self.key("n3"), in: store)
                let status = try store.status()
                #expect(status.search == .watcher(pid: monitor.processID, examined: 1))
                #expect(try store.commit().committed.map(\.key) == [Self.key("n3")])
                guard case .watcher = try store.status().search else {
                    Issue.record("after a commit the monitor can still vouch")
                    return
                }
            }
            #expect(opened.total == 0, "each of the three asked through an inotify instance of its own")
        }
    }

    /// A status or commit in another process than the monitor's (`ferry status` beside a
    /// `ferry watch`) learns of the publish that answers its cookie from the monitor's
    /// doorbell, a socket: no inotify instance either, whose close would cost the command
    /// milliseconds at best. (The monitor is hidden from this process's table, as it would be
    /// from another process.)
    @Test func aMonitorOfAnotherProcessAnswersThroughItsDoorbell() throws {
        try Self.withWatchedStore(count: 20) { store, monitor in
            let folder = try #require(RunningHandEditMonitors.Folder(at: store.layout.handEditMonitor))
            RunningHandEditMonitors.shared.remove(monitor, publishingIn: folder)
            #expect(FileSystem.exists(store.layout.handEditMonitorDoorbell))
            let opened = OpenedInstances()
            try DirectoryEvents.$openingObserver.withValue({ opened.count() }) {
                for round in 0..<20 {
                    try Self.write(#"{"round": \#(round)}"#, to: Self.key("n\(round)"), in: store)
                    let status = try store.status()
                    #expect(status.edits.map(\.key) == [Self.key("n\(round)")], "round \(round)")
                    try store.commit()
                }
                guard case .watcher(let pid, _) = try store.status().search else {
                    Issue.record("the doorbell answered no status")
                    return
                }
                #expect(pid == monitor.processID)
            }
            #expect(opened.total == 0, "a status watched the monitor's folder with an inotify instance of its own")
        }
    }

    /// A status that finds nothing touched, nothing journaled and the same files unsettled
    /// leaves the baseline as it is (a no-op `ferry sync` writes nothing there); one that
    /// finds an edit moves it.
    @Test func aQuietStatusLeavesTheBaselineAsItIs() throws {
        try Self.withWatchedStore(count: 20) { store, monitor in
            let path = store.layout.handEditBaseline
            let written = try #require(try FileSystem.status(path))
            for _ in 0..<3 {
                let quiet = try store.status()
                #expect(quiet.search == .watcher(pid: monitor.processID, examined: 0))
                #expect(try FileSystem.status(path)?.inode == written.inode, "a quiet status wrote the baseline again")
            }
            try Self.write(#"{"n": -5}"#, to: Self.key("n5"), in: store)
            let edited = try store.status()
            #expect(edited.edits.map(\.key) == [Self.key("n5")])
            #expect(try FileSystem.status(path)?.inode != written.inode)
            // Still unsettled: the next status examines it again, found through the kept baseline.
            #expect(try store.status().edits.map(\.key) == [Self.key("n5")])
            #expect(try store.status().search == .watcher(pid: monitor.processID, examined: 1))
        }
    }

    /// A status asked on the monitor's own thread (an `onEvent` handler) cannot be answered by
    /// it, since it waits: it scans at once, rather than holding up every other consumer's
    /// cookie until it gives up.
    @Test func aStatusOnTheMonitorsOwnThreadDoesNotWaitForItself() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory, count: 5)
        defer { store.close() }
        let asked = AskedFromHandler()
        let monitor = try HandEditMonitor(storeAt: store.path) { event in
            guard case .published = event, asked.isFirst() else { return }
            asked.finish(Result { try store.status() })
        }
        defer { monitor.stop() }
        try Self.write(#"{"n": 7}"#, to: Self.key("n1"), in: store)
        let status = try asked.wait().get()
        #expect(status.edits.map(\.key) == [Self.key("n1")])
        #expect(status.search == .scan(reason: "asked on the store's watcher's own thread, which cannot answer while it waits"))
    }

    /// start from: one scan, with the right answer, then the monitor again.
    @Test func aNewGenerationCostsOneScan() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory)
        defer { store.close() }
        let first = try store.startHandEditMonitor()
        _ = try store.status()
        #expect(try store.status().search == .watcher(pid: first.processID, examined: 0))
        first.stop()
        // Made while no monitor ran: only a scan can find it.
        try Self.write(#"{"n": -5}"#, to: Self.key("n5"), in: store)
        let second = try store.startHandEditMonitor()
        defer { second.stop() }
        let status = try store.status()
        guard case .scan(let reason) = status.search else {
            Issue.record("a new generation must cost a scan, yet: \(status.search)")
            return
        }
        #expect(reason.contains("started after the last status"), "\(reason)")
        #expect(status.edits.map(\.key) == [Self.key("n5")])
        #expect(try store.status().search == .watcher(pid: second.processID, examined: 1))
    }

    /// When the monitor loses track (an entity folder removed whole; more keys than its bound),
    /// it starts a new generation, and the next status scans once.
    @Test func aMonitorThatLostTrackCostsOneScan() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory, count: 10)
        defer { store.close() }
        let monitor = try HandEditMonitor(storeAt: store.path, keyLimit: 5)
        defer { monitor.stop() }
        _ = try store.status()
        for number in 0..<6 { try Self.write(#"{"edited": \#(number)}"#, to: Self.key("n\(number)"), in: store) }
        let overLimit = try store.status()
        guard case .scan(let reason) = overLimit.search else {
            Issue.record("past its bound the monitor cannot vouch, yet: \(overLimit.search)")
            return
        }
        #expect(reason.contains("more than 5 record files changed"), "\(reason)")
        #expect(overLimit.edits.count == 6)
        try store.commit()

        let other = try EntityName("Other")
        try store.put(["x": 1], entity: other, id: RecordID("o1"))
        #expect(try store.status().isClean)
        try FileSystem.removeTree(store.layout.entityDirectory(other))
        let removed = try store.status()
        guard case .scan(let why) = removed.search else {
            Issue.record("a removed folder leaves the monitor blind, yet: \(removed.search)")
            return
        }
        #expect(why.contains("was removed"), "\(why)")
        #expect(removed.edits.map(\.kind) == [.deleted])
    }

    /// A file that is not a record file (a text file; an editor's swap file is passed over, see
    /// `IgnoreRulesTests`) is a problem only a scan lists: the status after it scans, and says so.
    @Test func aStrayFileMakesTheNextStatusScan() throws {
        try Self.withWatchedStore(count: 10) { store, _ in try Self.scanAfterAStrayFile(store) }
    }

    static func scanAfterAStrayFile(_ store: Store) throws {
        _ = try FileSystem.writeFileAtomically(store.layout.entityDirectory(Self.notes) + "/n1.txt", [0], durable: false)
        let status = try store.status()
        #expect(status.search == .scan(reason: "files that are not record files changed under records/"))
        #expect(status.problems.map(\.path) == ["records/Note/n1.txt"])
    }

    /// A journal that went back (restored from an older copy: no file event says so) is not
    /// the one the last status saw: the next status scans.
    @Test func aJournalBehindTheLastStatusMakesTheNextOneScan() throws {
        try Self.withWatchedStore(count: 10) { store, monitor in try Self.scanAfterTheJournalWentBack(store, monitor) }
    }

    static func scanAfterTheJournalWentBack(_ store: Store, _ monitor: HandEditMonitor) throws {
        #expect(try store.status().search == .watcher(pid: monitor.processID, examined: 0))
        // As if the last status had seen a journal further on than this one.
        var baseline = try #require(HandEditBaseline.read(at: store.layout.handEditBaseline))
        baseline.journal.sequence += 1
        _ = try FileSystem.writeFileAtomically(store.layout.handEditBaseline, baseline.jsonValue.canonicalBytes(), durable: false)
        let status = try store.status()
        #expect(status.search == .scan(reason: "the journal is not the one the last status saw (restored from a copy?)"))
        #expect(status.isClean)
    }

    /// One monitor per store: a second says which process serves already.
    @Test func aSecondMonitorIsRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory, count: 1)
        defer { store.close() }
        let monitor = try store.startHandEditMonitor()
        defer { monitor.stop() }
        #expect {
            try store.startHandEditMonitor()
        } throws: { error in
            guard case HandEditMonitorError.alreadyRunning(_, let pid) = error else { return false }
            return pid == monitor.processID
        }
    }
}

/// Counts the inotify instances opened in a task.
private final class OpenedInstances: @unchecked Sendable {
    private let lock = NSLock()
    private var opened = 0

    func count() { lock.withLock { opened += 1 } }
    var total: Int { lock.withLock { opened } }
}

/// The one status a monitor's event handler asks, handed to the test's thread.
private final class AskedFromHandler: @unchecked Sendable {
    private let condition = NSCondition()
    private var started = false
    private var result: Result<StoreStatus, any Error>?

    /// True the first time only.
    func isFirst() -> Bool {
        condition.withLock {
            defer { started = true }
            return !started
        }
    }

    func finish(_ outcome: Result<StoreStatus, any Error>) {
        condition.withLock {
            result = outcome
            condition.broadcast()
        }
    }

    /// The status, once asked (the handler runs at the first publish, which the edit causes).
    func wait() throws -> Result<StoreStatus, any Error> {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(60)
        while result == nil {
            guard condition.wait(until: deadline) else { throw TestTimeout() }
        }
        return result ?? .failure(TestTimeout())
    }
}

private struct TestTimeout: Error {}
