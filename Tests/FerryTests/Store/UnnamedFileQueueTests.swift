import Testing
import Foundation
import FerryTestSupport
@testable import Ferry

/// ``UnnamedFileQueue``: unnamed files made on a worker thread, named by the caller in turn;
/// and the store's batches of new record files, which go through it.
@Suite struct UnnamedFileQueueTests {
    private func contents(_ index: Int) -> [UInt8] { Array("file \(index)\n".utf8) }

    /// A queue of `count` files with ``contents(_:)`` in a new folder.
    private func makeQueue(count: Int, window: Int, in directory: TemporaryDirectory) throws -> (UnnamedFileQueue, String) {
        let folder = directory.subpath("files")
        try FileSystem.createDirectories(folder)
        let queue = UnnamedFileQueue(count: count, window: window) { index in
            UnnamedFileQueue.Request(directory: folder, bytes: Array("file \(index)\n".utf8))
        }
        return (queue, folder)
    }

    @Test func filesAreMadeInOrderAndAppearOnlyWhenNamed() throws {
        let directory = try TemporaryDirectory()
        let (queue, folder) = try makeQueue(count: 300, window: 16, in: directory)
        for index in 0..<300 {
            guard case .made(let made) = queue.take(index) else {
                Issue.record("file \(index) was not made")
                continue
            }
            defer { made.file.close() }
            #expect(try FileSystem.contents(ofDirectory: folder).count == index, "unnamed files are not listed")
            let path = folder + "/f\(index)"
            #expect(try FileSystem.linkUnnamedFile(made.file, at: path))
            #expect(try FileSystem.readFile(path, limit: 1 << 20) == contents(index))
            #expect(made.contentHash == SHA256.hash(contents(index)))
            #expect(try FileSystem.status(path)?.inode == made.status.inode)
        }
        #expect(queue.finish() == 0)
    }

    @Test func filesNotTakenAreClosedAndLeaveNothing() throws {
        let directory = try TemporaryDirectory()
        let (queue, folder) = try makeQueue(count: 1_000, window: 8, in: directory)
        // Take every other of the first ten, then stop early.
        for index in stride(from: 0, to: 10, by: 2) {
            if case .made(let made) = queue.take(index) { made.file.close() }
        }
        let closed = queue.finish()
        #expect(closed >= 1 && closed <= 8 + 5, "the worker stays within its window; finish closes what it made")
        #expect(try FileSystem.contents(ofDirectory: folder).isEmpty)
    }

    @Test func aMissingDirectoryIsCreated() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.subpath("a/b/c")
        let queue = UnnamedFileQueue(count: 1) { _ in UnnamedFileQueue.Request(directory: folder, bytes: [1, 2, 3]) }
        defer { queue.finish() }
        guard case .made(let made) = queue.take(0) else {
            Issue.record("not made")
            return
        }
        defer { made.file.close() }
        #expect(try FileSystem.linkUnnamedFile(made.file, at: folder + "/x"))
        #expect(try FileSystem.readFile(folder + "/x", limit: 100) == [1, 2, 3])
    }

    @Test func nameTakenMeansNotLinked() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.subpath("files")
        try FileSystem.createDirectories(folder)
        try FileSystem.writeFileAtomically(folder + "/taken", [9], durable: false)
        let queue = UnnamedFileQueue(count: 1) { _ in UnnamedFileQueue.Request(directory: folder, bytes: [1]) }
        defer { queue.finish() }
        guard case .made(let made) = queue.take(0) else {
            Issue.record("not made")
            return
        }
        defer { made.file.close() }
        #expect(try !FileSystem.linkUnnamedFile(made.file, at: folder + "/taken"))
        #expect(try FileSystem.readFile(folder + "/taken", limit: 100) == [9])
    }

    /// A batch large enough for the queue: every file whole and stamped, so a status scan
    /// finds nothing, even where a file already sat at a record's path.
    @Test func aLargeBatchOfNewRecordsWritesEveryFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        defer { store.close() }
        let entity = try EntityName("Item")
        let count = 3 * Store.fileQueueThreshold
        // A stray file where record 5 goes: the queue's link fails and the usual path replaces it.
        let stray = store.layout.recordFile(RecordKey(entity: entity, id: try RecordID("i5")))
        try FileSystem.createDirectories(FileSystem.parentPath(of: stray))
        try FileSystem.writeFileAtomically(stray, Array("stray".utf8), durable: false)
        let writes = try (0..<count).map { index in
            RecordWrite.put(RecordKey(entity: entity, id: try RecordID("i\(index)")), ["n": .integer(Int64(index)), "s": .string("item \(index)")])
        }
        try store.write(writes)
        for index in 0..<count {
            let file = store.layout.recordFile(RecordKey(entity: entity, id: try RecordID("i\(index)")))
            let document: JSONValue = ["n": .integer(Int64(index)), "s": .string("item \(index)")]
            #expect(try FileSystem.readFile(file, limit: 1 << 20) == document.prettyBytes(), "\(file)")
            let stamp = try #require(store.index.records[RecordKey(entity: entity, id: try RecordID("i\(index)"))]?.file)
            #expect(try FileSystem.status(file)?.inode == stamp.inode)
        }
        #expect(try store.status().isClean)
    }
}
