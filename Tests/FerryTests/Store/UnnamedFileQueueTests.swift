import Testing
import Foundation
import FerryTestSupport
@testable import Ferry

/// ``UnnamedFileQueue``: unnamed files made on a worker thread ahead of time and named by it
/// once the caller says so; and the store's batches of new record files, which go through it.
@Suite struct UnnamedFileQueueTests {
    /// Unnamed files (`O_TMPFILE`) exist on Linux only; elsewhere the queue names nothing and
    /// the store writes its files the usual way (the last test).
    static let hasUnnamedFiles: Bool = {
        #if os(Linux)
        return true
        #else
        return false
        #endif
    }()

    private func contents(_ index: Int) -> [UInt8] { Array("file \(index)\n".utf8) }

    /// A queue of `count` files with ``contents(_:)`` in a new folder.
    private func makeQueue(count: Int, window: Int, in directory: TemporaryDirectory) throws -> (UnnamedFileQueue, String) {
        let folder = directory.subpath("files")
        try FileSystem.createDirectories(folder)
        let queue = UnnamedFileQueue(window: window)
        for index in 0..<count {
            #expect(queue.add { (folder, Array("file \(index)\n".utf8)) } == index)
        }
        return (queue, folder)
    }

    /// How many unnamed files in `folder` this process holds open (Linux shows them in
    /// `/proc/self/fd` as `<folder>/#<inode> (deleted)`).
    private func openUnnamedFiles(in folder: String) -> Int {
        let descriptors = ((try? FileSystem.contents(ofDirectory: "/proc/self/fd")) ?? []).map(\.name)
        return descriptors.filter { name in
            var buffer = [CChar](repeating: 0, count: 4096)
            let length = readlink("/proc/self/fd/" + name, &buffer, buffer.count - 1)
            guard length > 0 else { return false }
            return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix(folder + "/#")
        }.count
    }

    @Test(.enabled(if: hasUnnamedFiles)) func filesAreInvisibleUntilNamedThenNamedInOrder() throws {
        let directory = try TemporaryDirectory()
        let (queue, folder) = try makeQueue(count: 300, window: 16, in: directory)
        defer { queue.finish() }
        // Files are made ahead, but nobody can see them before the names are given.
        #expect(try FileSystem.contents(ofDirectory: folder).isEmpty)
        queue.link((0..<300).reversed().map { ($0, folder + "/f\($0)") })
        let outcomes = queue.linkResults()
        #expect(outcomes.count == 300)
        for index in 0..<300 {
            guard case .linked(let linked) = outcomes[index] else {
                Issue.record("file \(index) was not named: \(String(describing: outcomes[index]))")
                continue
            }
            let path = folder + "/f\(index)"
            #expect(try FileSystem.readFile(path, limit: 1 << 20) == contents(index))
            #expect(linked.contentHash == SHA256.hash(contents(index)))
            #expect(try FileSystem.status(path)?.inode == linked.status.inode)
        }
        #expect(queue.finish() == 0, "every file made was named")
    }

    @Test(.enabled(if: hasUnnamedFiles)) func onlyTheFilesNamedAppear() throws {
        let directory = try TemporaryDirectory()
        let (queue, folder) = try makeQueue(count: 200, window: 8, in: directory)
        defer { queue.finish() }
        queue.link(stride(from: 0, to: 200, by: 3).map { ($0, folder + "/f\($0)") })
        let outcomes = queue.linkResults()
        #expect(outcomes.count == 67)
        #expect(Set(try FileSystem.contents(ofDirectory: folder).map(\.name)) == Set(stride(from: 0, to: 200, by: 3).map { "f\($0)" }))
    }

    /// Names that start past the window: the files before them are dropped so the worker can
    /// go on (it used to wait for a name that could never come).
    @Test(.enabled(if: hasUnnamedFiles)) func namesPastTheWindowAreReached() throws {
        let directory = try TemporaryDirectory()
        let (queue, folder) = try makeQueue(count: 40, window: 4, in: directory)
        defer { queue.finish() }
        queue.link([(30, folder + "/f30"), (35, folder + "/f35")])
        let outcomes = queue.linkResults()
        guard case .linked = outcomes[30], case .linked = outcomes[35] else {
            Issue.record("not named: \(outcomes)")
            return
        }
        #expect(Set(try FileSystem.contents(ofDirectory: folder).map(\.name)) == ["f30", "f35"])
        #expect(try FileSystem.readFile(folder + "/f35", limit: 100) == contents(35))
    }

