import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// `exportRecords`: keys, relationships in three styles, cycles, scope and round trips of
/// SampleData (issue 6, item 8).
@Suite struct ExportTests {
    static func options(_ keys: ExportOptions.Keys = .snake, _ relationships: ExportOptions.Relationships = .none) -> ExportOptions {
        var options = ExportOptions()
        options.keys = keys
        options.relationships = relationships
        return options
    }

    static func sampleStore(_ directory: TemporaryDirectory, name: String = "store") throws -> Store {
        let store = try makeImportStore(in: directory, name: name, schema: try SampleFiles.text("schema.json"))
        _ = try store.importRecords(try SampleFiles.bytes("users.json"), into: EntityName("User"))
        return store
    }

    @Test func snakeCaseByDefaultWithReservedNamesAndNullsAndWithoutNonExportableFields() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        let user = try store.exportRecord(RecordID("5"), of: EntityName("User"))
        #expect(user["first_name"] == "Eva" && user["type"] != nil && user["description"] != nil)
        #expect(user["birth_date"] == .null)
        #expect(user["age_of_person"] == nil && user["ageOfPerson"] == nil)
        #expect(user["company_id"]?.stringValue != nil && user["notes_ids"]?.arrayValue != nil)
        #expect(user["created_at"]?.stringValue?.hasSuffix("Z") == true)
        #expect(user["id"] == 5)
    }

    @Test func datesAreExportedInISO8601() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        let user = try store.exportRecord(RecordID("7"), of: EntityName("User"))
        let created = try #require(user["created_at"]?.stringValue)
        #expect(try ImportDate(canonical: created).canonicalText == created)
    }

    @Test func remoteKeyPathsAreRebuiltAsNestedObjects() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        let uuid = "0e6f2d4a-8b1c-4d3e-a5f6-0718293a4b5c"
        let input = #"{"uuid": "\#(uuid)", "attributes": {"contact": {"email": "a@example.com"}, "score": 1.5}, "profile": [1]}"#
        try store.importText(input, into: "Contact")
        let exported = try store.exportRecord(RecordID(uuid), of: EntityName("Contact"))
        #expect(exported == ["id": .string(uuid), "attributes": ["contact": ["email": "a@example.com"], "score": 1.5], "profile": [1]])
        let asis = try store.exportRecord(RecordID(uuid), of: EntityName("Contact"), options: Self.options(.asis))
        #expect(asis == ["uuid": .string(uuid), "email": "a@example.com", "score": 1.5, "profile": [1]])
    }

    @Test func camelAndAsIsKeys() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        let camel = try store.exportRecord(RecordID("1"), of: EntityName("User"), options: Self.options(.camel))
        #expect(camel["firstName"] == "Ana" && camel["type"] == "admin" && camel["companyID"] == "6")
        let asis = try store.exportRecord(RecordID("1"), of: EntityName("User"), options: Self.options(.asis))
        #expect(asis["userType"] == "admin" && asis["companyID"] == "6" && asis["notesIDs"] == ["1", "2"])
        let company = try store.exportRecord(RecordID("6"), of: EntityName("Company"), options: Self.options(.camel))
        #expect(company["websiteURL"] == "http://atlas-maps.example.com/about")
    }

    @Test func arrayModeInlinesLinkedRecordsAndCutsTheWayBack() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        let user = try store.exportRecord(RecordID("1"), of: EntityName("User"), options: Self.options(.snake, .array))
        let company = try #require(user["company"])
        #expect(company == ["id": 6, "name": "Atlas Cartography", "website_url": "http://atlas-maps.example.com/about"])
        let notes = try #require(user["notes"]?.arrayValue)
        #expect(notes.map { $0["id"] } == [1, 2])
        #expect(notes[0]["user"] == nil && notes[0]["user_id"] == nil)
        let companies = try store.exportRecords(of: EntityName("Company"), options: Self.options(.snake, .array))
        let atlas = try #require(companies.arrayValue?.first { $0["id"] == 6 })
        let users = try #require(atlas["users"]?.arrayValue)
        #expect(!users.isEmpty && users.allSatisfy { $0["company"] == nil && $0["notes"] != nil })
    }

    @Test func nestedModeUsesRailsNestedAttributes() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "destroy": false, "company": {"id": 7, "name": "Acme"}, "notes": [{"id": 3}, {"id": 1}]}]"#, into: "User")
        let user = try store.exportRecord(RecordID("1"), of: EntityName("User"), options: Self.options(.snake, .nested))
        #expect(user["company_attributes"] == ["id": 7, "name": "Acme"])
        #expect(user["notes_attributes"] == ["0": ["id": 1, "text": nil], "1": ["id": 3, "text": nil]])
        #expect(user["_destroy"] == false && user["destroy"] == nil)
        // The input gave no tags, so the record holds no list of them: none is written, which
        // an import reads as "keep" (an empty one would be stored as `tagsIDs: []`).
        #expect(user["tags_attributes"] == nil && user["tags"] == nil)
    }

    @Test func scopeSelectsTheRecordsExported() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        var options = ExportOptions()
        options.scope = try ImportFilter(parsing: #"userType = "admin""#)
        let admins = try #require(try store.exportRecords(of: EntityName("User"), options: options).arrayValue)
        #expect(!admins.isEmpty && admins.allSatisfy { $0["type"] == "admin" })
        #expect(throws: ImportError.self) { try store.exportRecord(RecordID("9999"), of: EntityName("User")) }
    }

    @Test(arguments: ExportOptions.Relationships.allCases)
    func sampleUsersRoundTrip(_ relationships: ExportOptions.Relationships) throws {
        let directory = try TemporaryDirectory()
        let original = try Self.sampleStore(directory)
        let copy = try makeImportStore(in: directory, name: "copy", schema: try SampleFiles.text("schema.json"))
        let options = Self.options(.snake, relationships)
        // Ids only link records that exist, so the linked entities go first.
        let entities = relationships == .none ? ["Company", "Note", "User"] : ["User"]
        for entity in entities {
            let exported = try original.exportRecords(of: EntityName(entity), options: options)
            _ = try copy.importRecords(Array(exported.canonicalBytes()), into: EntityName(entity))
        }
        for entity in ["User", "Company", "Note"] {
            let before = try original.exportRecords(of: EntityName(entity), options: options)
            let after = try copy.exportRecords(of: EntityName(entity), options: options)
            #expect(before == after, "\(entity) in \(relationships) mode")
        }
        #expect(try copy.idTexts("User").count == 40)
        // Re-importing an export into the store it came from changes nothing.
        let head = original.head
        let exported = try original.exportRecords(of: EntityName("User"), options: options)
        let report = try original.importRecords(Array(exported.canonicalBytes()), into: EntityName("User"))
        #expect(!report.hasChanges && original.head == head)
    }
}

