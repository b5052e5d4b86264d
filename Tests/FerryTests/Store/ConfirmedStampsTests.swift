import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// File stamps a status scan confirms for records unchanged since the image are kept as
/// sort keys and stamps (``ConfirmedStamps``), not as decoded states in the index's memory,
/// and reach the image or the delta as the record's line with a new stamp.
@Suite struct ConfirmedStampsTests {
    let notes = try! EntityName("Note")

    private func key(_ id: String) -> RecordKey { RecordKey(entity: notes, id: try! RecordID(id)) }

    private func stamp(_ size: Int64, taken: Int64 = 9) -> FileStamp {
        FileStamp(size: size, modificationNanoseconds: 5, inode: 7, contentHash: SHA256.hash(Array("\(size)".utf8)), takenAtNanoseconds: taken)
    }

    private func entry(_ id: String, _ stamp: FileStamp) -> ConfirmedStamps.Entry {
        ConfirmedStamps.Entry(sortKey: IndexRecordLine.sortKey(key(id)), stamp: stamp)
    }

    /// Sets a file's modification time (and access time) to `seconds` and `nanoseconds`.
    private func setModificationTime(of file: String, seconds: Int, nanoseconds: Int = 0) {
        var times = [timespec(tv_sec: seconds, tv_nsec: nanoseconds), timespec(tv_sec: seconds, tv_nsec: nanoseconds)]
        #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
    }

    /// Sets record files' modification times a minute back (by default every file's), so a
    /// stamp taken now is outside the racy window and the next scan trusts it.
    private func ageRecordFiles(of path: String, only names: [String]? = nil) throws {
        for name in try names ?? FileSystem.contents(ofDirectory: path + "/records/Note").map(\.name) {
            let file = path + "/records/Note/" + name
            let status = try #require(try FileSystem.status(file))
            setModificationTime(of: file, seconds: Int(status.modificationNanoseconds / 1_000_000_000) - 60)
        }
    }

    /// A store of `count` notes, all in its image, their files aged.
    private func storeWithIndexImage(at path: String, count: Int, options: StoreOptions = StoreOptions()) throws -> Store {
        let store = try Store.create(at: path, options: options)
        try store.write((0..<count).map { .put(key("n\($0)"), ["v": .integer(Int64($0))]) })
        try store.writeIndexImage()
        try ageRecordFiles(of: path)
        #expect(store.index.records.overlay.isEmpty)
        return store
    }

    @Test func addingKeepsSortKeyOrderAndTheNewerStamp() {
        var stamps = ConfirmedStamps()
        stamps.add([entry("a", stamp(1)), entry("c", stamp(3))])
        stamps.add([entry("b", stamp(2)), entry("c", stamp(30)), entry("d", stamp(4))])
        #expect(stamps.entries.map(\.sortKey) == ["a", "b", "c", "d"].map { IndexRecordLine.sortKey(key($0)) })
        #expect(stamps.stamp(forSortKey: IndexRecordLine.sortKey(key("c"))) == stamp(30))
        #expect(stamps.stamp(forSortKey: IndexRecordLine.sortKey(key("b"))) == stamp(2))
        #expect(stamps.stamp(forSortKey: IndexRecordLine.sortKey(key("bb"))) == nil)
        #expect(stamps.stamp(forSortKey: IndexRecordLine.sortKey(key("e"))) == nil)
    }

    @Test func subtractingLeavesWhatWasConfirmedSince() {
        var earlier = ConfirmedStamps()
        earlier.add([entry("a", stamp(1)), entry("b", stamp(2))])
        var now = earlier
        now.add([entry("b", stamp(20)), entry("c", stamp(3))])
        let since = now.subtracting(earlier)
        #expect(since.entries == [entry("b", stamp(20)), entry("c", stamp(3))])
        #expect(earlier.subtracting(earlier).isEmpty)
    }

    @Test func aLineGetsANewStampAndKeepsEverythingElse() throws {
        let prefix = "K\tNote\tn1\t12\t"
        let versions = "0,3,1700000000000,0,0,\(String(repeating: "ab", count: 32)),12,0:3"
        let newStamp = stamp(42, taken: 1_700_000_000_000_000_000)
        var expected = Array(prefix.utf8)
        IndexRecordLine.appendStamp(newStamp, to: &expected)
        expected += Array("\t\(versions)".utf8)
        for oldStamp in ["-", "10,20,30,\(String(repeating: "cd", count: 32)),40"] {
            let line = Array((prefix + oldStamp + "\t" + versions).utf8)
            #expect(IndexRecordLine.line(line[...], withStamp: newStamp) == expected)
            #expect(IndexRecordLine.parseStamp(expected[(prefix.utf8.count)..<(expected.count - versions.utf8.count - 1)]) == .some(newStamp))
        }
        #expect(IndexRecordLine.line(Array("K\tNote\tn1".utf8)[...], withStamp: newStamp) == nil)
    }

    @Test func aScanConfirmsImageRecordsWithoutDecodingThemIntoMemory() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try storeWithIndexImage(at: path, count: 200)
        defer { store.close() }
        #expect(try store.status().isClean)
        #expect(store.index.records.overlay.isEmpty, "confirmations must not become states in memory")
        #expect(store.index.records.confirmed.count == 200)
        let status = try #require(try FileSystem.status(path + "/records/Note/n7.json"))
        let confirmed = try #require(store.index.records[key("n7")]?.file)
        #expect(confirmed.modificationNanoseconds == status.modificationNanoseconds)
        #expect(confirmed.matches(status), "a lookup sees the confirmed stamp")
        #expect(store.index.records[key("n7")]?.winner.contentHash == SHA256.hash(JSONValue.object(["v": 7]).canonicalBytes()))

