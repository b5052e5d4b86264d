import FerryTestSupport
import Foundation
@testable import Ferry

/// Small stores and inputs shared by the import scenario tests.
enum ImportScenario {
    /// Users with a company (to-one, nullify; the company denies deletes while it has users),
    /// unordered notes (cascade) and many-to-many tags; a `Contact` with a uuid key and dotted
    /// remote keys.
    static let schema = #"""
        {
          "formatVersion": 1,
          "entities": {
            "User": {
              "attributes": {
                "id": { "type": "integer" },
                "firstName": { "type": "string" },
                "email": { "type": "string" },
                "age": { "type": "integer", "remoteKey": "age_of_person", "exportable": false },
                "score": { "type": "decimal" },
                "createdAt": { "type": "date" },
                "userType": { "type": "string" },
                "userDescription": { "type": "string" },
                "destroy": { "type": "bool" }
              },
              "relationships": {
                "company": { "kind": "to-one", "target": "Company", "inverse": "users", "deleteRule": "nullify" },
                "notes": { "kind": "to-many", "target": "Note", "inverse": "user", "deleteRule": "cascade" },
                "tags": { "kind": "many-to-many", "target": "Tag", "inverse": "users" }
              }
            },
            "Company": {
              "attributes": { "id": { "type": "integer" }, "name": { "type": "string" } },
              "relationships": {
                "users": { "kind": "to-many", "target": "User", "inverse": "company", "deleteRule": "deny" }
              }
            },
            "Note": {
              "attributes": { "id": { "type": "integer" }, "text": { "type": "string" } },
              "relationships": { "user": { "kind": "to-one", "target": "User", "inverse": "notes" } }
            },
            "Tag": {
              "attributes": { "id": { "type": "string" }, "label": { "type": "string" } },
              "relationships": { "users": { "kind": "many-to-many", "target": "User", "inverse": "tags" } }
            },
            "Contact": {
              "primaryKey": "uuid",
              "keys": "asis",
              "attributes": {
                "uuid": { "type": "uuid" },
                "email": { "type": "string", "remoteKey": "attributes.contact.email" },
                "score": { "type": "decimal", "remoteKey": "attributes.score" },
                "profile": { "type": "json" }
              }
            }
          }
        }
        """#

    /// A fresh store with ``schema`` (or none).
    static func store(_ directory: TemporaryDirectory, schema: String? = ImportScenario.schema, options: StoreOptions = StoreOptions()) throws -> Store {
        try makeImportStore(in: directory, schema: schema, options: options)
    }

    /// `count` flat users `{"id": n, "name": "User n"}` as JSON text, ids from `first`.
    static func users(_ ids: some Sequence<Int>, renamed: Set<Int> = []) -> String {
        "[" + ids.map { #"{"id": \#($0), "name": "User \#($0)\#(renamed.contains($0) ? " (renamed)" : "")"}"# }.joined(separator: ",") + "]"
    }

    /// Options with a scope expression.
    static func scoped(_ expression: String) throws -> ImportOptions {
        var options = ImportOptions()
        options.scope = try ImportFilter(parsing: expression)
        return options
    }

    /// Options that let an import delete any share of an entity (`--force`): for tests of what
    /// the deletes do, not of the guard against them.
    static var forced: ImportOptions {
        var options = ImportOptions()
        options.allowsMassDeletion = true
        return options
    }

    /// Options importing the children of `parent` (`User/1`).
    static func under(_ parent: String) throws -> ImportOptions {
        var options = ImportOptions()
        let parts = parent.split(separator: "/").map(String.init)
        options.parent = RecordKey(entity: try EntityName(parts[0]), id: try RecordID(parts[1]))
        return options
    }
}
