import FerryTestSupport
import Testing

@testable import Ferry

/// A folder of notes (issue 52, item 4): a file a person names (`Shopping List.json`) is the
/// record of that id, committed under its canonical name, and two files that could be one
/// record are a finding, never a pick.
@Suite struct HandNamedFileTests {
    static let note = try! EntityName("Note")

    /// A store with one note (so `records/Note/` exists), and that folder's path.
    static func notes(_ directory: TemporaryDirectory, _ name: String = "notes") throws -> (Store, folder: String) {
        let store = try Store.create(at: directory.subpath(name))
        try store.put(["text": "first"], entity: note, id: RecordID("first"))
        return (store, store.path + "/records/Note/")
    }

    static func write(_ path: String, _ text: String) throws {
        _ = try FileSystem.writeFileAtomically(path, Array(text.utf8), durable: false)
    }

    @Test func handMadeNamesReadLiterallyAndCanonicalOnesAsEncoded() {
        #expect(RecordFileName.handMadeID(fromFileName: "Shopping List.json")?.rawValue == "Shopping List")
        #expect(RecordFileName.handMadeID(fromFileName: "Todo.json")?.rawValue == "Todo")
        #expect(RecordFileName.handMadeID(fromFileName: "Café au lait.json")?.rawValue == "Café au lait")
        // Canonical names are read by the codec; escapes, hidden names and non-JSON are not names a person gives.
        for name in ["todo.json", "^todo.json", "^to%20do.json", "a%zz.json", ".hidden.json", "notes.txt", ".json", "tab\there.json"] {
            #expect(RecordFileName.handMadeID(fromFileName: name) == nil, "\(name)")
        }
    }

    @Test func shoppingListAndTodoAreCommittedUnderTheirCanonicalNames() throws {
        let directory = try TemporaryDirectory()
        let (store, folder) = try Self.notes(directory)
        defer { store.close() }
        try Self.write(folder + "Shopping List.json", #"{"items": ["milk", "eggs"]}"#)
        try Self.write(folder + "Todo.json", "{\"text\": \"call Bob\"}\n")

        let status = try store.status()
        #expect(status.problems.isEmpty, "\(status.problems)")
        #expect(status.edits.map(\.kind) == [.created, .created])
        #expect(status.edits.map(\.key.id.rawValue) == ["Shopping List", "Todo"])
        #expect(status.edits.map(\.path) == ["records/Note/Shopping List.json", "records/Note/Todo.json"])
        #expect(status.edits.map(\.canonicalPath) == ["records/Note/^shopping%20^list.json", "records/Note/^todo.json"])
        // A status changes nothing.
        #expect(FileSystem.exists(folder + "Todo.json") && !FileSystem.exists(folder + "^todo.json"))

        let report = try store.commit()
        #expect(report.problems.isEmpty && report.committed.count == 2)
        #expect(!FileSystem.exists(folder + "Shopping List.json") && !FileSystem.exists(folder + "Todo.json"))
        #expect(FileSystem.exists(folder + "^shopping%20^list.json") && FileSystem.exists(folder + "^todo.json"))
        #expect(try store.get(entity: Self.note, id: RecordID("Shopping List")) == ["items": ["milk", "eggs"]])
        #expect(try store.get(entity: Self.note, id: RecordID("Todo")) == ["text": "call Bob"])
        #expect(try store.status().isClean)
        store.close()
        #expect(try StoreVerifier(path: store.path).verify().isClean)
    }

    @Test func theNoteSyncsUnderANameThatRoundTrips() async throws {
        let directory = try TemporaryDirectory()
        let (laptop, folder) = try Self.notes(directory, "laptop")
        defer { laptop.close() }
        let phone = try Store.create(at: directory.subpath("phone"))
        defer { phone.close() }
        try Self.write(folder + "Shopping List.json", #"{"items": ["milk"]}"#)
        // `ferry sync` commits first, as here; then the record travels under its id.
        try laptop.commit()
        _ = try await laptop.sync(with: FolderTransport(path: phone.path))
        #expect(try phone.get(entity: Self.note, id: RecordID("Shopping List")) == ["items": ["milk"]])
        #expect(FileSystem.exists(phone.path + "/records/Note/^shopping%20^list.json"))
        #expect(try phone.status().isClean)
        #expect(try laptop.status().isClean)
    }

    @Test func twoFilesForOneRecordAreAFindingNeverAPick() throws {
        let directory = try TemporaryDirectory()
        let (store, folder) = try Self.notes(directory)
        defer { store.close() }
        try store.put(["text": "journaled"], entity: Self.note, id: RecordID("Todo"))
        try Self.write(folder + "Todo.json", #"{"text": "by hand"}"#)
        let report = try store.commit()
        #expect(report.committed.isEmpty)
        #expect(report.problems.map(\.path) == ["records/Note/Todo.json"])
        #expect(report.problems.first?.reason.contains("the same record \"Todo\" as records/Note/^todo.json") == true, "\(report.problems)")
        // Nothing was picked: both files are as they were, the record as journaled.
        #expect(try FileSystem.readFile(folder + "Todo.json") == Array(#"{"text": "by hand"}"#.utf8))
        #expect(try store.get(entity: Self.note, id: RecordID("Todo")) == ["text": "journaled"])
    }

    @Test func namesThatDifferOnlyInCaseAreAFinding() throws {
        let directory = try TemporaryDirectory()
        let (store, folder) = try Self.notes(directory)
        defer { store.close() }
        try Self.write(folder + "Todo.json", #"{"n": 1}"#)
        try Self.write(folder + "TODO.json", #"{"n": 2}"#)
        try Self.write(folder + "Plan.json", #"{"n": 3}"#)
        try Self.write(folder + "plan.json", #"{"n": 4}"#)
        let report = try store.commit()
        // `plan.json` is canonical (the record `plan`); the others wait for a person to choose.
        #expect(report.committed.map(\.key.id.rawValue) == ["plan"])
        #expect(report.problems.map(\.path) == ["records/Note/Plan.json", "records/Note/TODO.json", "records/Note/Todo.json"], "\(report.problems)")
        #expect(report.problems.allSatisfy { $0.reason.contains("case-insensitive") })
        for name in ["Todo.json", "TODO.json", "Plan.json"] { #expect(FileSystem.exists(folder + name)) }
    }

    /// A person renames a record's file to its id: the record is the same, its file comes back
    /// to the canonical name, and no deletion is journaled.
    @Test func aRecordFileRenamedByHandIsNotADeletion() throws {
        let directory = try TemporaryDirectory()
        let (store, folder) = try Self.notes(directory)
        defer { store.close() }
        try store.put(["text": "call Bob"], entity: Self.note, id: RecordID("Todo"))
        try FileSystem.rename(folder + "^todo.json", to: folder + "Todo.json")
        let status = try store.status()
        #expect(status.edits.map(\.kind) == [.modified], "\(status.edits)")
        #expect(status.edits.first?.canonicalPath == "records/Note/^todo.json")
        let head = store.headSequence
        try store.commit()
        #expect(store.headSequence == head, "the same content is no change")
        #expect(FileSystem.exists(folder + "^todo.json") && !FileSystem.exists(folder + "Todo.json"))
        #expect(try store.get(entity: Self.note, id: RecordID("Todo")) == ["text": "call Bob"])
        #expect(try store.status().isClean)
    }
}
