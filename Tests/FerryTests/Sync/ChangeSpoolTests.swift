import FerryTestSupport
import Testing

@testable import Ferry

/// ``ChangeSpool``: what a pull checked comes back from its spool file as it went in, in order,
/// page by page, across the file's read chunks, and leaves no file behind.
@Suite struct ChangeSpoolTests {
    let notes = try! EntityName("Note")

    /// Changes of every kind: puts of small, nested, non-ASCII and large documents (one larger
    /// than a read chunk), and deletes.
    func changes(_ directory: TemporaryDirectory) throws -> [Change] {
        let store = try Store.create(at: directory.subpath("store"), name: "store")
        defer { store.close() }
        for index in 0..<40 {
            try store.put(["n": .integer(Int64(index)), "x": 2.5e-3, "text": .string("é \u{1F600} \"\(index)\"\n")], entity: notes, id: RecordID("r\(index)"))
        }
        try store.put(["nested": ["a": [1, nil, true, ["b": "c"]]]], entity: notes, id: RecordID("nested"))
        try store.put(["large": .string(String(repeating: "z", count: 3 << 20))], entity: notes, id: RecordID("large"))
        for index in 0..<5 { _ = try store.delete(entity: notes, id: RecordID("r\(index)")) }
        return try store.changes(after: 0, excluding: VersionVector(), limit: 1_000).changes
    }

    @Test func changesComeBackAsTheyWentInPageByPage() throws {
        let directory = try TemporaryDirectory()
        let original = try changes(directory)
        #expect(original.count == 47)
        let spoolFolder = directory.subpath("spool")
        try FileSystem.createDirectory(spoolFolder)
        let spool = try ChangeSpool(in: spoolFolder)
        #expect(try FileSystem.contents(ofDirectory: spoolFolder).isEmpty, "the file has no name")
        try spool.append(Array(original.prefix(10)))
        try spool.append(Array(original.dropFirst(10)))
        #expect(spool.count == 47)
        for pageSize in [1, 7, 100] {
            spool.rewind()
            var read: [Change] = []
            while true {
                let page = try spool.nextPage(limit: pageSize)
                if page.isEmpty { break }
                #expect(page.count <= pageSize)
                read += page
            }
            #expect(read == original, "pages of \(pageSize)")
            // Each still matches the digest its origin gave it, as the store taking it checks.
            #expect(read.allSatisfy { change in change.chain?.matches(change) == true })
        }
    }

    @Test func aFolderWhereNoFileCanBeMadeIsAnError() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: SystemError.self) { try ChangeSpool(in: directory.subpath("missing")) }
    }
}
