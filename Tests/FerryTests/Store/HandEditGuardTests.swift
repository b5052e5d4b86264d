import FerryTestSupport
import Foundation
import Testing

@testable import Ferry

/// Local writes (put, delete, a batch, an import, a resolution) never replace or remove a
/// record file edited by hand without journaling its content first, as a sync never does.
@Suite struct HandEditGuardTests {
    static let product = try! EntityName("Product")

    static func key(_ id: String) -> RecordKey { RecordKey(entity: product, id: try! RecordID(id)) }

    /// Writes `text` over the record file of `id` as an editor would: a new file renamed in.
    static func editByHand(_ store: Store, _ id: String, _ text: String, entity: String = "Product") throws {
        let path = store.path + "/records/\(entity)/\(id).json"
        try FileSystem.createDirectories(FileSystem.parentPath(of: path))
        _ = try FileSystem.writeFileAtomically(path, Array(text.utf8), durable: false)
    }

    static func fileText(_ store: Store, _ id: String, entity: String = "Product") throws -> String {
        String(decoding: try FileSystem.readFile(store.path + "/records/\(entity)/\(id).json", limit: 1 << 20), as: UTF8.self)
    }

    /// The documents the journal holds for `key`, oldest first (`nil` for a delete).
    static func journaledDocuments(_ store: Store, _ key: RecordKey) throws -> [JSONValue?] {
        try store.journalEntries().filter { $0.change.key == key }.map(\.change.operation.document)
    }