        // The next scan trusts the stamps: an edit that keeps size, time and inode is not read
        // (the price of any stat-based scan), while any other edit is still found.
        let same = path + "/records/Note/n8.json"
        let original = try FileSystem.readFile(same)
        let sameStatus = try #require(try FileSystem.status(same))
        let file = try FileDescriptor.open(same, .writeOnly)
        try file.writeAll(Array(String(decoding: original, as: UTF8.self).replacingOccurrences(of: "8", with: "9").utf8))
        file.close()
        setModificationTime(
            of: same, seconds: Int(sameStatus.modificationNanoseconds / 1_000_000_000),
            nanoseconds: Int(sameStatus.modificationNanoseconds % 1_000_000_000))
        try FileSystem.writeFileAtomically(path + "/records/Note/n9.json", Array("{\"v\": 99}\n".utf8), durable: false)
        let second = try store.status()
        #expect(second.edits.map(\.path) == ["records/Note/n9.json"])
    }

    @Test func confirmedStampsReachTheImageAndSurviveReopening() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        var options = StoreOptions()
        options.imageInterval = 10
        var store = try storeWithIndexImage(at: path, count: 100, options: options)
        #expect(try store.status().isClean)
        let before = try #require(store.index.records[key("n3")]?.file)
        // A record written after its confirmation: its new state wins over the stamp.
        try store.put(["v": 300], entity: notes, id: RecordID("n30"))
        store.close()

        store = try Store.open(at: path, options: options)
        defer { store.close() }
        // The scan's 100 confirmations were merged into a new image; the later write is the delta.
        #expect(store.index.records.delta?.header.recordCount == 1)
        #expect(store.index.records[key("n3")]?.file == before)
        #expect(try store.get(entity: notes, id: RecordID("n30")) == ["v": 300])
        try ageRecordFiles(of: path, only: ["n30.json"])
        #expect(try store.status().isClean)
        #expect(store.index.records.confirmed.isEmpty)
        #expect(Array(store.index.records.overlay.keys) == [key("n30")], "only the rewritten file (in the delta) needed confirming")
    }

    @Test func aFewConfirmedStampsGoToTheDeltaAsPatchedLines() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        var options = StoreOptions()
        options.imageInterval = 10_000
        var store = try storeWithIndexImage(at: path, count: 300, options: options)
        #expect(try store.status().isClean)
        try store.writeIndexImage()
        store.close()
        // Every stamp is trusted now; make three files need confirming again.
        store = try Store.open(at: path, options: options)
        for id in ["n1", "n150", "n299"] {
            setModificationTime(of: path + "/records/Note/\(id).json", seconds: 1_000_000_000)
        }
        #expect(try store.status().isClean)
        #expect(store.index.records.confirmed.count == 3)
        let confirmed = try #require(store.index.records[key("n150")]?.file)
        #expect(confirmed.modificationNanoseconds == 1_000_000_000 * 1_000_000_000)
        store.close()

        store = try Store.open(at: path, options: options)
        defer { store.close() }
        let delta = try #require(store.index.records.delta)
        #expect(delta.header.recordCount == 3)
        #expect(store.index.records[key("n150")]?.file == confirmed)
        #expect(try store.get(entity: notes, id: RecordID("n150")) == ["v": 150])
        #expect(try store.status().isClean)
        #expect(store.index.records.confirmed.isEmpty && store.index.records.overlay.isEmpty, "nothing needed confirming")
    }

    @Test func aBackgroundMergeKeepsTheStampsConfirmedWhileItRan() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        var options = StoreOptions()
        options.mergeInterval = 100
        options.imageInterval = 100_000
        let store = try storeWithIndexImage(at: path, count: 200, options: options)
        defer { store.close() }
        #expect(try store.status().isClean)
        #expect(store.index.records.confirmed.count == 200)
        let first = try #require(store.index.records[key("n6")]?.file)

        // 150 new notes start a merge of a copy that holds the 200 confirmations.
        try store.write((200..<350).map { .put(key("n\($0)"), ["v": .integer(Int64($0))]) })
        let merge = try #require(store.indexMerge)
        // Confirmed while the merge runs: a new stamp for n5.
        setModificationTime(of: path + "/records/Note/n5.json", seconds: 1_000_000_000)
        try ageRecordFiles(of: path, only: (200..<350).map { "n\($0).json" })
        #expect(try store.status().isClean)
        _ = merge.wait()
        try store.finishIndexMerge()

        #expect(store.indexMerge == nil)
        let n5 = try #require(store.index.records[key("n5")]?.file)
        #expect(n5.modificationNanoseconds == 1_000_000_000 * 1_000_000_000)
        #expect(store.index.records[key("n6")]?.file == first, "the merged image holds the earlier confirmations")
        #expect(store.index.records.confirmed.entries.map(\.sortKey) == [IndexRecordLine.sortKey(key("n5"))])
        #expect(try store.status().isClean)
    }
}
