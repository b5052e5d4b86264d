import Testing
@testable import Ferry

@Suite struct SchemaTests {
    /// A valid users/companies/notes schema, as `SampleData/schema.json` has it (trimmed).
    static func usersSchema() -> JSONValue {
        [
            "formatVersion": 1,
            "entities": [
                "User": [
                    "primaryKey": "id",
                    "keys": "camel",
                    "attributes": [
                        "id": ["type": "integer"],
                        "firstName": ["type": "string"],
                        "ageOfPerson": ["type": "integer", "exportable": false],
                        "createdAt": ["type": "date"],
                        "email": ["type": "string", "remoteKey": "attributes.contact.email"],
                    ],
                    "relationships": [
                        "company": ["kind": "to-one", "target": "Company", "inverse": "users", "deleteRule": "nullify"],
                        "notes": ["kind": "to-many", "target": "Note", "inverse": "user", "deleteRule": "cascade", "ordered": true],
                    ],
                ],
                "Company": [
                    "attributes": ["id": ["type": "integer"], "websiteURL": ["type": "url"]],
                    "relationships": ["users": ["kind": "to-many", "target": "User", "inverse": "company", "deleteRule": "deny"]],
                ],
                "Note": [
                    "keys": "asis",
                    "attributes": ["id": ["type": "integer"], "text": ["type": "string"]],
                    "relationships": ["user": ["kind": "to-one", "target": "User", "inverse": "notes"]],
                ],
            ],
        ]
    }

    /// The users schema with `value` set at `path` (object keys).
    static func usersSchema(setting path: [String], to value: JSONValue?) -> JSONValue {
        func set(_ json: JSONValue, _ path: ArraySlice<String>) -> JSONValue {
            guard case .object(var members) = json, let key = path.first else { return value ?? .null }
            if path.count == 1 {
                members[key] = value
            } else {
                members[key] = set(members[key] ?? [:], path.dropFirst())
            }
            return .object(members)
        }
        return set(usersSchema(), path[...])
    }

    @Test func parsesEntitiesAttributesAndRelationships() throws {
        let schema = try Schema(json: Self.usersSchema())
        let user = try #require(schema.entity(named: "User"))
        #expect(user.primaryKey == "id")
        #expect(user.keys == .camel)
        #expect(user.attributes.map(\.name) == ["ageOfPerson", "createdAt", "email", "firstName", "id"])
        #expect(user.attribute(named: "ageOfPerson")?.exportable == false)
        #expect(user.attribute(named: "createdAt")?.type == .date)
        let notes = try #require(user.relationship(named: "notes"))
        #expect(notes.kind == .toMany)
        #expect(notes.target.rawValue == "Note")
        #expect(notes.deleteRule == .cascade)
        #expect(notes.ordered)
        let note = try #require(schema.entity(named: "Note"))
        #expect(note.keys == .asis)
        #expect(note.relationship(named: "user")?.deleteRule == .nullify)
    }

    @Test func remoteKeysAreDeclaredOrDerived() throws {
        let schema = try Schema(json: Self.usersSchema())
        let user = try #require(schema.entity(named: "User"))
        let email = try #require(user.attribute(named: "email"))
        let firstName = try #require(user.attribute(named: "firstName"))
        #expect(user.remoteKeyPath(of: email) == ["attributes", "contact", "email"])
        #expect(user.remoteKeyPath(of: firstName) == ["first_name"])
        let company = try #require(schema.entity(named: "Company"))
        let website = try #require(company.attribute(named: "websiteURL"))
        #expect(company.remoteKeyPath(of: website) == ["website_url"])
    }

    @Test func linkStorageFollowsTheDocumentedConvention() throws {
        let schema = try Schema(json: Self.usersSchema())
        let user = try #require(schema.entity(named: "User"))
        let company = try #require(schema.entity(named: "Company"))
        let note = try #require(schema.entity(named: "Note"))
        #expect(schema.linkStorage(of: try #require(user.relationship(named: "company")), in: user) == .id(key: "companyID"))
        #expect(schema.linkStorage(of: try #require(user.relationship(named: "notes")), in: user) == .ids(key: "notesIDs"))
        #expect(schema.linkStorage(of: try #require(company.relationship(named: "users")), in: company) == .inverse)
        #expect(schema.linkStorage(of: try #require(note.relationship(named: "user")), in: note) == .id(key: "userID"))
    }