    @Test func aPutOverAHandEditJournalsTheEditFirst() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("store"))
        defer { store.close() }
        try store.put(["price": 1], entity: Self.product, id: RecordID("p"))
        try Self.editByHand(store, "p", "{\"price\": 99, \"note\": \"by hand\"}\n")

        let result = try store.write([.put(Self.key("p"), ["price": 2])])
        #expect(result.journaledEdits.map(\.kind) == [.modified])
        #expect(result.journaledEdits.map(\.path) == ["records/Product/p.json"])
        #expect(result.entries.count == 1)
        #expect(try Self.journaledDocuments(store, Self.key("p")) == [["price": 1], ["price": 99, "note": "by hand"], ["price": 2]])
        #expect(try Self.fileText(store, "p").contains("\"price\": 2"))
        #expect(try store.status().isClean)
        #expect(try StoreVerifier(path: store.path).verify().isClean)
    }

    @Test func aPutOverAFileMadeByHandForANewRecordJournalsItFirst() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("store"))
        defer { store.close() }
        try Self.editByHand(store, "q", "{\"made\": \"by hand\"}\n")
        let result = try store.write([.put(Self.key("q"), ["made": "by put"])])
        #expect(result.journaledEdits.map(\.kind) == [.created])
        #expect(try Self.journaledDocuments(store, Self.key("q")) == [["made": "by hand"], ["made": "by put"]])
        #expect(try store.get(entity: Self.product, id: RecordID("q")) == ["made": "by put"])
        #expect(try store.status().isClean)
    }

    /// A delete journals the edit, then the tombstone; a file removed by hand is not an edit to
    /// keep, and deleting its record still works, with one entry.
    @Test func deletesJournalEditsButNotFilesRemovedByHand() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("store"))
        defer { store.close() }
        try store.write([.put(Self.key("a"), ["v": 1]), .put(Self.key("b"), ["v": 1])])
        try Self.editByHand(store, "a", "{\"v\": 7}")
        try FileSystem.removeFile(store.path + "/records/Product/b.json")

        let deletedA = try store.delete(entity: Self.product, id: RecordID("a"))
        #expect(deletedA.journaledEdits.map(\.kind) == [.modified])
        #expect(try Self.journaledDocuments(store, Self.key("a")) == [["v": 1], ["v": 7], nil])
        let deletedB = try store.delete(entity: Self.product, id: RecordID("b"))
        #expect(deletedB.journaledEdits.isEmpty)
        #expect(try Self.journaledDocuments(store, Self.key("b")) == [["v": 1], nil])
        #expect(!FileSystem.exists(store.path + "/records/Product/a.json"))
        #expect(try store.status().isClean)
    }

    /// A hand edit that is not a record cannot be journaled: the write is refused, and the
    /// journal and the file are as they were.
    @Test func anEditThatIsNotARecordStopsTheWriteAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("store"))
        defer { store.close() }
        try store.write([.put(Self.key("a"), ["v": 1]), .put(Self.key("b"), ["v": 1])])
        try Self.editByHand(store, "b", "{\"v\": 2,")
        let head = try store.journalEntries().count
        #expect {
            try store.write([.put(Self.key("a"), ["v": 3]), .put(Self.key("b"), ["v": 3])])
        } throws: { error in
            guard case StoreError.unjournaledEdit(let path, _) = error else { return false }
            return path.hasSuffix("records/Product/b.json")
        }
        #expect(try store.journalEntries().count == head)
        #expect(try Self.fileText(store, "b") == "{\"v\": 2,")
        #expect(try store.get(entity: Self.product, id: RecordID("a")) == ["v": 1])
    }

    /// A batch large enough to make its new files ahead of time (a worker queue) still finds
    /// the few files edited or made by hand among hundreds, and writes the rest.
    @Test func aLargeBatchJournalsOnlyTheEditedFiles() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("store"))
        defer { store.close() }
        try store.write((0..<300).map { .put(Self.key("r\($0)"), ["n": .integer(Int64($0))]) })
        try Self.editByHand(store, "r7", "{\"n\": \"seven\"}")
        try Self.editByHand(store, "r250", "{\"n\": \"two fifty\"}")
        try Self.editByHand(store, "r400", "{\"n\": \"new by hand\"}")

        let result = try store.write((0..<600).map { .put(Self.key("r\($0)"), ["n": .integer(Int64($0)), "round": 2]) })
        #expect(result.journaledEdits.map(\.path).sorted() == ["records/Product/r250.json", "records/Product/r400.json", "records/Product/r7.json"])
        #expect(result.entries.count == 600)
        #expect(try Self.journaledDocuments(store, Self.key("r7")) == [["n": 7], ["n": "seven"], ["n": 7, "round": 2]])
        #expect(try Self.journaledDocuments(store, Self.key("r400")) == [["n": "new by hand"], ["n": 400, "round": 2]])
        #expect(try store.status().isClean)
    }

    /// Files written a moment ago have stamps the check cannot trust yet: it reads them, finds
    /// them unchanged and confirms their stamps, and the large batch that follows (which plans
    /// with the states the check looked up) still replaces each of them.
    @Test func aLargeBatchRightAfterASmallOneReplacesItsFreshFiles() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("store"))
        defer { store.close() }
        try store.write((0..<10).map { .put(Self.key("r\($0)"), ["round": 1]) })
        let result = try store.write((0..<100).map { .put(Self.key("r\($0)"), ["round": 2]) })
        #expect(result.journaledEdits.isEmpty)
        for index in 0..<100 {
            #expect(try Self.fileText(store, "r\(index)") == "{\n  \"round\": 2\n}\n", "r\(index)")
        }
        #expect(try store.status().isClean)
    }

    /// A batch with an invalid document journals nothing, not even the hand edits in its way.
    @Test func anInvalidDocumentStopsTheBatchBeforeAnyEditIsJournaled() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("store"))
        defer { store.close() }
        try store.put(["v": 1], entity: Self.product, id: RecordID("a"))
        try Self.editByHand(store, "a", "{\"v\": 2}")
        let head = try store.journalEntries().count
        #expect(throws: StoreError.self) { try store.write([.put(Self.key("a"), ["v": 3]), .put(Self.key("b"), [1, 2])]) }
        #expect(try store.journalEntries().count == head)
        #expect(try Self.fileText(store, "a") == "{\"v\": 2}")
    }

    /// Resolving a conflict over an edited winner file keeps the edit in the history.
    @Test func aResolutionJournalsTheEditFirst() async throws {
        let directory = try TemporaryDirectory()
        let a = try Store.create(at: directory.subpath("a"))
        let b = try Store.create(at: directory.subpath("b"))
        defer { a.close(); b.close() }
        try a.put(["v": "a"], entity: Self.product, id: RecordID("c"))
        try b.put(["v": "b"], entity: Self.product, id: RecordID("c"))
        _ = try await SyncEngine(store: a, transport: FolderTransport(path: b.path)).run()
        #expect(try a.state(of: Self.key("c"))?.isConflicted == true)
        try Self.editByHand(a, "c", "{\"v\": \"merged by hand\"}")
        let result = try a.resolve(Self.key("c"), with: ["v": "resolved"])
        #expect(result.journaledEdits.map(\.kind) == [.modified])
        #expect(try Self.journaledDocuments(a, Self.key("c")).contains(["v": "merged by hand"]))
        #expect(try a.get(entity: Self.product, id: RecordID("c")) == ["v": "resolved"])
        #expect(try a.state(of: Self.key("c"))?.isConflicted == false)
    }

    /// An import that rewrites a record to link it (the parent of `--parent`) plans again on
    /// the hand-edited content: the link is added and the edit kept, not only journaled.
    @Test func anImportThatLinksAnEditedRecordKeepsTheEdit() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        defer { store.close() }
        try store.importText(#"[{"id": 1, "firstName": "Ada", "tags": [{"id": "a"}]}]"#, into: "User")
        var edited = try #require(try store.document("User", "1")?.objectValue)
        edited["firstName"] = "Ada (by hand)"
        try Self.editByHand(store, "1", String(decoding: JSONValue.object(edited).prettyBytes(), as: UTF8.self), entity: "User")

        let report = try store.importText(#"[{"id": "c", "label": "C"}]"#, into: "Tag", options: try ImportScenario.under("User/1"))
        #expect(report.handEdits == ["records/User/1.json"])
        #expect(try store.document("User", "1")?["firstName"] == "Ada (by hand)")
        #expect(try store.document("User", "1")?["tagsIDs"] == ["c"])
        #expect(try store.status().isClean)
    }

    /// A dry run lists the edits it would journal and writes nothing; the import then
    /// journals them and reports them.
    @Test func anImportReportsTheEditsItJournals() throws {
        let directory = try TemporaryDirectory()
        let store = try makeImportStore(in: directory)
        defer { store.close() }
        try store.importText(#"[{"id": 1, "name": "one"}, {"id": 2, "name": "two"}]"#, into: "User")
        try Self.editByHand(store, "2", #"{"id": 2, "name": "two by hand"}"#, entity: "User")
        try Self.editByHand(store, "3", #"{"id": 3, "name": "three by hand"}"#, entity: "User")
        let input = #"[{"id": 1, "name": "one"}, {"id": 2, "name": "TWO"}, {"id": 3, "name": "THREE"}]"#
        var dryRun = ImportOptions()
        dryRun.isDryRun = true
        let head = try store.journalEntries().count
        let planned = try store.importText(input, into: "User", options: dryRun)
        #expect(planned.handEdits == ["records/User/2.json", "records/User/3.json"])
        #expect(try store.journalEntries().count == head)

        let report = try store.importText(input, into: "User")
        #expect(report.handEdits == ["records/User/2.json", "records/User/3.json"])
        #expect(report.jsonValue["handEdits"] == ["records/User/2.json", "records/User/3.json"])
        #expect(try store.document("User", "2")?["name"] == "TWO")
        #expect(try Self.journaledDocuments(store, RecordKey(entity: EntityName("User"), id: RecordID("3"))).count == 2)
        #expect(try store.status().isClean)
    }

    /// A streamed import checks every batch's files before writing any: an edit that is not
    /// a record in the last batch stops it with nothing written.
    @Test func aStreamedImportFindsAnUnjournalableEditBeforeWritingAnything() throws {
        let directory = try TemporaryDirectory()
        let store = try makeImportStore(in: directory)
        defer { store.close() }
        let items = "[" + (1...500).map { #"{"id": \#($0), "name": "n\#($0)"}"# }.joined(separator: ",") + "]"
        try store.importText(items, into: "User")
        try Self.editByHand(store, "5", #"{"id": 5, "name": "five by hand"}"#, entity: "User")
        try Self.editByHand(store, "480", "not json", entity: "User")
        let head = try store.journalEntries().count
        let path = directory.subpath("input.json")
        try Data(items.replacingOccurrences(of: ": \"n", with: ": \"m").utf8).write(to: URL(fileURLWithPath: path))
        var options = ImportOptions()
        options.streamBatchItems = 100
        options.streamChunkBytes = 4 << 10
        #expect {
            try store.importRecords(from: .file(path), into: EntityName("User"), options: options)
        } throws: { error in
            guard case ImportError.store(.unjournaledEdit(let file, _)) = error else { return false }
            return file.hasSuffix("records/User/480.json")
        }
        #expect(try store.journalEntries().count == head)

        try Self.editByHand(store, "480", #"{"id": 480, "name": "480 by hand"}"#, entity: "User")
        let report = try store.importRecords(from: .file(path), into: EntityName("User"), options: options)
        #expect(report.handEdits == ["records/User/5.json", "records/User/480.json"])
        #expect(report.counts.updated == 500)
        #expect(try store.document("User", "5")?["name"] == "m5")
        #expect(try store.status().isClean)
    }
}
