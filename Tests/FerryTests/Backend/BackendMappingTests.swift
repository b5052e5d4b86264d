import Testing
@testable import Ferry

/// The mapping file: its forms, its rules, and renaming both ways.
@Suite struct BackendMappingTests {
    static func parse(_ text: String) throws(BackendError) -> BackendMapping {
        try BackendMapping(parsing: Array(text.utf8))
    }

    @Test func everyFormReadsAndRenamesBothWays() throws {
        let mapping = try Self.parse(#"{"Product": {"collection": "products", "fields": {"name": "title", "sku": "sku"}}, "Note": "notes", "Tag": {}}"#)
        #expect(mapping.entries.map(\.collection) == ["notes", "products", "Tag"])
        let product = mapping.entry(for: try EntityName("Product"))
        #expect(product.fields == ["name": "title"])
        let fields = try product.fields(of: ["name": "Lamp", "price": 3], record: "p1")
        #expect(fields == ["title": "Lamp", "price": 3])
        #expect(product.document(of: fields) == ["name": "Lamp", "price": 3])
        // A backend field carrying a renamed member's own name stands for no member.
        #expect(product.document(of: ["title": "Lamp", "name": "stray"]) == ["name": "Lamp"])
        #expect(product.member(forField: "name") == nil && product.member(forField: "title") == "name")
        #expect(throws: BackendError.self) { try product.fields(of: ["name": "a", "title": "b"], record: "Product/p2") }
        // An entity the mapping does not list keeps its own names.
        #expect(mapping.entry(for: try EntityName("Other")).collection == "Other")
        #expect(try mapping.restricted(to: [try EntityName("Note"), try EntityName("Other")]).entries.map(\.collection) == ["notes", "Other"])
    }

    @Test func aMappingThatCannotBeFollowedIsOneLineNamingWhy() {
        let cases: [(String, String)] = [
            ("[1]", "mapping: the mapping is a JSON object with an entry per entity"),
            ("{", "mapping: not JSON"),
            ("{}", "mapping: no entities"),
            (#"{"A": "x", "B": "x"}"#, "mapping: A and B both map to the collection x"),
            (#"{"A": {"fields": {"a": "f", "b": "f"}}}"#, "mapping: A: the members \"a\" and \"b\" both map to the field f"),
            (#"{"A": "no-dash"}"#, "mapping: A: \"no-dash\" is not a collection name (letters, digits and _)"),
            (#"{"A": {"fields": {"a": "my field"}}}"#, "mapping: A.a: \"my field\" is not a field name (letters, digits and _)"),
            (#"{"A": {"fields": {"a": "updated"}}}"#, "mapping: A.a: the field updated is the backend's or Ferry's own"),
            (#"{"A": {"fields": {"a": "ferry_x"}}}"#, "mapping: A.a: the field ferry_x is the backend's or Ferry's own"),
            (#"{"A": {"collections": "x"}}"#, "mapping: A: unknown member \"collections\" (collection, fields)"),
            (#"{"A": 3}"#, "mapping: A: a collection name or an object with collection and fields"),
            (#"{"A": {"fields": {"a": 1}}}"#, "mapping: A.fields.a: a field name (a string)"),
        ]
        for (text, message) in cases {
            do {
                _ = try Self.parse(text)
                Issue.record("\(text) should be refused")
            } catch {
                #expect(error.message.hasPrefix(message), "\(text): \(error.message)")
                #expect(!error.message.contains("\n"))
            }
        }
    }
}
