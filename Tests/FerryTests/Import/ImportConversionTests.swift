import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// Keys, types and dates as they land in a real store (issue 6, items 2, 5 and 6).
@Suite struct ImportConversionTests {
    @Test func withoutASchemaKeysAreKeptAsTheyCome() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        try store.importText(#"[{"id": 1, "first_name": "Ana", "type": "admin", "createdAt": "2024-03-05 10:00"}]"#, into: "User")
        #expect(try store.document("User", "1") == ["id": 1, "first_name": "Ana", "type": "admin", "createdAt": "2024-03-05 10:00"])
    }

    @Test func keysCamelConvertsAcronymsAndReservedNames() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        var options = ImportOptions()
        options.keys = .camel
        try store.importText(
            #"[{"id": 1, "first_name": "Ana", "user_id": 4, "updated_url": "u", "type": "admin", "description": "d", "lastName": "O"}]"#,
            into: "User", options: options)
        #expect(
            try store.document("User", "1")
                == ["id": 1, "firstName": "Ana", "userID": 4, "updatedURL": "u", "userType": "admin", "userDescription": "d", "lastName": "O"])
    }

    @Test func aSchemaEntityStoresDeclaredKeysAndIgnoresUnknownOnes() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(
            #"[{"id": 1, "first_name": "Ana", "firstName": "ignored (snake wins)", "type": "admin", "description": "d", "favourite_colour": "red", "age_of_person": "41"}]"#,
            into: "User")
        #expect(try store.document("User", "1") == ["id": 1, "firstName": "Ana", "userType": "admin", "userDescription": "d", "age": 41])
    }

    @Test func camelCaseJSONKeysAreAcceptedToo() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "firstName": "Ana", "userType": "admin", "createdAt": "2024-03-05", "companyID": null}]"#, into: "User")
        #expect(try store.document("User", "1") == ["id": 1, "firstName": "Ana", "userType": "admin", "createdAt": "2024-03-05T00:00:00.000Z"])
    }

    @Test func dottedRemoteKeysReadNestedObjects() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        let uuid = "0e6f2d4a-8b1c-4d3e-a5f6-0718293a4b5c"
        try store.importText(
            #"[{"uuid": "\#(uuid)", "attributes": {"contact": {"email": "a@example.com", "phone": "1"}, "score": "12.20"}, "profile": {"tags": [1, "x"], "deep": {"a": null}}}]"#,
            into: "Contact")
        #expect(
            try store.document("Contact", uuid)
                == ["uuid": .string(uuid), "email": "a@example.com", "score": 12.2, "profile": ["tags": [1, "x"], "deep": ["a": nil]]])
    }

    @Test func valuesAreCoercedToTheirDeclaredTypes() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": "7", "first_name": 42, "age_of_person": "4.0", "score": "19.99", "destroy": "TRUE"}]"#, into: "User")
        #expect(try store.document("User", "7") == ["id": 7, "firstName": "42", "age": 4, "score": 19.99, "destroy": true])
        let stored = try #require(try store.document("User", "7"))
        #expect(stored.canonicalText.contains(#""score":19.99"#))
    }

    @Test(arguments: ["12.2", "0.1", "19.99", "1234567890.12345", "-0.5"])
    func decimalsStayExact(_ text: String) throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "score": \#(text)}, {"id": 2, "score": "\#(text)"}]"#, into: "User")
        for id in ["1", "2"] {
            let bytes = try FileSystem.readFile(store.layout.recordFile(RecordKey(entity: EntityName("User"), id: RecordID(id))))
            #expect(String(decoding: bytes, as: UTF8.self).contains(#""score": \#(text)"#))
        }
    }

    @Test func longDecimalStringsKeepTheirExactText() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "score": "001234567890.1234567890"}]"#, into: "User")
        #expect(try store.document("User", "1")?["score"] == "1234567890.123456789")
    }

    static let dateShapes: [(String, String)] = [
        ("2024-03-05", "2024-03-05T00:00:00.000Z"),
        ("2024-03-05T10:15:30", "2024-03-05T10:15:30.000Z"),
        ("2024-03-05 10:15:30", "2024-03-05T10:15:30.000Z"),
        ("2024-03-05T10:15:30Z", "2024-03-05T10:15:30.000Z"),
        ("2024-03-05T10:15:30+00:00", "2024-03-05T10:15:30.000Z"),
        ("2024-03-05T10:15:30+0000", "2024-03-05T10:15:30.000Z"),
        ("2024-03-05T10:15:30+02:00", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05T10:15:30-05:30", "2024-03-05T15:45:30.000Z"),
        ("2024-03-05T10:15:30.1Z", "2024-03-05T10:15:30.100Z"),
        ("2024-03-05T10:15:30.12Z", "2024-03-05T10:15:30.120Z"),
        ("2024-03-05T10:15:30.123Z", "2024-03-05T10:15:30.123Z"),
        ("2024-03-05T10:15:30.1234Z", "2024-03-05T10:15:30.123Z"),
        ("2024-03-05T10:15:30.12345Z", "2024-03-05T10:15:30.123Z"),
        ("2024-03-05T10:15:30.123456Z", "2024-03-05T10:15:30.123Z"),
        ("1709633730", "2024-03-05T10:15:30.000Z"),
        ("1709633730123", "2024-03-05T10:15:30.123Z"),
        ("1709633730123456", "2024-03-05T10:15:30.123Z"),
    ]

    @Test(arguments: dateShapes)
    func everyDateShapeIsStoredInOneCanonicalForm(_ input: String, _ stored: String) throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "created_at": "\#(input)"}]"#, into: "User")
        #expect(try store.document("User", "1")?["createdAt"] == .string(stored))
    }

    @Test func unixTimestampsAsNumbersAreDates() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        try store.importText(#"[{"id": 1, "created_at": 1709633730}, {"id": 2, "created_at": 1709633730.5}]"#, into: "User")
        #expect(try store.document("User", "1")?["createdAt"] == "2024-03-05T10:15:30.000Z")
        #expect(try store.document("User", "2")?["createdAt"] == "2024-03-05T10:15:30.500Z")
    }

    @Test func aStringThatIsNoDateNamesTheItem() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory)
        #expect {
            try store.importText(#"[{"id": 1}, {"id": 2, "notes": [], "created_at": "2024-02-30"}]"#, into: "User")
        } throws: { error in
            guard case ImportError.item(1, "created_at", .cannotCoerce(_, _, .date, _)) = error else { return false }
            return true
        }
    }
}
