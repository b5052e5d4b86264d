import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

@Suite(.eachTestOnItsOwnThread) struct StoreChangeFeedTests {
    /// The first `count` changes of `store.changes(since:)`; the feed is cancelled (and the
    /// test fails) when they have not come within 300 s.
    private func take(_ count: Int, from store: Store, since position: UInt64) async throws -> [CommittedChange] {
        let taken = try await Deadline.run(within: 300) {
            var taken: [CommittedChange] = []
            for try await committed in store.changes(since: position) {
                taken.append(committed)
                if taken.count == count { break }
            }
            return taken
        }
        #expect(taken.count == count, "the feed gave \(taken.count) of \(count) changes within 300 s")
        return taken
    }

    @Test func localWritesReceivedChangesAndJournaledHandEditsArriveInOrderWithNothingSkippedOrRepeated() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/a", name: "a")
        let other = try Store.create(at: directory.path + "/b", name: "b")
        let note = try EntityName("Note")
        _ = try store.put(.object(["title": .string("one")]), entity: note, id: RecordID("n1"))

        let existing = try await take(1, from: store, since: 0)
        #expect(existing.map(\.change.key.id.rawValue) == ["n1"])
        let first = try #require(existing.last).position

        // A write made while the feed waits (or just before it reads: both must be seen).
        async let waited = take(1, from: store, since: first)
        _ = try store.put(.object(["title": .string("two")]), entity: note, id: RecordID("n2"))
        let second = try await waited
        #expect(second.map(\.change.key.id.rawValue) == ["n2"])

        // A change received from a peer, and a hand edit once journaled.
        _ = try other.put(.object(["title": .string("from b")]), entity: note, id: RecordID("b1"))
        _ = try await SyncEngine(store: store, transport: FolderTransport(path: other.path)).run()
        let key = RecordKey(entity: note, id: try RecordID("n1"))
        let file = try FileDescriptor.open(store.layout.recordFile(key), .writeOnly, options: [.truncate])
        try file.closeAfter { try file.writeAll(Array(#"{"title": "one, by hand"}"#.utf8)) }
        _ = try store.commit()
        let later = try await take(2, from: store, since: try #require(second.last).position)
        #expect(later.map(\.change.key.id.rawValue) == ["b1", "n1"])
        let positions = (existing + second + later).map(\.position)
        #expect(positions == positions.sorted() && Set(positions).count == positions.count)

        // Resumed after a restart from the last position taken: only what came after.
        _ = try store.put(.object(["title": .string("three")]), entity: note, id: RecordID("n3"))
        let resumed = try await take(1, from: store, since: try #require(later.last).position)
        #expect(resumed.map(\.change.key.id.rawValue) == ["n3"])
    }

    @Test func cancellingTheTaskEndsTheFeed() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/a", name: "a")
        let reading = Task { () -> Int in
            var count = 0
            for try await _ in store.changes(since: 0) { count += 1 }
            return count
        }
        reading.cancel()
        #expect(try await reading.value == 0)
    }
}
