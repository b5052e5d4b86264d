import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// Checks `SampleData/` against the import code: every date parses, every price stays exact, the
/// example schema is valid, and importing `users-update.json` over `users.json` into a real store
/// makes the changes its README describes.
@Suite struct SampleDataTests {
    @Test func exampleSchemaIsValid() throws {
        let schema = try Schema(json: try SampleFiles.json("schema.json"))
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
            let users = try #require(try SampleFiles.json(file).arrayValue)
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
        let products = try #require(try SampleFiles.json("products.json").arrayValue)
        #expect(products.count == 60)
        for product in products {
            let price = try #require(product["price"])
            let stored = try AttributeCoercion.coerce(price, to: .decimal)
            #expect(stored == price)
            _ = try ImportDate(parsing: try #require(product["updatedAt"]))
        }
    }

    @Test func holidaysAndBirthdaysAreWellFormed() throws {
        let holidays = try #require(try SampleFiles.json("important-dates/holidays.json").arrayValue)
        for holiday in holidays {
            _ = try AttributeCoercion.coerce(try #require(holiday["date"]), to: .date)
            _ = try AttributeCoercion.coerce(try #require(holiday["wikipediaLink"]), to: .url)
        }
        let birthdays = try #require(try SampleFiles.json("important-dates/birthdays.json").arrayValue)
        #expect(birthdays.contains { $0["date"] == "2020-02-29" })
        let plan = try ImportDiffPlan(stored: [], incoming: holidays + [], operations: .all)
        #expect(plan.inserts.count == holidays.count)
    }

    @Test func usersUpdateImportsTheDocumentedChanges() throws {
        let directory = try TemporaryDirectory()
        let store = try makeImportStore(in: directory, schema: try SampleFiles.text("schema.json"))
        let users = try EntityName("User")
        let first = try store.importRecords(try SampleFiles.bytes("users.json"), into: users)
        #expect(first.counts == .init(inserted: 40))
        #expect(first.countsByEntity[try EntityName("Company")]?.inserted == 6)
        let head = store.head
        let again = try store.importRecords(try SampleFiles.bytes("users.json"), into: users)
        #expect(!again.hasChanges && again.counts.unchanged == 40 && store.head == head)

        let plan = try store.importRecords(try SampleFiles.bytes("users-update.json"), into: users)
        #expect(plan.changes.filter { $0.kind == .insert && $0.key.entity == users }.map(\.key.id.rawValue).sorted() == ["41", "42", "43", "44"])
        #expect(plan.changes.filter { $0.kind == .delete && $0.key.entity == users }.map(\.key.id.rawValue) == ["17", "3", "30", "36"])
        let updated = plan.changes.filter { $0.kind == .update && $0.key.entity == users }
        #expect(updated.map(\.key.id.rawValue).sorted { Int($0) ?? 0 < Int($1) ?? 0 } == ["2", "5", "8", "11", "12", "15", "19", "22", "25", "27"])
        #expect(plan.counts == .init(inserted: 4, updated: 10, deleted: 4, unchanged: 26))
        let user19 = try #require(updated.first { $0.key.id.rawValue == "19" })
        #expect(user19.changedKeys == ["updatedAt", "userDescription"])
        #expect(try store.document("User", "19")?["userDescription"] == nil)
        #expect(try store.document("User", "11")?["companyID"] == "4")
    }
}
