extension Schema {
    /// Reads a schema from the JSON of a `schema.json` file and validates it.
    ///
    /// ```swift
    /// let schema = try Schema(json: JSONParser.parse(bytes))
    /// ```
    /// - Throws: ``ImportError/invalidSchema(path:message:)`` naming the JSON path of the first
    ///   problem, such as `entities.User.attributes.age.type: unknown type "int"`. Unknown keys
    ///   are errors too, so that a misspelt `remotekey` is not silently ignored.
    public init(json: JSONValue) throws(ImportError) {
        let root = try SchemaObject(json, path: "")
        try root.allowOnly(["formatVersion", "entities"])
        let version = try root.required("formatVersion")
        guard case .integer(let number) = version else {
            throw .invalidSchema(path: "formatVersion", message: "expected an integer, found \(version.kindName)")
        }
        guard number == Self.currentFormatVersion else {
            throw .invalidSchema(
                path: "formatVersion",
                message: "version \(number) is not supported; this Ferry reads version \(Self.currentFormatVersion)")
        }
        let entitiesObject = try SchemaObject(try root.required("entities"), path: "entities")
        var entities: [EntityName: Entity] = [:]
        for (name, value) in entitiesObject.sortedMembers {
            let path = "entities.\(name)"
            let entityName: EntityName
            do {
                entityName = try EntityName(name)
            } catch {
                throw .invalidSchema(path: path, message: error.description)
            }
            entities[entityName] = try Self.parseEntity(value, name: entityName, path: path)
        }
        self.init(entities: entities)
        try validate()
    }

    static func parseEntity(_ value: JSONValue, name: EntityName, path: String) throws(ImportError) -> Entity {
        let object = try SchemaObject(value, path: path)
        try object.allowOnly(["primaryKey", "keys", "attributes", "relationships"])
        let primaryKey = try object.string("primaryKey") ?? "id"
        var keys = KeyConvention.camel
        if let text = try object.string("keys") {
            guard let convention = KeyConvention(rawValue: text) else {
                throw .invalidSchema(path: path + ".keys", message: "unknown key convention \(quoted(text)); use \"camel\" or \"asis\"")
            }
            keys = convention
        }
        var attributes: [Attribute] = []
        if let value = object.members["attributes"] {
            let attributesObject = try SchemaObject(value, path: path + ".attributes")
            for (attributeName, attributeValue) in attributesObject.sortedMembers {
                attributes.append(try parseAttribute(attributeValue, name: attributeName, path: path + ".attributes." + attributeName))
            }
        }
        var relationships: [Relationship] = []
        if let value = object.members["relationships"] {
            let relationshipsObject = try SchemaObject(value, path: path + ".relationships")
            for (relationshipName, relationshipValue) in relationshipsObject.sortedMembers {
                relationships.append(
                    try parseRelationship(relationshipValue, name: relationshipName, path: path + ".relationships." + relationshipName))
            }
        }
        return Entity(name: name, primaryKey: primaryKey, keys: keys, attributes: attributes, relationships: relationships)
    }

    static func parseAttribute(_ value: JSONValue, name: String, path: String) throws(ImportError) -> Attribute {
        guard !name.isEmpty else { throw .invalidSchema(path: path, message: "an attribute name cannot be empty") }
        let object = try SchemaObject(value, path: path)
        try object.allowOnly(["type", "remoteKey", "exportable"])
        guard let typeName = try object.string("type") else {
            throw .invalidSchema(path: path + ".type", message: "missing; every attribute declares a type")
        }
        guard let type = AttributeType(rawValue: typeName) else {
            let known = AttributeType.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidSchema(path: path + ".type", message: "unknown type \(quoted(typeName)); the types are \(known)")
        }
        return Attribute(
            name: name, type: type, remoteKey: try object.keyPath("remoteKey"),
            exportable: try object.bool("exportable") ?? true)
    }

    static func parseRelationship(_ value: JSONValue, name: String, path: String) throws(ImportError) -> Relationship {
        guard !name.isEmpty else { throw .invalidSchema(path: path, message: "a relationship name cannot be empty") }
        let object = try SchemaObject(value, path: path)
        try object.allowOnly(["kind", "target", "inverse", "deleteRule", "ordered", "remoteKey", "exportable"])
        guard let kindName = try object.string("kind") else {
            throw .invalidSchema(path: path + ".kind", message: "missing; use \"to-one\", \"to-many\" or \"many-to-many\"")
        }
        guard let kind = RelationshipKind(rawValue: kindName) else {
            throw .invalidSchema(
                path: path + ".kind", message: "unknown kind \(quoted(kindName)); use \"to-one\", \"to-many\" or \"many-to-many\"")
        }
        guard let targetName = try object.string("target") else {
            throw .invalidSchema(path: path + ".target", message: "missing; name the entity linked to")
        }
        let target: EntityName
        do {
            target = try EntityName(targetName)
        } catch {
            throw .invalidSchema(path: path + ".target", message: error.description)
        }
        var deleteRule = DeleteRule.nullify
        if let ruleName = try object.string("deleteRule") {
            guard let rule = DeleteRule(rawValue: ruleName) else {
                throw .invalidSchema(
                    path: path + ".deleteRule", message: "unknown delete rule \(quoted(ruleName)); use \"cascade\", \"nullify\" or \"deny\"")
            }
            deleteRule = rule
        }
        return Relationship(
            name: name, kind: kind, target: target, inverse: try object.string("inverse"), deleteRule: deleteRule,
            ordered: try object.bool("ordered") ?? false, remoteKey: try object.keyPath("remoteKey"),
            exportable: try object.bool("exportable") ?? true)
    }
}

/// A JSON object of `schema.json` with its path, for typed reads that name the path on error.
struct SchemaObject {
    let members: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, path: String) throws(ImportError) {
        guard case .object(let members) = value else {
            throw .invalidSchema(path: path, message: "expected an object, found \(value.kindName)")
        }
        self.members = members
        self.path = path
    }

    var sortedMembers: [(key: String, value: JSONValue)] {
        members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    func childPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func allowOnly(_ allowed: Set<String>) throws(ImportError) {
        for (key, _) in sortedMembers where !allowed.contains(key) {
            let expected = allowed.sorted().joined(separator: ", ")
            throw .invalidSchema(path: childPath(key), message: "unknown key; expected one of \(expected)")
        }
    }

    func required(_ key: String) throws(ImportError) -> JSONValue {
        guard let value = members[key] else { throw .invalidSchema(path: childPath(key), message: "missing") }
        return value
    }

    /// A non-empty string member, or `nil` when absent.
    func string(_ key: String) throws(ImportError) -> String? {
        guard let value = members[key] else { return nil }
        guard case .string(let text) = value else {
            throw .invalidSchema(path: childPath(key), message: "expected a string, found \(value.kindName)")
        }
        guard !text.isEmpty else { throw .invalidSchema(path: childPath(key), message: "cannot be empty") }
        return text
    }

    func bool(_ key: String) throws(ImportError) -> Bool? {
        guard let value = members[key] else { return nil }
        guard case .bool(let flag) = value else {
            throw .invalidSchema(path: childPath(key), message: "expected true or false, found \(value.kindName)")
        }
        return flag
    }

    /// A dotted key path such as `attributes.contact.email`; no empty component.
    func keyPath(_ key: String) throws(ImportError) -> String? {
        guard let text = try string(key) else { return nil }
        guard !Schema.keyPath(text).contains(where: \.isEmpty) else {
            throw .invalidSchema(path: childPath(key), message: "\(quoted(text)) has an empty component")
        }
        return text
    }
}
