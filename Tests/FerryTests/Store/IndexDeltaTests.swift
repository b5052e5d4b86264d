import Testing
import Foundation
import FerryTestSupport
@testable import Ferry

/// The index delta (`.ferry/index-delta`): records changed since the image by earlier
/// processes, looked up on disk rather than decoded whole when a store is opened.
@Suite struct IndexDeltaTests {
    let notes = try! EntityName("Note")
    let users = try! EntityName("User")

    private func key(_ entity: EntityName, _ id: String) -> RecordKey { RecordKey(entity: entity, id: try! RecordID(id)) }

    /// A store with a 300-record image and a delta of 40 changed and 10 new records.
    private func storeWithDelta(at path: String) throws {
        var options = StoreOptions()
        options.imageInterval = 1_000
        let store = try Store.create(at: path, options: options)
        try store.write((0..<300).map { .put(key(notes, "n\($0)"), ["v": 0]) })
        try store.writeIndexImage()
        try store.write((0..<40).map { .put(key(notes, "n\($0 * 7)"), ["v": 1]) } + (0..<10).map { .put(key(users, "u\($0)"), ["u": .integer(Int64($0))]) })
        store.close()
        #expect(FileSystem.exists(path + "/.ferry/index-delta"))
    }

    @Test func aFileStampIsSetInPlaceWhereverTheRecordIs() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        try storeWithDelta(at: path)
        let store = try Store.open(at: path)
        defer { store.close() }
        try store.put(["v": 2], entity: notes, id: RecordID("n1"))
        let count = store.index.records.count
        let stamp = FileStamp(size: 7, modificationNanoseconds: 1, inode: 2, contentHash: .zero, takenAtNanoseconds: 3)
        // In memory (just written), in the delta (n7), in the image only (n2), and absent.
        for id in ["n1", "n7", "n2"] {
            let key = key(notes, id)
            store.index.records.setFile(stamp, of: key)
            #expect(store.index.records[key]?.file == stamp, "\(id)")
            #expect(store.index.records[key]?.isLive == true, "\(id) keeps its versions")
        }
        store.index.records.setFile(nil, of: key(notes, "n2"))
        #expect(store.index.records[key(notes, "n2")]?.file == nil)
        store.index.records.setFile(stamp, of: key(notes, "absent"))
        #expect(store.index.records[key(notes, "absent")] == nil)
        #expect(store.index.records.count == count, "no record was added")
    }

    @Test func openingAndReadingLeaveTheDeltaOnDisk() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        try storeWithDelta(at: path)
        let store = try Store.open(at: path)
        defer { store.close() }
        #expect(store.index.records.delta != nil)
        #expect(store.index.records.overlay.isEmpty)
        #expect(try store.get(entity: notes, id: RecordID("n7")) == ["v": 1])
        #expect(try store.get(entity: notes, id: RecordID("n8")) == ["v": 0])
        #expect(try store.get(entity: users, id: RecordID("u3")) == ["u": 3])
        #expect(store.index.records.overlay.isEmpty, "lookups must not decode the delta into memory")
        #expect(store.index.records.count == 310)
    }

    @Test func writesOnTopOfTheDeltaKeepEveryChange() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        try storeWithDelta(at: path)
        do {
            let store = try Store.open(at: path)
            // One record of the delta changed again, one of the image, one new, one deleted.
            try store.write([
                .put(key(notes, "n7"), ["v": 2]), .put(key(notes, "n8"), ["v": 2]), .put(key(notes, "new"), ["v": 2]),
                .delete(key(users, "u1")),
            ])
            #expect(store.index.records.count == 311)
            store.close()
        }
        let store = try Store.open(at: path)
        defer { store.close() }
        #expect(try store.get(entity: notes, id: RecordID("n7")) == ["v": 2])
        #expect(try store.get(entity: notes, id: RecordID("n8")) == ["v": 2])
        #expect(try store.get(entity: notes, id: RecordID("n14")) == ["v": 1])
        #expect(try store.get(entity: notes, id: RecordID("new")) == ["v": 2])
        #expect(try store.get(entity: users, id: RecordID("u1")) == nil)
        #expect(try store.ids(of: users).count == 9)
        #expect(try store.ids(of: notes).count == 301)
        #expect(store.index.records.count == 311)
        #expect(try store.status().edits.isEmpty)
        // The whole table read back equals a rebuild from the journal.
        let read = Dictionary(uniqueKeysWithValues: store.index.records.map { ($0.key, $0.value.winner.contentHash) })
        try FileSystem.removeFile(path + "/.ferry/index")
        try FileSystem.removeFile(path + "/.ferry/index-delta")
        store.close()
        let rebuilt = try Store.open(at: path)
        defer { rebuilt.close() }
        #expect(Dictionary(uniqueKeysWithValues: rebuilt.index.records.map { ($0.key, $0.value.winner.contentHash) }) == read)
    }

    /// The table as read back, by key, compared with a rebuild from the journal.
    private func expectSameAsRebuild(_ path: String) throws {
        let store = try Store.open(at: path)
        let read = Dictionary(uniqueKeysWithValues: store.index.records.map { ($0.key, $0.value) })
        store.close()
        try FileSystem.removeFile(path + "/.ferry/index")
        try? FileSystem.removeFile(path + "/.ferry/index-delta")
        let rebuilt = try Store.open(at: path, options: { var options = StoreOptions(); options.warningHandler = { _ in }; return options }())
        defer { rebuilt.close() }
        let expected = Dictionary(uniqueKeysWithValues: rebuilt.index.records.map { ($0.key, $0.value) })
        #expect(read.count == expected.count)
        for (key, state) in expected {
            #expect(read[key]?.versions.map(\.identity) == state.versions.map(\.identity), "\(key)")
            #expect(read[key]?.winner.contentHash == state.winner.contentHash, "\(key)")
        }
    }

    @Test func aNewReplicaAndAFullImageKeepTheDeltaLinesValid() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        try storeWithDelta(at: path)
        // Changes from two replicas the image has never seen, synced in two processes, the
        // one whose id sorts last first: its lines in the delta must keep their number.
        var others: [Store] = []
        for index in 0..<2 {
            let other = try Store.create(at: directory.subpath("other\(index)"))
            try other.write((0..<5).map { .put(key(notes, "o\(index)-\($0)"), ["o": .integer(Int64($0))]) })
            others.append(other)
        }
        others.sort { $0.replicaID.rawValue > $1.replicaID.rawValue }
        for other in others {
            let store = try Store.open(at: path)
            _ = try await store.sync(with: FolderTransport(path: other.path))
            store.close()  // a delta: the old delta's lines copied, new replicas numbered after them
        }
        let check = try Store.open(at: path)
        for other in others {
            let id = other.path.hasSuffix("other0") ? "o0-3" : "o1-3"
            #expect(check.index.records[key(notes, id)]?.winner.identity.origin == other.replicaID)
            other.close()
        }
        check.close()
        try expectSameAsRebuild(path)

        try storeWithDelta(at: directory.subpath("t"))
        do {
            let store = try Store.open(at: directory.subpath("t"))
            try store.write([.put(key(notes, "n7"), ["v": 9]), .put(key(users, "u10"), ["u": 10])])
            try store.writeIndexImage()  // a full image: image lines, delta lines and memory merged
            #expect(!FileSystem.exists(directory.subpath("t/.ferry/index-delta")))
            store.close()
        }
        let reopened = try Store.open(at: directory.subpath("t"))
        #expect(try reopened.get(entity: notes, id: RecordID("n7")) == ["v": 9])
        #expect(try reopened.get(entity: notes, id: RecordID("n14")) == ["v": 1])
        #expect(reopened.index.records.count == 311)
        reopened.close()
        try expectSameAsRebuild(directory.subpath("t"))
    }

    @Test func aDamagedDeltaLineIsRebuiltFromTheJournal() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        try storeWithDelta(at: path)
        // Break the versions of one delta line (keep its sort key so a lookup finds it).
        var text = try String(contentsOfFile: path + "/.ferry/index-delta", encoding: .utf8)
        let marker = "K\tNote\tn7\t"
        let start = try #require(text.range(of: marker))
        let lineEnd = try #require(text[start.upperBound...].firstIndex(of: "\n"))
        text.replaceSubrange(start.upperBound..<lineEnd, with: "garbage")
        try text.write(toFile: path + "/.ferry/index-delta", atomically: false, encoding: .utf8)
        let warnings = WarningRecorder()
        var options = StoreOptions()
        options.warningHandler = warnings.handler
        let store = try Store.open(at: path, options: options)
        defer { store.close() }
        // The damaged line surfaces on the write that looks it up: the index is rebuilt and
        // the write goes through.
        try store.write([.put(key(notes, "n7"), ["v": 3])])
        #expect(warnings.messages.contains { $0.contains("damaged") }, "\(warnings.messages)")
        #expect(try store.get(entity: notes, id: RecordID("n7")) == ["v": 3])
        #expect(try store.get(entity: notes, id: RecordID("n14")) == ["v": 1])
        #expect(try store.get(entity: users, id: RecordID("u9")) == ["u": 9])
    }
}
