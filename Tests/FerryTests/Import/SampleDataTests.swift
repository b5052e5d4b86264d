import Foundation
import Testing
@testable import Ferry

/// Checks `SampleData/` against the import code: every date parses, every price stays exact, the
/// example schema is valid, and importing `users-update.json` over `users.json` gives the plan its
/// README describes.
@Suite struct SampleDataTests {
    @Test func exampleSchemaIsValid() throws {
        let schema = try Schema(json: try SampleFile.load("schema.json"))
        let user = try #require(schema.entity(named: "User"))
        #expect(user.attribute(named: "userType")?.type == .string)
        #expect(user.remoteKeyPath(of: try #require(user.attribute(named: "userType"))) == ["type"])
        #expect(user.remoteKeyPath(of: try #require(user.attribute(named: "ageOfPerson"))) == ["age_of_person"])
        let contact = try #require(schema.entity(named: "Contact"))
        #expect(contact.remoteKeyPath(of: try #require(contact.attribute(named: "email"))) == ["attributes", "contact", "email"])
        #expect(schema.linkStorage(of: try #require(user.relationship(named: "notes")), in: user) == .ids(key: "notesIDs"))
    }

    @Test func everyUserDateParses() throws {
        for file in ["users.json", "users-update.json"] {
            let users = try #require(try SampleFile.load(file).arrayValue)
            #expect(users.count == 40)
            for user in users {
                for key in ["created_at", "updated_at", "birth_date"] {
                    let value = try #require(user[key], "\(file) \(key)")
                    _ = try AttributeCoercion.coerce(value, to: .date)
                }
                for note in user["notes"]?.arrayValue ?? [] {
                    _ = try AttributeCoercion.coerce(try #require(note["created_at"]), to: .date)
                }
            }
        }
    }

    @Test func productPricesStayExact() throws {
        let products = try #require(try SampleFile.load("products.json").arrayValue)
        #expect(products.count == 60)
        for product in products {
            let price = try #require(product["price"])
            let stored = try AttributeCoercion.coerce(price, to: .decimal)
            #expect(stored == price)
            _ = try ImportDate(parsing: try #require(product["updatedAt"]))
        }
    }

    @Test func holidaysAndBirthdaysAreWellFormed() throws {
        let holidays = try #require(try SampleFile.load("important-dates/holidays.json").arrayValue)
        for holiday in holidays {
            _ = try AttributeCoercion.coerce(try #require(holiday["date"]), to: .date)
            _ = try AttributeCoercion.coerce(try #require(holiday["wikipediaLink"]), to: .url)
        }
        let birthdays = try #require(try SampleFile.load("important-dates/birthdays.json").arrayValue)
        #expect(birthdays.contains { $0["date"] == "2020-02-29" })
        let plan = try ImportDiffPlan(stored: [], incoming: holidays + [], operations: .all)
        #expect(plan.inserts.count == holidays.count)
    }

    @Test func usersUpdatePlansTheDocumentedChanges() throws {
        let schema = try Schema(json: try SampleFile.load("schema.json"))
        let entity = try #require(schema.entity(named: "User"))
        let first = try SampleConversion.convert(try #require(try SampleFile.load("users.json").arrayValue), entity, schema)
        let initial = try ImportDiffPlan(stored: [], incoming: first, operations: .all)
        #expect(initial.inserts.count == 40)
        let stored = initial.inserts.map { (id: $0.id.rawValue, document: $0.document) }
        let again = try ImportDiffPlan(stored: stored, incoming: first, operations: .all)
        #expect(!again.hasChanges && again.unchanged.count == 40)

        let update = try SampleConversion.convert(try #require(try SampleFile.load("users-update.json").arrayValue), entity, schema)
        let plan = try ImportDiffPlan(stored: stored, incoming: update, operations: .all)
        #expect(plan.inserts.map(\.id.rawValue).sorted() == ["41", "42", "43", "44"])
        #expect(plan.deletes.map(\.rawValue) == ["17", "3", "30", "36"])
        #expect(plan.updates.map(\.id.rawValue).sorted { Int($0) ?? 0 < Int($1) ?? 0 } == ["2", "5", "8", "11", "12", "15", "19", "22", "25", "27"])
        #expect(plan.unchanged.count == 26)
        let user19 = try #require(plan.updates.first { $0.id.rawValue == "19" })
        #expect(user19.changedKeys == ["updatedAt", "userDescription"])
        #expect(user19.document["userDescription"] == nil)
        let user11 = try #require(plan.updates.first { $0.id.rawValue == "11" })
        #expect(user11.document["companyID"] == "4")
    }
}

/// Reads `SampleData/` files. Test-only: JSONDecoder stands in for Ferry's JSON parser, which
/// lands on another branch; delete this when `JSONParser.parse` is here.
enum SampleFile {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("SampleData")

    static func load(_ name: String) throws -> JSONValue {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        return try JSONDecoder().decode(DecodedJSON.self, from: data).value
    }

    struct DecodedJSON: Decodable {
        let value: JSONValue

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = .null
            } else if let flag = try? container.decode(Bool.self) {
                value = .bool(flag)
            } else if let integer = try? container.decode(Int64.self) {
                value = .integer(integer)
            } else if let double = try? container.decode(Double.self) {
                value = .number(double)
            } else if let text = try? container.decode(String.self) {
                value = .string(text)
            } else if let elements = try? container.decode([DecodedJSON].self) {
                value = .array(elements.map(\.value))
            } else {
                value = .object(try container.decode([String: DecodedJSON].self).mapValues(\.value))
            }
        }
    }
}

/// A minimal stand-in for the import converter (not written yet): typed attributes from their
/// remote keys, to-one links as `<name>ID`, to-many as `<name>IDs`, per docs/IMPORT.md.
enum SampleConversion {
    static func convert(_ items: [JSONValue], _ entity: Schema.Entity, _ schema: Schema) throws -> [JSONValue] {
        try items.map { item in
            var document: [String: JSONValue] = [:]
            for attribute in entity.attributes {
                var value: JSONValue? = item
                for key in entity.remoteKeyPath(of: attribute) { value = value?[key] }
                if let value { document[attribute.name] = try AttributeCoercion.coerce(value, to: attribute.type) }
            }
            for relationship in entity.relationships {
                guard let value = item[entity.remoteKeyPath(of: relationship)[0]] else { continue }
                switch schema.linkStorage(of: relationship, in: entity) {
                case .id(let key):
                    document[key] = value["id"].map { .string(String($0.integerValue ?? 0)) } ?? .null
                case .ids(let key):
                    document[key] = .array((value.arrayValue ?? []).map { .string(String($0["id"]?.integerValue ?? 0)) })
                case .inverse:
                    break
                }
            }
            return .object(document)
        }
    }
}
