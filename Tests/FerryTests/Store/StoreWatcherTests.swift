import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

@Suite struct StoreWatcherTests {
    /// Takes changes until `done` says they are complete or 60 s pass.
    private func gather(_ watcher: StoreWatcher, until done: (StoreWatcher.Changes) -> Bool) -> StoreWatcher.Changes {
        var all = StoreWatcher.Changes()
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while !done(all) && ContinuousClock.now < deadline {
            guard let changes = watcher.nextChanges(timeout: .seconds(1)) else { break }
            all.recordFiles.formUnion(changes.recordFiles)
            all.journalChanged = all.journalChanged || changes.journalChanged
            all.rescanReason = all.rescanReason ?? changes.rescanReason
        }
        return all
    }

    @Test func aHandEditIsReportedWithoutAScan() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/s", name: "s")
        let note = try EntityName("Note")
        let id = try store.put(.object(["title": .string("milk")]), entity: note, id: RecordID("n1"))
        let watcher = try StoreWatcher(storeAt: store.path)
        defer { watcher.stop() }
        let key = RecordKey(entity: note, id: id)
        try Data(#"{"title": "oat milk"}"#.utf8).write(to: URL(fileURLWithPath: store.layout.recordFile(key)))
        let changes = gather(watcher) { $0.recordFiles.contains(key) }
        #expect(changes.recordFiles == [key])
        #expect(!changes.journalChanged && !changes.needsScan)
    }

    @Test func aWriteThroughTheStoreReportsItsFileAndTheJournal() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/s", name: "s")
        let watcher = try StoreWatcher(storeAt: store.path)
        defer { watcher.stop() }
        let note = try EntityName("Note")
        // The entity's folder is new: it is watched as it appears, and the file in it found.
        let id = try store.put(.object(["title": .string("milk")]), entity: note, id: RecordID(String(repeating: "x", count: 250)))
        let key = RecordKey(entity: note, id: id)
        let changes = gather(watcher) { $0.recordFiles.contains(key) && $0.journalChanged }
        #expect(changes.recordFiles == [key])
        #expect(changes.journalChanged)
    }

    /// A burst of 10,000 hand-written record files: every one is reported, none lost.
    @Test func aBurstOfTenThousandWritesLosesNoEvent() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/s", name: "s")
        let note = try EntityName("Note")
        try FileSystem.createDirectory(store.layout.entityDirectory(note))
        let watcher = try StoreWatcher(storeAt: store.path)
        defer { watcher.stop() }
        var keys = Set<RecordKey>()
        for index in 0..<10_000 {
            let key = RecordKey(entity: note, id: try RecordID("n\(index)"))
            keys.insert(key)
            let file = try FileDescriptor.open(store.layout.recordFile(key), .writeOnly, options: [.create, .truncate])
            try file.closeAfter { try file.writeAll(Array(#"{"n": \#(index)}"#.utf8)) }
        }
        let changes = gather(watcher) { keys.isSubset(of: $0.recordFiles) || $0.needsScan }
        #expect(changes.rescanReason == nil)
        #expect(changes.recordFiles == keys)
    }

    /// When the kernel's queue overflows, the events say so: a burst read late, with more events
    /// than fs.inotify.max_queued_events allows.
    @Test func anOverflowedQueueSaysSoAndTheWatcherAsksForAScan() throws {
        let directory = try TemporaryDirectory()
        let events = try DirectoryEvents()
        try events.watch(directory.path)
        let limit = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 16_384
        try #require(limit <= 1 << 20, "max_queued_events is \(limit) here: too many writes to overflow it in a test")
        // Two files in turn, so that the kernel cannot merge an event with the one before it.
        let paths = [directory.path + "/a", directory.path + "/b"]
        for index in 0...(limit + 10) {
            let file = try FileDescriptor.open(paths[index % 2], .writeOnly, options: [.create])
            file.close()
        }
        let read = try events.read(timeout: .seconds(5), wakeup: nil)
        #expect(read.contains { $0.kind == .overflow })

        let store = try Store.create(at: directory.path + "/s", name: "s")
        let watcher = try StoreWatcher(storeAt: store.path)
        defer { watcher.stop() }
        var changes = StoreWatcher.Changes()
        watcher.take(DirectoryEvents.Event(kind: .overflow, path: ""), into: &changes)
        #expect(changes.needsScan)
        #expect(changes.rescanReason?.contains("overflowed") == true)
    }

    @Test func stopEndsTheChanges() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/s", name: "s")
        let watcher = try StoreWatcher(storeAt: store.path)
        watcher.stop()
        #expect(watcher.nextChanges(timeout: .seconds(5)) == nil)
    }
}
