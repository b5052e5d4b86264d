import FerryTestSupport
import Testing
@testable import Ferry

/// The status scan that looks files up by path while walking the index, then streams the
/// folders for files no record claimed.
@Suite struct StatusScanTests {
    /// A store of Product records with these ids and one of 250 bytes (its file in a `~`
    /// folder), imaged and clean; returns it and its Product folder's path.
    static func store(in directory: TemporaryDirectory, ids: [String]) throws -> (Store, folder: String) {
        let store = try Store.create(at: directory.path + "/store")
        let products = try EntityName("Product")
        for id in ids { try store.put(["name": .string(id)], entity: products, id: RecordID(id)) }
        try store.put(["name": "Long"], entity: products, id: RecordID(String(repeating: "a", count: 250)))
        try store.writeIndexImage()
        #expect(try store.status().isClean)
        return (store, store.path + "/records/Product/")
    }

    @Test func findsEveryKindOfEditWithLongIdsAndOddNames() throws {
        let directory = try TemporaryDirectory()
        let (store, folder) = try Self.store(in: directory, ids: ["lamp", "chair"])
        defer { store.close() }
        _ = try FileSystem.writeFileAtomically(folder + "desk.json", Array("{\"name\": \"Desk\"}\n".utf8), durable: false)
        _ = try FileSystem.writeFileAtomically(folder + "odd%zz.json", Array("{}\n".utf8), durable: false)
        try FileSystem.removeFile(folder + "chair.json")
        _ = try FileSystem.writeFileAtomically(folder + "lamp.json", Array("{\"name\": \"Lamp 2\"}\n".utf8), durable: false)
        try FileSystem.createDirectory(folder + "stray")
        let status = try store.status()
        #expect(status.edits.map(\.kind) == [.deleted, .created, .modified], "\(status.edits)")
        #expect(status.edits.map(\.key.id.rawValue) == ["chair", "desk", "lamp"])
        #expect(status.problems.map(\.path).sorted() == ["records/Product/odd%zz.json", "records/Product/stray"], "\(status.problems)")
    }

    /// A folder whose record files are all claimed is not searched file by file, but what else
    /// it holds is still reported: a stray file, and a new file among the pieces of long ids.
    @Test func everyRecordFileInPlaceStillLeavesStrayFilesFound() throws {
        let directory = try TemporaryDirectory()
        let (store, folder) = try Self.store(in: directory, ids: ["lamp"])
        defer { store.close() }
        _ = try FileSystem.writeFileAtomically(folder + "notes.txt", Array("hello\n".utf8), durable: false)
        let longFolder = folder + String(repeating: "a", count: 240) + "~/"
        #expect(FileSystem.isDirectory(longFolder))
        _ = try FileSystem.writeFileAtomically(longFolder + "bbbbbbbbbb.json", Array("{\"name\": \"Other\"}\n".utf8), durable: false)
        let status = try store.status()
        #expect(status.edits.map(\.kind) == [.created], "\(status.edits)")
        #expect(status.edits.map(\.key.id.rawValue) == [String(repeating: "a", count: 240) + "bbbbbbbbbb"])
        #expect(status.problems.map(\.path) == ["records/Product/notes.txt"], "\(status.problems)")
    }

    /// More records than one batch of stated files: edits spread over the batches are each
    /// found once, in order, and the rest settle from their stamps.
    @Test func editsAcrossManyBatchesAreEachFound() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/store")
        defer { store.close() }
        let items = try EntityName("Item")
        let count = 2 * RecordFileStatBatch.capacity + 100
        try store.write(
            (0..<count).map { .put(RecordKey(entity: items, id: try RecordID(String(format: "i%05d", $0))), ["n": .integer(Int64($0))]) })
        try store.writeIndexImage()
        #expect(try store.status().isClean)
        let folder = store.path + "/records/Item/"
        _ = try FileSystem.writeFileAtomically(folder + "i00010.json", Array("{\"n\": 11}\n".utf8), durable: false)
        try FileSystem.removeFile(folder + String(format: "i%05d.json", RecordFileStatBatch.capacity + 7))
        _ = try FileSystem.writeFileAtomically(folder + "new.json", Array("{\"n\": -1}\n".utf8), durable: false)
        _ = try FileSystem.writeFileAtomically(
            folder + String(format: "i%05d.json", count - 1), Array("{\"n\": 0}\n".utf8), durable: false)
        let status = try store.status()
        #expect(status.edits.map(\.key.id.rawValue) == ["i00010", String(format: "i%05d", RecordFileStatBatch.capacity + 7), String(format: "i%05d", count - 1), "new"])
        #expect(status.edits.map(\.kind) == [.modified, .deleted, .modified, .created])
        #expect(status.problems.isEmpty)
    }
}
