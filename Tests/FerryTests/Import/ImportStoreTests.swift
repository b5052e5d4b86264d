import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// Import into real stores: one batch, identity, the diff, `--only`, `--scope`, dry runs and
/// strict input (issue 6, items 1, 3, 4 and 10).
@Suite struct ImportStoreTests {
    @Test func importIntoAnEmptyStoreIsOneJournalAppend() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        let report = try store.importText(ImportScenario.users(1...5), into: "Item")
        #expect(report.counts == .init(inserted: 5))
        #expect(report.journalEntries == 5 && store.headSequence == 5)
        #expect(try store.document("Item", "3") == ["id": 3, "name": "User 3"])
        let entries = try store.journalEntries()
        #expect(Set(entries.map(\.change.timestamp)).count == 5)
    }

    @Test func reimportingIdenticalDataWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        let input = #"[{"id": 1, "first_name": "Ana", "created_at": "2024-03-05T10:15:30+02:00", "company": {"id": 7, "name": "Acme"}, "notes": [{"id": 1, "text": "hi"}]}]"#
        try store.importText(input, into: "User")
        let head = store.head
        let again = try store.importText(input, into: "User")
        #expect(store.head == head)
        #expect(again.journalEntries == 0 && !again.hasChanges)
        #expect(again.counts == .init(unchanged: 1))
        #expect(again.countsByEntity[try EntityName("Company")] == .init(unchanged: 1))
    }

    @Test func eightUsersThenSixOverlapping() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        try store.importText(ImportScenario.users(1...8), into: "User")
        let report = try store.importText(ImportScenario.users([3, 4, 5, 9, 10, 7], renamed: [4, 7]), into: "User")
        #expect(report.counts == .init(inserted: 2, updated: 2, deleted: 4, unchanged: 2))
        #expect(try store.idTexts("User") == ["10", "3", "4", "5", "7", "9"])
        #expect(try store.document("User", "4")?["name"] == "User 4 (renamed)")
        #expect(report.changes.filter { $0.kind == .delete }.map(\.key.id.rawValue) == ["1", "2", "6", "8"])
    }

    @Test func anItemWithoutIDBetweenTwoItemsWithIDs() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        try store.importText(#"[{"id": 1, "name": "Ana"}, {"id": 2, "name": "Ben"}]"#, into: "User")
        // An item without its id can be matched with nothing: the import stops, naming it, and
        // writes nothing (it used to be skipped, exit 0).
        let head = store.headSequence
        #expect(throws: ImportError.item(index: 1, keyPath: "", .missingPrimaryKey(member: "id", isNull: false, candidates: []))) {
            try store.importText(
                #"[{"id": 1, "name": "Ana"}, {"name": "Nobody"}, {"id": 2, "name": "Ben B."}]"#, into: "User")
        }
        #expect(throws: ImportError.item(index: 0, keyPath: "", .missingPrimaryKey(member: "id", isNull: true, candidates: ["_id"]))) {
            try store.importText(#"[{"id": null, "_id": "x7", "name": "Null"}]"#, into: "User")
        }
        #expect(store.headSequence == head)
        #expect(try store.document("User", "2")?["name"] == "Ben")
    }

    @Test func idsMatchAcrossStringsAndIntegers() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        try store.importText(#"[{"id": "123", "name": "a"}]"#, into: "Thing")
        let report = try store.importText(#"[{"id": 123, "name": "b"}]"#, into: "Thing")
        #expect(report.counts == .init(updated: 1))
        #expect(try store.idTexts("Thing") == ["123"])
    }

    @Test func schemaTypedIDsStoreOneValueWhicheverSpelling() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": "5", "first_name": "Eva"}]"#, into: "User")
        let again = try store.importText(#"[{"id": 5, "first_name": "Eva"}]"#, into: "User")
        #expect(again.counts == .init(unchanged: 1))
        #expect(try store.document("User", "5")?["id"] == 5)
    }

    @Test func absentKeysKeepStoredValuesAndNullClearsThem() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        try store.importText(#"[{"id": 1, "name": "Ana", "nickname": "Annie", "age": 34}]"#, into: "User")
        let report = try store.importText(#"[{"id": 1, "nickname": null, "age": 35}]"#, into: "User")
        #expect(report.changes.first?.changedKeys == ["age", "nickname"])
        #expect(try store.document("User", "1") == ["id": 1, "name": "Ana", "age": 35])
    }

    @Test func aValidationErrorAnywhereWritesNothingAndNamesTheItem() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "first_name": "Ana"}]"#, into: "User")
        let head = store.head
        let input = #"[{"id": 2, "first_name": "Ben"}, {"id": 3, "notes": [{"id": 1, "text": "ok"}, {"id": 2, "text": 5, "created_at": 1}]}, {"id": 4, "created_at": "yesterday"}]"#
        #expect {
            try store.importText(input, into: "User")
        } throws: { error in
            let description = "\(error)"
            return description.hasPrefix("item [2] created_at: cannot store \"yesterday\" (a string) as date")
        }
        #expect(store.head == head)
        #expect(try store.idTexts("User") == ["1"])
    }

    @Test func nestedErrorsNameTheKeyPathInsideTheItem() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        do {
            try store.importText(#"[{"id": 1}, {"id": 2, "company": {"id": "seven", "name": "Acme"}}]"#, into: "User")
            Issue.record("expected an error")
        } catch let error as ImportError {
            guard case .item(let index, let keyPath, _) = error else { throw error }
            #expect(index == 1 && keyPath == "company.id")
        }
        #expect(store.headSequence == 0)
    }

    @Test func duplicateIDsNameBothItemsAndWriteNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        #expect(throws: ImportError.duplicateItemID("5", firstIndex: 0, secondIndex: 2)) {
            try store.importText(#"[{"id": 5}, {"id": 6}, {"id": "5"}]"#, into: "User")
        }
        #expect(store.headSequence == 0)
    }

    @Test(arguments: ["insert", "update", "delete", "insert,update", "update,delete", "insert,delete"])
    func onlyAppliesTheAllowedOperations(_ list: String) throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        try store.importText(ImportScenario.users(1...3), into: "User")
        var options = ImportOptions()
        options.operations = try ImportOperations(parsing: list)
        let report = try store.importText(ImportScenario.users([2, 3, 4], renamed: [3]), into: "User", options: options)
        let allowed = options.operations
        #expect(report.counts.inserted == (allowed.contains(.insert) ? 1 : 0))
        #expect(report.counts.updated == (allowed.contains(.update) ? 1 : 0))
        #expect(report.counts.deleted == (allowed.contains(.delete) ? 1 : 0))
        #expect(try store.idTexts("User").contains("4") == allowed.contains(.insert))
        #expect(try store.idTexts("User").contains("1") == !allowed.contains(.delete))
        #expect(report.withheld.deletes.map(\.rawValue) == (allowed.contains(.delete) ? [] : ["1"]))
    }

    @Test func aDryRunReportsThePlanAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        try store.importText(ImportScenario.users(1...3), into: "User")
        let head = store.head
        var options = ImportOptions()
        options.isDryRun = true
        let report = try store.importText(ImportScenario.users([2, 3, 4], renamed: [2]), into: "User", options: options)
        #expect(report.isDryRun && report.journalEntries == 0 && store.head == head)
        #expect(report.changes.map { "\($0.kind.rawValue) \($0.key)" } == ["update User/2", "insert User/4", "delete User/1"])
        #expect(report.changes[0].changedKeys == ["name"])
    }

    @Test func aScopedImportDeletesNothingOutsideItsScope() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        try store.importText(
            #"[{"id": 1, "team": "red"}, {"id": 2, "team": "red"}, {"id": 3, "team": "blue"}, {"id": 4, "team": "blue"}]"#, into: "Player")
        let report = try store.importText(
            #"[{"id": 1, "team": "red", "captain": true}]"#, into: "Player", options: try ImportScenario.scoped(#"team = "red""#))
        #expect(report.counts == .init(updated: 1, deleted: 1))
        #expect(try store.idTexts("Player") == ["1", "3", "4"])
    }

    @Test func anItemWhoseIDExistsOnlyOutsideTheScopeIsInserted() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        try store.importText(#"[{"id": 1, "team": "red"}, {"id": 3, "team": "blue", "number": 9}]"#, into: "Player")
        let report = try store.importText(
            #"[{"id": 1, "team": "red"}, {"id": 3, "team": "red"}]"#, into: "Player", options: try ImportScenario.scoped(#"team = "red""#))
        #expect(report.changes.map(\.kind) == [.update])
        #expect(try store.document("Player", "3") == ["id": 3, "team": "red"])
    }

    @Test func anEmptyArrayDeletesEveryRecordInScope() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        try store.importText(#"[{"id": 1, "team": "red"}, {"id": 2, "team": "blue"}]"#, into: "Player")
        try store.importText("[]", into: "Player", options: try ImportScenario.scoped(#"team = "blue""#))
        #expect(try store.idTexts("Player") == ["1"])
        let report = try store.importText("[]", into: "Player", options: ImportScenario.forced)
        #expect(report.counts == .init(deleted: 1))
        #expect(try store.idTexts("Player").isEmpty)
    }

    @Test func aScopeWithRelativeTimeComparesDates() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(
            #"[{"id": 1, "created_at": "2024-03-05T10:00:00Z"}, {"id": 2, "created_at": "2024-03-01T10:00:00Z"}]"#, into: "User")
        var options = try ImportScenario.scoped("createdAt > now-24h")
        options.now = try ImportDate(parsing: "2024-03-05T12:00:00Z").millisecondsSince1970
        let report = try store.importText("[]", into: "User", options: options)
        #expect(report.counts.deleted == 1)
        #expect(try store.idTexts("User") == ["2"])
    }

    @Test func aSingleObjectIsOneItemAndNeverDeletes() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        try store.importText(ImportScenario.users(1...3), into: "User")
        let report = try store.importText(#"{"id": 2, "name": "Two"}"#, into: "User")
        #expect(report.counts == .init(updated: 1))
        #expect(try store.idTexts("User") == ["1", "2", "3"])
    }

    @Test(arguments: [
        (#"[{"id": 1},]"#, 1, 11, "trailing comma"),
        ("[{\"id\": 1}\n// c\n]", 2, 1, "comment"),
        (#"[{"id": NaN}]"#, 1, 9, "NaN"),
    ])
    func invalidJSONIsRejectedWithLineAndColumn(_ text: String, line: Int, column: Int, what: String) throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        do {
            try store.importText(text, into: "User")
            Issue.record("\(what) was accepted")
        } catch let error as ImportError {
            guard case .invalidJSON(let foundLine, let foundColumn, _) = error else { throw error }
            #expect(foundLine == line && foundColumn == column, "\(what): \(error)")
            #expect("\(error)".hasPrefix("invalid JSON at line \(line), column \(column): "))
        }
    }

    @Test func theTopLevelMustBeAnArrayOrAnObject() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        #expect(throws: ImportError.topLevelNotAnArray(kind: "string")) { try store.importText(#""users""#, into: "User") }
        #expect(throws: ImportError.itemNotAnObject(index: 1, kind: "number")) { try store.importText(#"[{"id": 1}, 2]"#, into: "User") }
    }

    @Test func sizeAndDepthLimitsAreTheStoresAndNameTheItem() throws {
        let directory = try TemporaryDirectory()
        var options = StoreOptions()
        options.maximumDocumentBytes = 200
        options.maximumDepth = 4
        let store = try ImportScenario.store(directory, schema: nil, options: options)
        let long = String(repeating: "x", count: 300)
        #expect {
            try store.importText(#"[{"id": 1}, {"id": 2, "text": "\#(long)"}]"#, into: "Note")
        } throws: { "\($0)".hasPrefix("item [1]: Note/2 is ") }
        #expect(throws: ImportError.self) { try store.importText(#"[{"id": 1, "a": [[[[[1]]]]]}]"#, into: "Note") }
        var input = ImportOptions()
        input.maximumInputBytes = 10
        #expect(throws: ImportError.self) { try store.importText(#"[{"id": 1}, {"id": 2}]"#, into: "Note", options: input) }
        #expect(store.headSequence == 0)
    }

    @Test func anEntityWhoseKeyIsUnusableIsAnError() throws {
        let directory = try TemporaryDirectory()
        let schema = #"{"formatVersion": 1, "entities": {"User": {"primaryKey": "company", "relationships": {"company": {"kind": "to-one", "target": "User"}}}}}"#
        let store = try ImportScenario.store(directory, schema: schema)
        #expect(throws: ImportError.unusableKey(entity: "User", reason: #"its primary key "company" is a relationship"#)) {
            try store.importText(#"[{"company": 1}]"#, into: "User")
        }
    }

    @Test func aDeclaredPrimaryKeyOtherThanID() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        let uuid = "8F2C6A4E-1B3D-4C5E-9F70-123456789ABC"
        try store.importText(#"[{"uuid": "\#(uuid)", "attributes": {"contact": {"email": "a@example.com"}}}]"#, into: "Contact")
        #expect(try store.idTexts("Contact") == [uuid.lowercased()])
        let report = try store.importText(#"[{"uuid": "\#(uuid.lowercased())", "attributes": {"contact": {"email": "a@example.com"}}}]"#, into: "Contact")
        #expect(report.counts == .init(unchanged: 1))
    }
}
