import Testing

@testable import Ferry

/// A large input is converted in runs on every core and merged in input order: the conversion
/// and the first error must be those of one pass over the items.
@Suite struct ParallelConversionTests {
    static let user = try! EntityName("User")
    static let schema = try! Schema(json: SchemaTests.usersSchema())

    /// `count` users; user `n` works at company `n % 3` (spelled differently in each third of
    /// the input, so later occurrences win) and has one note of its own.
    static func users(_ count: Int) -> [JSONValue] {
        (0..<count).map { n -> JSONValue in
            [
                "id": .integer(Int64(n)), "first_name": .string("User \(n)"),
                "company": ["id": .integer(Int64(n % 3)), "website_url": .string("https://c\(n % 3).example/\(n * 3 / count)")],
                "notes": [["id": .integer(Int64(n)), "text": .string("note \(n)")]],
            ]
        }
    }

    /// The conversion as one converter makes it in a single pass, with the same duplicate check.
    static func singlePass(_ items: [JSONValue]) throws(ImportError) -> ImportConversion {
        var converter = RecordConverter(entity: user, schema: schema, keys: nil)
        var seen: [RecordID: Int] = [:]
        for index in items.indices {
            let failure = converter.convertItems(items, in: index..<(index + 1))
            if let item = converter.conversion.items.last, item.index == index, let first = seen.updateValue(index, forKey: item.id) {
                throw .duplicateItemID(item.id.rawValue, firstIndex: first, secondIndex: index)
            }
            if let failure { throw failure }
        }
        return converter.conversion
    }

    /// What the import does with a conversion, as comparable text.
    static func summary(_ conversion: ImportConversion) -> [String] {
        conversion.items.map { "item \($0.index) \($0.id) \(JSONValue.object($0.members))" }
            + conversion.nestedOrder.map { key in
                let record = conversion.nested[key]
                return "nested \(key) \(JSONValue.object(record?.members ?? [:])) from \(record?.origin.index ?? -1) under \((record?.indexes ?? []).sorted())"
            }
            + conversion.linkSets.map { "link \($0.source) \($0.relationship.name) \($0.targets) \($0.origin.keyPath)" }
            + conversion.skipped.map { "skipped \($0.index) \($0.keyPath) \($0.reason)" }
    }

    @Test func runsMergeToTheSinglePassConversion() throws {
        var items = Self.users(10_000)
        items[5_000] = ["id": 5_000, "first_name": "no company"]
        items[9_000] = ["id": 9_000, "notes": [["text": "a note without id"]]]
        let merged = try RecordConverter.convert(items, entity: Self.user, schema: Self.schema, keys: nil)
        #expect(Self.summary(merged) == Self.summary(try Self.singlePass(items)))
        #expect(merged.items.count == 10_000)
        // Each company was met in every run; the last spelling wins and every user is listed.
        let company = RecordKey(entity: try EntityName("Company"), id: try RecordID("2"))
        #expect(merged.nested[company]?.members["websiteURL"] == "https://c2.example/2")
        #expect(merged.nested[company]?.origin.index == 2)
        #expect(merged.nested[company]?.indexes.count == 3_332)  // 2, 5, … 9998, less item 5000
        #expect(merged.skipped.map(\.index) == [9_000])
        // An item without its id stops the conversion, naming the first such item in input order.
        items[7_000] = ["first_name": "no id"]
        items[3_000] = ["first_name": "no id either"]
        #expect(throws: ImportError.item(index: 3_000, keyPath: "", .missingPrimaryKey(member: "id", isNull: false, candidates: []))) {
            try RecordConverter.convert(items, entity: Self.user, schema: Self.schema, keys: nil)
        }
    }

    @Test func aRepeatedIdAcrossRunsNamesBothItems() throws {
        var items = Self.users(10_000)
        items[9_500] = ["id": 100]
        #expect(throws: ImportError.duplicateItemID("100", firstIndex: 100, secondIndex: 9_500)) {
            try RecordConverter.convert(items, entity: Self.user, schema: Self.schema, keys: nil)
        }
    }

    @Test func theFirstProblemInInputOrderIsReported() throws {
        var items = Self.users(12_000)
        items[5_000] = ["id": 10]  // repeats item 10
        items[11_000] = "not an object"
        // The repeat comes first in the input, though its run and a later one both fail.
        #expect(throws: ImportError.duplicateItemID("10", firstIndex: 10, secondIndex: 5_000)) {
            try RecordConverter.convert(items, entity: Self.user, schema: Self.schema, keys: nil)
        }
        items[4_500] = ["id": 4_500, "created_at": "not a date"]
        let expected = try #require(Self.singlePassError(items))
        #expect(throws: expected) { try RecordConverter.convert(items, entity: Self.user, schema: Self.schema, keys: nil) }
        guard case .item(let index, let keyPath, _) = expected else {
            Issue.record("expected an item error, got \(expected)")
            return
        }
        #expect(index == 4_500 && keyPath == "created_at")
    }

    static func singlePassError(_ items: [JSONValue]) -> ImportError? {
        do {
            _ = try singlePass(items)
            return nil
        } catch {
            return error
        }
    }
}