    static let invalidSchemas: [(path: [String], value: JSONValue?, message: String)] = [
        (["entities", "User", "attributes", "ageOfPerson", "type"], "int",
         #"schema: entities.User.attributes.ageOfPerson.type: unknown type "int"; the types are string, integer, decimal, double, bool, date, uuid, url, json"#),
        (["formatVersion"], 2, "schema: formatVersion: version 2 is not supported; this Ferry reads version 1"),
        (["formatVersion"], nil, "schema: formatVersion: missing"),
        (["entities", "User", "keys"], "snake", #"schema: entities.User.keys: unknown key convention "snake"; use "camel" or "asis""#),
        (["entities", "User", "attributes", "email", "remotekey"], "x",
         "schema: entities.User.attributes.email.remotekey: unknown key; expected one of exportable, remoteKey, type"),
        (["entities", "User", "attributes", "email", "exportable"], "no",
         "schema: entities.User.attributes.email.exportable: expected true or false, found string"),
        (["entities", "User", "attributes", "email", "remoteKey"], "attributes..email",
         #"schema: entities.User.attributes.email.remoteKey: "attributes..email" has an empty component"#),
        (["entities", "User", "relationships", "company", "target"], "Firm", "schema: entities.Company.relationships.users.inverse: User.company links to Firm, not Company"),
        (["entities", "User", "relationships", "company", "kind"], "one", #"schema: entities.User.relationships.company.kind: unknown kind "one"; use "to-one", "to-many" or "many-to-many""#),
        (["entities", "User", "relationships", "company", "inverse"], "staff", #"schema: entities.Company.relationships.users.inverse: User.company names "staff" as its inverse, not "users""#),
        (["entities", "User", "relationships", "company", "ordered"], true, "schema: entities.User.relationships.company.ordered: only a to-many relationship can be ordered"),
        (["entities", "User", "relationships", "company", "deleteRule"], "restrict",
         #"schema: entities.User.relationships.company.deleteRule: unknown delete rule "restrict"; use "cascade", "nullify" or "deny""#),
        (["entities", "User", "attributes", "id", "type"], "date", "schema: entities.User.attributes.id.type: the primary key must be a string, integer or uuid, not date"),
        (["entities", "User", "attributes", "companyID"], ["type": "string"],
         #"schema: entities.User.relationships.company: its links are stored as "companyID", which is also an attribute"#),
        (["entities", "User", "attributes", "first_name"], ["type": "string", "remoteKey": "first_name"],
         #"schema: entities.User.attributes.first_name: reads the remote key "first_name" that "firstName" reads too"#),
        (["entities", "1User"], [:], #"schema: entities.1User: invalid entity name "1User": it must start with a letter"#),
        (["entities", "Company", "relationships", "users", "kind"], "many-to-many",
         "schema: entities.Company.relationships.users.kind: a many-to-many relationship cannot have the to-one inverse User.company"),
        (["entities"], [1], "schema: entities: expected an object, found array"),
    ]

    @Test(arguments: invalidSchemas)
    func errorsNameTheJSONPath(path: [String], value: JSONValue?, message: String) {
        do {
            _ = try Schema(json: Self.usersSchema(setting: path, to: value))
            Issue.record("expected an error for \(path)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func unknownTargetsAndInversesAreNamed() {
        var json = Self.usersSchema(setting: ["entities", "Note", "relationships", "user", "target"], to: "Person")
        #expect(throws: ImportError.invalidSchema(path: "entities.Note.relationships.user.target", message: #"unknown entity "Person""#)) {
            try Schema(json: json)
        }
        json = Self.usersSchema(setting: ["entities", "Note", "relationships", "user", "inverse"], to: "notez")
        #expect(throws: ImportError.invalidSchema(path: "entities.Note.relationships.user.inverse", message: #""User" has no relationship "notez""#)) {
            try Schema(json: json)
        }
    }

    @Test func inverseMustPointBack() {
        let json = Self.usersSchema(setting: ["entities", "Note", "relationships", "user", "inverse"], to: "company")
        #expect(throws: ImportError.self) { try Schema(json: json) }
    }

    @Test func defaultsApply() throws {
        let schema = try Schema(json: ["formatVersion": 1, "entities": ["Tag": [:]]])
        let tag = try #require(schema.entity(named: "Tag"))
        #expect(tag == Schema.Entity(name: try EntityName("Tag")))
        #expect(tag.primaryKey == "id" && tag.keys == .camel && tag.attributes.isEmpty)
    }
}
