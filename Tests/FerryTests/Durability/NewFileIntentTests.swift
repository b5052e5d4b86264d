import Testing
import FerryTestSupport
@testable import Ferry

/// ``NewFileIntent``: the list of new record files a large batch names before its journal
/// entries are durable, and how opening a store settles a list whose batch was lost.
@Suite struct NewFileIntentTests {
    private let entity = try! EntityName("Item")

    private func key(_ name: String) throws -> RecordKey { RecordKey(entity: entity, id: try RecordID(name)) }

    private func intent() throws -> NewFileIntent {
        NewFileIntent(
            firstSequence: 11, entryCount: 4,
            files: try ["a", "B c", "../x", String(repeating: "z", count: 250)].map { name in
                NewFileIntent.File(key: try key(name), contentHash: SHA256.hash(Array(name.utf8)))
            })
    }

    @Test func readsBackWhatItWrote() throws {
        let original = try intent()
        #expect(NewFileIntent(decoding: original.encoded()) == original)
        #expect(original.lastSequence == 14)
    }

    @Test func aTornOrEditedListIsNeverReadBack() throws {
        let bytes = try intent().encoded()
        for length in 0..<bytes.count {
            #expect(NewFileIntent(decoding: Array(bytes.prefix(length))) == nil, "cut at \(length)")
        }
        for position in stride(from: 0, to: bytes.count, by: 7) {
            var edited = bytes
            edited[position] ^= 0x01
            #expect(NewFileIntent(decoding: edited) == nil, "byte \(position) changed")
        }
        // A new list written over a longer old one, but not truncated: the old tail is refused.
        let shorter = NewFileIntent(firstSequence: 20, entryCount: 1, files: []).encoded()
        #expect(NewFileIntent(decoding: shorter + bytes.dropFirst(shorter.count)) == nil)
    }

    /// What a writer killed between naming its new files and syncing its entries leaves:
    /// opening the store removes exactly the files of the lost batch.
    @Test func openingRemovesTheFilesOfALostBatch() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        try store.write((0..<10).map { RecordWrite.put(try key("old\($0)"), ["n": .integer(Int64($0))]) })
        let head = store.headSequence
        let layout = store.layout
        store.close()

        // The lost batch: two new records whose files were named, one whose file a person
        // replaced before the store was opened again, and an existing record it updated.
        let lost: [(String, JSONValue)] = [("new1", ["v": 1]), ("new2", ["v": 2]), ("edited", ["v": 3]), ("old3", ["v": 4])]
        let intent = NewFileIntent(
            firstSequence: head + 1, entryCount: UInt64(lost.count),
            files: try lost.map { NewFileIntent.File(key: try key($0.0), contentHash: SHA256.hash($0.1.canonicalBytes())) })
        try FileSystem.writeFileAtomically(layout.newFileIntent, intent.encoded(), durable: false)
        for (name, document) in lost where name != "old3" {
            try FileSystem.writeFileAtomically(layout.recordFile(try key(name)), document.prettyBytes(), durable: false)
        }
        try FileSystem.writeFileAtomically(layout.recordFile(try key("edited")), Array(#"{"by":"hand"}"#.utf8), durable: false)
        let oldFile = try FileSystem.readFile(layout.recordFile(try key("old3")))

        let warnings = WarningRecorder()
        var options = StoreOptions()
        options.warningHandler = warnings.handler
        let reopened = try Store.open(at: path, options: options)
        defer { reopened.close() }
        #expect(!FileSystem.exists(layout.recordFile(try key("new1"))))
        #expect(!FileSystem.exists(layout.recordFile(try key("new2"))))
        #expect(try FileSystem.readFile(layout.recordFile(try key("edited"))) == Array(#"{"by":"hand"}"#.utf8), "a hand edit stays")
        #expect(try FileSystem.readFile(layout.recordFile(try key("old3"))) == oldFile, "a live record's file stays")
        #expect(try FileSystem.status(layout.newFileIntent)?.size == 0, "the list is settled once")
        #expect(warnings.messages.contains { $0.contains("was not written") })
        let status = try reopened.status()
        #expect(status.edits.map(\.path) == ["records/Item/edited.json"])
    }

    /// A lost batch's file of a document as large as a store takes (20 MB, more than the JSON
    /// parser's default limit) is removed like any other: read with the parser's defaults it
    /// was left behind, to be journaled later as a hand edit of a write that never happened.
    @Test func aLostBatchsLargeFileIsRemovedToo() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        try store.put(["n": 0], entity: entity, id: try RecordID("first"))
        let head = store.headSequence
        let layout = store.layout
        store.close()
        let document: JSONValue = ["text": .string(String(repeating: "a", count: 20 << 20))]
        let intent = NewFileIntent(
            firstSequence: head + 1, entryCount: 1,
            files: [NewFileIntent.File(key: try key("large"), contentHash: SHA256.hash(document.canonicalBytes()))])
        try FileSystem.writeFileAtomically(layout.newFileIntent, intent.encoded(), durable: false)
        try FileSystem.writeFileAtomically(layout.recordFile(try key("large")), document.prettyBytes(), durable: false)

        let reopened = try Store.open(at: path)
        defer { reopened.close() }
        #expect(!FileSystem.exists(layout.recordFile(try key("large"))))
        #expect(try reopened.status().isClean)
    }

