import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// Round trips that lose nothing (issue 52, item 1): an export imports back as no change, in
/// every relationship style, for many-to-many graphs and for records made by `put` or by hand;
/// a linked record is written in full once and referenced where it recurs.
@Suite struct ExportRoundTripTests {
    /// Issues, users, labels and assignees, as a GitHub-like API gives them.
    static let schema = """
        {
          "formatVersion": 1,
          "entities": {
            "Issue": {
              "attributes": { "id": { "type": "integer" }, "title": { "type": "string" }, "state": { "type": "string" } },
              "relationships": {
                "user": { "kind": "to-one", "target": "User", "inverse": "issues", "deleteRule": "nullify" },
                "labels": { "kind": "many-to-many", "target": "Label", "inverse": "issues" },
                "assignees": { "kind": "many-to-many", "target": "User", "inverse": "assigned" }
              }
            },
            "User": {
              "attributes": { "id": { "type": "integer" }, "login": { "type": "string" } },
              "relationships": {
                "issues": { "kind": "to-many", "target": "Issue", "inverse": "user", "deleteRule": "nullify" },
                "assigned": { "kind": "many-to-many", "target": "Issue", "inverse": "assignees" }
              }
            },
            "Label": {
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
              "relationships": { "issues": { "kind": "many-to-many", "target": "Issue", "inverse": "labels" } }
            }
          }
        }
        """

    /// `count` issues over `count / 10` users and 20 labels, each with an author, up to three
    /// labels and up to two assignees, chosen by a fixed rule so that the graph is dense.
    static func issues(_ count: Int) -> String {
        let users = max(count / 10, 3)
        var items: [String] = []
        for number in 1...count {
            func user(_ id: Int) -> String { #"{"id": \#(id), "login": "user\#(id)"}"# }
            func label(_ id: Int) -> String { #"{"id": \#(id), "name": "label\#(id)"}"# }
            let author = number * 7 % users + 1
            let labels = (0..<(number % 4)).map { label((number + $0 * 5) % 20 + 1) }
            let assignees = Set((0..<(number % 3)).map { (number * 3 + $0 * 11) % users + 1 }).sorted().map(user)
            items.append(
                #"{"id": \#(number), "title": "Issue \#(number)", "state": "\#(number % 2 == 0 ? "open" : "closed")", "user": \#(user(author)), "#
                    + #""labels": [\#(labels.joined(separator: ", "))], "assignees": [\#(assignees.joined(separator: ", "))]}"#)
        }
        return "[" + items.joined(separator: ",\n") + "]"
    }

    static func githubStore(_ directory: TemporaryDirectory, name: String = "store", issues count: Int) throws -> Store {
        let store = try makeImportStore(in: directory, name: name, schema: schema)
        try store.importText(issues(count), into: "Issue")
        return store
    }

    static func options(_ relationships: ExportOptions.Relationships) -> ExportOptions {
        var options = ExportOptions()
        options.relationships = relationships
        return options
    }

    @Test(arguments: ExportOptions.Relationships.allCases)
    func aManyToManyGraphImportsBackAsNoChange(_ relationships: ExportOptions.Relationships) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.githubStore(directory, issues: 1_000)
        let head = store.head
        for entity in ["Issue", "User", "Label"] {
            let exported = try store.exportRecords(of: EntityName(entity), options: Self.options(relationships))
            let report = try store.importRecords(Array(exported.canonicalBytes()), into: EntityName(entity))
            #expect(!report.hasChanges, "\(entity) exported with relationships \(relationships)")
        }
        #expect(store.head == head)
    }

    @Test(arguments: [ExportOptions.Relationships.array, .nested])
    func eachLinkedRecordIsWrittenInFullOnceAndReferencedWhereItRecurs(_ relationships: ExportOptions.Relationships) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.githubStore(directory, issues: 300)
        let exported = try store.exportRecords(of: EntityName("Issue"), options: Self.options(relationships))
        var full: [String: Int] = [:]
        var references = 0
        var deepest = 0
        func visit(_ value: JSONValue, depth: Int) {
            deepest = max(deepest, depth)
            switch value {
            case .object(let members):
                if depth > 1, let id = members["id"] {
                    if members.count == 1 { references += 1 } else { full["\(members["login"] ?? members["name"] ?? .null)#\(id)", default: 0] += 1 }
                }
                for member in members.values { visit(member, depth: depth + 1) }
            case .array(let elements):
                for element in elements { visit(element, depth: depth) }
            default: break
            }
        }
        for item in exported.arrayValue ?? [] { visit(item, depth: 1) }
        // 30 users and 20 labels, each written in full exactly once; everything else refers.
        #expect(full.count == 50 && full.values.allSatisfy { $0 == 1 })
        #expect(references > 0)
        // Issue → link → record (→ the index object of the nested style): never a chain of issues.
        #expect(deepest <= (relationships == .nested ? 4 : 3))
    }

    @Test(arguments: ExportOptions.Relationships.allCases)
    func anEmptyStoreMadeFromTheExportExportsTheSame(_ relationships: ExportOptions.Relationships) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.githubStore(directory, issues: 200)
        let copy = try makeImportStore(in: directory, name: "copy", schema: Self.schema)
        // Ids only link records that exist, so the linked entities go first.
        let entities = relationships == .none ? ["User", "Label", "Issue"] : ["Issue"]
        for entity in entities {
            let exported = try store.exportRecords(of: EntityName(entity), options: Self.options(relationships))
            try copy.importRecords(Array(exported.canonicalBytes()), into: EntityName(entity))
        }
        for entity in ["Issue", "User", "Label"] {
            let before = try store.exportRecords(of: EntityName(entity), options: Self.options(relationships))
            let after = try copy.exportRecords(of: EntityName(entity), options: Self.options(relationships))
            #expect(before == after, "\(entity) with relationships \(relationships)")
        }
    }

    @Test func aRecordMadeByPutExportsItsIdAndImportsBackAsNoChange() throws {
        let directory = try TemporaryDirectory()
        let store = try makeImportStore(in: directory, schema: Self.schema)
        try store.put(["login": "zed"], entity: EntityName("User"), id: RecordID("77"))
        let exported = try store.exportRecords(of: EntityName("User"))
        #expect(exported.arrayValue?.first?["id"] == 77)
        let head = store.head
        let report = try store.importRecords(Array(exported.canonicalBytes()), into: EntityName("User"))
        #expect(!report.hasChanges && store.head == head)
        #expect(try store.document("User", "77") == ["login": "zed"])
    }

    @Test func aRecordMadeByHandInAStoreWithoutASchemaExportsItsId() throws {
        let directory = try TemporaryDirectory()
        let store = try makeImportStore(in: directory)
        try FileManager.default.createDirectory(atPath: store.layout.records + "/Note", withIntermediateDirectories: true)
        try Data(#"{"title": "x"}"#.utf8).write(to: URL(fileURLWithPath: store.layout.records + "/Note/n1.json"))
        _ = try store.commit()
        let exported = try store.exportRecords(of: EntityName("Note"))
        #expect(exported == [["id": "n1", "title": "x"]])
        let head = store.head
        let report = try store.importRecords(Array(exported.canonicalBytes()), into: EntityName("Note"))
        #expect(!report.hasChanges && store.head == head)
    }
}