/// Export as a stream (issue 19, item 1): the same records as the array, one at a time, and
/// the same bytes from ``PrettyJSONArrayWriter`` as from the whole array's pretty form.
@Suite struct StreamingExportTests {
    @Test func theStreamGivesTheArraysRecordsInOrderInEveryStyle() throws {
        let directory = try TemporaryDirectory()
        let store = try ExportTests.sampleStore(directory)
        let user = try EntityName("User")
        for relationships in [ExportOptions.Relationships.none, .array, .nested] {
            let options = ExportTests.options(.snake, relationships)
            var streamed: [JSONValue] = []
            try store.exportRecords(of: user, options: options) { streamed.append($0) }
            #expect(JSONValue.array(streamed) == (try store.exportRecords(of: user, options: options)), "\(relationships)")
            #expect(streamed.count == (try store.ids(of: user)).count)
        }
    }

    @Test func anErrorFromTheConsumerStopsTheStream() throws {
        let directory = try TemporaryDirectory()
        let store = try ExportTests.sampleStore(directory)
        var seen = 0
        #expect(throws: ImportError.self) {
            try store.exportRecords(of: EntityName("User")) { _ throws(ImportError) in
                seen += 1
                if seen == 2 { throw ImportError.store(.recordNotFound(RecordKey(entity: try! EntityName("User"), id: try! RecordID("x")))) }
            }
        }
        #expect(seen == 2)
    }

    @Test func theWriterMakesThePrettyBytesOfTheWholeArray() {
        let elements: [JSONValue] = [
            ["id": 1, "name": "Ana", "tags": ["a", "b"], "empty": [:], "none": [], "nested": ["deep": [1, 2.5, true, .null]]],
            "text", 3, [], [:], ["é\n\"": "x"],
        ]
        for count in 0...elements.count {
            var writer = PrettyJSONArrayWriter()
            var bytes: [UInt8] = []
            for element in elements.prefix(count) { bytes += writer.bytes(appending: element) }
            bytes += writer.closingBytes()
            #expect(bytes == JSONValue.array(Array(elements.prefix(count))).prettyBytes(), "\(count) elements")
            #expect(writer.elementCount == count)
        }
    }
}
