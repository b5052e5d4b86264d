import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// A large batch confirms the files it wrote once the file system's clock has moved past
/// them, so the first status scan after an import settles them with a `stat` each instead of
/// reading them all, without missing an edit that landed in the same clock tick.
@Suite struct WrittenFileConfirmationTests {
    let entity: EntityName
    init() throws { entity = try EntityName("Item") }

    func key(_ index: Int) throws -> RecordKey { RecordKey(entity: entity, id: try RecordID("i\(index)")) }
    func document(_ index: Int) -> JSONValue { ["n": .integer(Int64(index)), "s": .string("item \(index)")] }

    @Test func aLargeBatchLeavesStampsThatMatchWithoutReading() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        defer { store.close() }
        let count = 2 * Store.confirmationThreshold
        try store.write((0..<count).map { .put(try key($0), document($0)) })
        for index in 0..<count {
            let file = store.layout.recordFile(try key(index))
            let stamp = try #require(store.index.records[try key(index)]?.file)
            let status = try #require(try FileSystem.status(file))
            // Without the confirmation the stamp would still be racy: taken as the file was
            // written, within the granularity of its modification time.
            #expect(stamp.matches(status), "\(file)")
        }
        #expect(try store.status().isClean)
    }

    @Test func aSmallBatchIsLeftToTheScan() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        defer { store.close() }
        try store.write((0..<3).map { .put(try key($0), document($0)) })
        let file = store.layout.recordFile(try key(0))
        let stamp = try #require(store.index.records[try key(0)]?.file)
        #expect(!stamp.matches(try #require(try FileSystem.status(file))))
        #expect(try store.status().isClean)
    }

    /// An edit between the write and the read back, in the same tick (simulated by putting the
    /// modification time back), keeps that file's stamp racy, so the scan still reads it.
    @Test func aFileEditedBeforeTheReadBackIsNotConfirmed() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        defer { store.close() }
        let count = Store.confirmationThreshold
        // Written below the threshold, so the batch itself confirms nothing.
        for start in stride(from: 0, to: count, by: 8) {
            try store.write((start..<min(count, start + 8)).map { .put(try key($0), document($0)) })
        }
        let edited = 7
        let file = store.layout.recordFile(try key(edited))
        let before = try #require(try FileSystem.status(file))
        let bytes = try FileSystem.readFile(file)
        let replaced = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "item 7", with: "item 9").utf8)
        #expect(replaced.count == bytes.count && replaced != bytes)
        let handle = try FileDescriptor.open(file, .writeOnly, options: .truncate)
        try handle.writeAll(replaced)
        handle.close()
        let time = timespec(tv_sec: Int(before.modificationNanoseconds / 1_000_000_000), tv_nsec: Int(before.modificationNanoseconds % 1_000_000_000))
        var times = [time, time]
        #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)

        let writes = try (0..<count).map { index in
            RecordFileWrite(key: try key(index), path: store.layout.recordFile(try key(index)), document: document(index), isNew: false)
        }
        store.confirmWrittenFiles(writes)
        for index in 0..<count {
            let stamp = try #require(store.index.records[try key(index)]?.file)
            let status = try #require(try FileSystem.status(store.layout.recordFile(try key(index))))
            #expect(stamp.matches(status) == (index != edited), "record \(index)")
        }
        let status = try store.status()
        #expect(status.edits.map(\.key) == [try key(edited)])
        #expect(status.edits.map(\.kind) == [.modified])
    }

    /// A same-size hand edit made right after a confirmed batch lands after the file system's
    /// clock passed the file's time, so its modification time moves and the scan reads it.
    @Test func aSameSizeEditRightAfterAConfirmedBatchIsFound() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        defer { store.close() }
        let count = Store.confirmationThreshold
        try store.write((0..<count).map { .put(try key($0), document($0)) })
        let file = store.layout.recordFile(try key(3))
        let bytes = try FileSystem.readFile(file)
        let replaced = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "item 3", with: "item 4").utf8)
        let handle = try FileDescriptor.open(file, .writeOnly, options: .truncate)
        try handle.writeAll(replaced)
        handle.close()
        let status = try store.status()
        #expect(status.edits.map(\.key) == [try key(3)])
        #expect(try store.get(entity: entity, id: RecordID("i3")) == document(3))
    }
}