    /// A list whose batch reached the journal (the writer died after syncing, before emptying
    /// the list) removes nothing.
    @Test func aListWhoseBatchIsDurableRemovesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        let writes = try (0..<100).map { RecordWrite.put(try key("r\($0)"), ["n": .integer(Int64($0))]) }
        try store.write(writes)
        #expect(try FileSystem.status(store.layout.newFileIntent)?.size == 0, "emptied after the batch")
        let intent = NewFileIntent(
            firstSequence: 1, entryCount: 100,
            files: try (0..<100).map { NewFileIntent.File(key: try key("r\($0)"), contentHash: SHA256.hash(JSONValue.object(["n": .integer(Int64($0))]).canonicalBytes())) })
        try FileSystem.writeFileAtomically(store.layout.newFileIntent, intent.encoded(), durable: false)
        store.close()
        let reopened = try Store.open(at: path)
        defer { reopened.close() }
        #expect(try reopened.ids(of: entity).count == 100)
        #expect(try reopened.status().isClean)
        for index in 0..<100 { #expect(FileSystem.exists(reopened.layout.recordFile(try key("r\(index)")))) }
    }

    /// Another process's writer died mid-batch while this store object was open: taking the
    /// lock for the next write settles the list before anything is appended.
    @Test func takingTheLockSettlesALostBatch() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        defer { store.close() }
        try store.put(["n": 0], entity: entity, id: try RecordID("first"))
        let document: JSONValue = ["lost": true]
        let intent = NewFileIntent(
            firstSequence: store.headSequence + 1, entryCount: 1,
            files: [NewFileIntent.File(key: try key("phantom"), contentHash: SHA256.hash(document.canonicalBytes()))])
        try FileSystem.writeFileAtomically(store.layout.newFileIntent, intent.encoded(), durable: false)
        try FileSystem.writeFileAtomically(store.layout.recordFile(try key("phantom")), document.prettyBytes(), durable: false)
        try store.put(["n": 1], entity: entity, id: try RecordID("second"))
        #expect(!FileSystem.exists(store.layout.recordFile(try key("phantom"))))
        #expect(try store.status().isClean)
    }

    /// A large batch plans its new files before anything is written. One that will fail (a
    /// delete of a record that does not exist, a document that is not an object, at the end
    /// of two hundred new records) must name none of them: nobody may see a file for a write
    /// that is refused.
    @Test func aBatchThatWillFailNamesNoFile() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        defer { store.close() }
        try store.put(["kept": true], entity: entity, id: try RecordID("kept"))
        let head = store.headSequence
        let news = try (0..<200).map { RecordWrite.put(try key("n\($0)"), ["n": .integer(Int64($0))]) }
        #expect(news.count >= 2 * Store.fileQueueThreshold)
        let failing: [(String, RecordWrite, (StoreError) -> Bool)] = [
            ("a delete of no record", .delete(try key("missing")), { if case .recordNotFound = $0 { true } else { false } }),
            ("a document that is no object", .put(try key("bad"), [1, 2]), { if case .invalid = $0 { true } else { false } }),
        ]
        for (what, last, isExpected) in failing {
            do {
                try store.write(news + [last])
                Issue.record("\(what): the batch was written")
            } catch {
                #expect(isExpected(error), "\(what): \(error)")
            }
            #expect(store.headSequence == head, "\(what)")
            let names = try FileSystem.contents(ofDirectory: store.layout.entityDirectory(entity)).map(\.name)
            #expect(names == ["kept.json"], "\(what)")
            #expect(((try? FileSystem.readFile(store.layout.newFileIntent, limit: 1 << 20)) ?? []).isEmpty, "\(what)")
        }
        #expect(try store.status().isClean)
        // The same batch without its bad write goes through whole.
        try store.write(news)
        #expect(try store.ids(of: entity).count == 201)
        #expect(try store.status().isClean)
    }
}