    @Test(.enabled(if: hasUnnamedFiles)) func filesNeverNamedAreClosedAndLeaveNothing() throws {
        let directory = try TemporaryDirectory()
        let (queue, folder) = try makeQueue(count: 1_000, window: 8, in: directory)
        // The worker fills its window, then waits for names that never come.
        var waited = 0
        while openUnnamedFiles(in: folder) < 8 && waited < 1_000 {
            usleep(2_000)
            waited += 1
        }
        #expect(openUnnamedFiles(in: folder) == 8, "the worker makes files ahead, up to its window")
        let closed = queue.finish()
        #expect(closed == 8)
        #expect(openUnnamedFiles(in: folder) == 0)
        #expect(try FileSystem.contents(ofDirectory: folder).isEmpty)
        #expect(queue.add { (folder, [1]) } == -1, "a finished queue takes no more files")
    }

    @Test(.enabled(if: hasUnnamedFiles)) func aMissingDirectoryIsCreated() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.subpath("a/b/c")
        let queue = UnnamedFileQueue()
        defer { queue.finish() }
        let index = queue.add { (folder, [1, 2, 3]) }
        queue.link([(index, folder + "/x")])
        guard case .linked = queue.linkResults()[index] else {
            Issue.record("not named")
            return
        }
        #expect(try FileSystem.readFile(folder + "/x", limit: 100) == [1, 2, 3])
    }

    @Test(.enabled(if: hasUnnamedFiles)) func aNameAlreadyTakenIsNotLinkedOver() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.subpath("files")
        try FileSystem.createDirectories(folder)
        try FileSystem.writeFileAtomically(folder + "/taken", [9], durable: false)
        let queue = UnnamedFileQueue()
        defer { queue.finish() }
        let index = queue.add { (folder, [1]) }
        queue.link([(index, folder + "/taken")])
        guard case .notLinked = queue.linkResults()[index] else {
            Issue.record("expected notLinked")
            return
        }
        #expect(try FileSystem.readFile(folder + "/taken", limit: 100) == [9])
    }

    /// `link(_:once:)`: nothing is named until the check returns `true`, which runs on
    /// another thread while the worker goes on making files; a `false` names nothing.
    @Test(.enabled(if: hasUnnamedFiles)) func namesWaitForTheirCheck() throws {
        for passes in [true, false] {
            let directory = try TemporaryDirectory()
            let (queue, folder) = try makeQueue(count: 40, window: 64, in: directory)
            defer { queue.finish() }
            let release = DispatchSemaphore(value: 0)
            queue.link((0..<40).map { ($0, folder + "/f\($0)") }, once: {
                release.wait()
                return passes
            })
            // Made ahead meanwhile, but invisible.
            for _ in 0..<200 where openUnnamedFiles(in: folder) < 40 { usleep(2_000) }
            #expect(openUnnamedFiles(in: folder) == 40)
            #expect(try FileSystem.contents(ofDirectory: folder).isEmpty)
            release.signal()
            let outcomes = queue.linkResults()
            let linked = (0..<40).filter { if case .linked = outcomes[$0] { true } else { false } }
            #expect(linked.count == (passes ? 40 : 0), "check passed: \(passes)")
            #expect(try FileSystem.contents(ofDirectory: folder).count == (passes ? 40 : 0))
            queue.finish()
            #expect(openUnnamedFiles(in: folder) == 0)
        }
    }

    /// A batch far larger than the window: a second thread makes the files while the worker
    /// names them; every file whole, in its place, nothing left open.
    @Test(.enabled(if: hasUnnamedFiles)) func aHelperMakesFilesWhileTheWorkerNamesThem() throws {
        let directory = try TemporaryDirectory()
        let (queue, folder) = try makeQueue(count: 500, window: 8, in: directory)
        queue.link((0..<500).map { ($0, folder + "/f\($0)") })
        queue.addMaker()
        queue.addMaker()
        let outcomes = queue.linkResults()
        for index in 0..<500 {
            guard case .linked = outcomes[index] else {
                Issue.record("file \(index) was not named: \(String(describing: outcomes[index]))")
                continue
            }
            #expect(try FileSystem.readFile(folder + "/f\(index)", limit: 1 << 20) == contents(index))
        }
        queue.finish()
        #expect(openUnnamedFiles(in: folder) == 0)
        #expect(try FileSystem.contents(ofDirectory: folder).count == 500)
    }

    @Test func aQueueGivenNoNamesFinishesAtOnce() throws {
        let directory = try TemporaryDirectory()
        let (queue, folder) = try makeQueue(count: 50, window: 64, in: directory)
        queue.link([])
        let outcomes = queue.linkResults()
        #expect(outcomes.isEmpty)
        for index in [-1, 0, 49, 50, 10_000] {
            if let outcome = outcomes[index] { Issue.record("file \(index) has an outcome: \(outcome)") }
        }
        queue.finish()
        #expect(try FileSystem.contents(ofDirectory: folder).isEmpty)
    }

    /// A batch large enough for the queue: every file whole and stamped, so a status scan
    /// finds nothing.
    @Test func aLargeBatchOfNewRecordsWritesEveryFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        defer { store.close() }
        let entity = try EntityName("Item")
        let count = 3 * Store.fileQueueThreshold
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

    /// A file made by hand at a new record's path after the batch checked for hand edits (here:
    /// a batch that skips the check) makes the queue's link fail; the usual path then leaves
    /// it too, and the record without a stamp, so that status shows the file as the edit it
    /// is and commit journals it. A file that already holds the record's document, in another
    /// layout, is replaced with Ferry's and stamped.
    @Test func aFileMadeAtANewRecordsPathMeanwhileIsKept() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        defer { store.close() }
        let entity = try EntityName("Item")
        func key(_ index: Int) -> RecordKey { RecordKey(entity: entity, id: try! RecordID("i\(index)")) }
        func document(_ index: Int) -> JSONValue { ["n": .integer(Int64(index))] }
        let stray = store.layout.recordFile(key(5))
        try FileSystem.createDirectories(FileSystem.parentPath(of: stray))
        try FileSystem.writeFileAtomically(stray, Array("{\"made\": \"by hand\"}".utf8), durable: false)
        let same = store.layout.recordFile(key(6))
        try FileSystem.writeFileAtomically(same, Array("{\"n\":6}".utf8), durable: false)
        let writes = (0..<(3 * Store.fileQueueThreshold)).map { RecordWrite.put(key($0), document($0)) }
        _ = try store.withWriteLock { () throws(StoreError) in try store.performLocalWrites(writes, keepingHandEdits: false) }

        #expect(try FileSystem.readFile(stray) == Array("{\"made\": \"by hand\"}".utf8))
        #expect(store.index.records[key(5)]?.file == nil)
        #expect(try FileSystem.readFile(same) == document(6).prettyBytes())
        #expect(store.index.records[key(6)]?.file?.inode == (try FileSystem.status(same))?.inode)
        let status = try store.status()
        #expect(status.edits.map(\.key) == [key(5)] && status.edits.map(\.kind) == [.modified], "\(status.edits)")
        try store.commit()
        #expect(try store.get(entity: entity, id: RecordID("i5")) == ["made": "by hand"])
        #expect(try store.status().isClean)
    }

    /// New records' files are started before the batch's journal entries are written; a
    /// record put twice, deleted and put again, or put and deleted within the batch, must end
    /// with the file of its last write (or none), and updates of existing records are
    /// untouched by the files made ahead.
    @Test func aLargeMixedBatchEndsWithEachRecordsLastWrite() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        defer { store.close() }
        let entity = try EntityName("Item")
        func key(_ name: String) throws -> RecordKey { RecordKey(entity: entity, id: try RecordID(name)) }
        try store.write((0..<50).map { RecordWrite.put(try key("old\($0)"), ["v": .integer(Int64($0))]) })
        var writes: [RecordWrite] = []
        var expected: [String: JSONValue] = [:]
        for index in 0..<100 {
            writes.append(.put(try key("new\(index)"), ["v": .integer(Int64(index)), "new": true]))
            expected["new\(index)"] = ["v": .integer(Int64(index)), "new": true]
        }
        for index in 0..<50 {
            // Updates; the last ten put what the record already holds.
            let document: JSONValue = index < 40 ? ["v": .integer(Int64(index)), "updated": true] : ["v": .integer(Int64(index))]
            writes.append(.put(try key("old\(index)"), document))
            expected["old\(index)"] = document
        }
        writes += [
            .put(try key("twice"), ["n": 1]), .put(try key("twice"), ["n": 2]),
            .put(try key("again"), ["n": 1]), .delete(try key("again")), .put(try key("again"), ["n": 3]),
            .put(try key("gone"), ["n": 1]), .delete(try key("gone")),
            .put(try key("new5"), ["v": 5, "new": true, "last": true]),
        ]
        expected["twice"] = ["n": 2]
        expected["again"] = ["n": 3]
        expected["new5"] = ["v": 5, "new": true, "last": true]
        #expect(writes.count >= Store.fileQueueThreshold)
        let result = try store.write(writes)
        #expect(result.unchanged == 10)
        for (name, document) in expected {
            let file = store.layout.recordFile(try key(name))
            #expect(try FileSystem.readFile(file, limit: 1 << 20) == document.prettyBytes(), "\(name)")
            let stamp = try #require(store.index.records[try key(name)]?.file, "\(name)")
            #expect(try FileSystem.status(file)?.inode == stamp.inode, "\(name)")
        }
        #expect(!FileSystem.exists(store.layout.recordFile(try key("gone"))))
        #expect(try store.status().isClean)
        #expect(try store.ids(of: entity).count == expected.count)
    }
}
