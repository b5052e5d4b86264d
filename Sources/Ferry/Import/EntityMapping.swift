/// How one entity's remote keys map to storage keys, worked out once per import from the schema
/// (or from the key convention alone for an entity the schema does not declare).
struct EntityMapping: Sendable {
    /// A declared attribute and the remote key paths it is read from, best first.
    struct AttributeLookup: Sendable {
        var attribute: Schema.Attribute
        var paths: [[String]]
    }

    /// A declared relationship and where its nested objects or ids are read from.
    struct RelationshipLookup: Sendable {
        var relationship: Schema.Relationship
        var storage: Schema.LinkStorage
        /// Paths holding nested objects (or ids): `company`, `company_attributes`.
        var nestedPaths: [[String]]
        /// Paths holding ids only: `company_id`, `companyID`.
        var linkPaths: [[String]]
    }

    var name: EntityName
    /// The schema's entity; `nil` when undeclared (every key is stored, values as they are).
    var declared: Schema.Entity?
    var convention: KeyConvention
    /// The storage key of the record id.
    var primaryKey: String
    /// The primary key's declared attribute, if any (its type coerces the id).
    var primaryKeyAttribute: Schema.Attribute?
    /// Where the id is read from, best first.
    var primaryKeyPaths: [[String]]
    var attributes: [AttributeLookup]
    var relationships: [RelationshipLookup]

    /// Works out the mapping of `name`.
    /// - Throws: ``ImportError/unusableKey(entity:reason:)`` when the primary key names a
    ///   relationship or an attribute whose type cannot be an id.
    init(entity name: EntityName, schema: Schema?, keys: KeyConvention?) throws(ImportError) {
        self.name = name
        let declared = schema?.entities[name]
        self.declared = declared
        convention = keys ?? declared?.keys ?? .asis
        guard let declared, let schema else {
            primaryKey = "id"
            primaryKeyAttribute = nil
            primaryKeyPaths = [["id"]]
            attributes = []
            relationships = []
            return
        }
        let primaryKey = declared.primaryKey
        self.primaryKey = primaryKey
        if declared.relationship(named: primaryKey) != nil {
            throw .unusableKey(entity: name.rawValue, reason: "its primary key \(quoted(primaryKey)) is a relationship")
        }
        let keyAttribute = declared.attribute(named: primaryKey)
        if let keyAttribute, ![.string, .integer, .uuid].contains(keyAttribute.type) {
            throw .unusableKey(
                entity: name.rawValue,
                reason: "its primary key \(quoted(primaryKey)) is a \(keyAttribute.type.rawValue); use a string, integer or uuid")
        }
        primaryKeyAttribute = keyAttribute
        let convention = keys ?? declared.keys
        let entityName = name
        func remotePath(_ attribute: Schema.Attribute) -> [String] {
            if let remoteKey = attribute.remoteKey { return Schema.keyPath(remoteKey) }
            return [convention.remoteKey(forStorageKey: attribute.name, entity: entityName.rawValue)]
        }
        let readsID = declared.attributes.contains { $0.name != primaryKey && remotePath($0) == ["id"] }
        var keyPaths: [[String]] = []
        let remoteKey = keyAttribute.map(remotePath) ?? [convention.remoteKey(forStorageKey: primaryKey, entity: name.rawValue)]
        for path in [remoteKey, [primaryKey]] + (readsID ? [] : [["id"]]) where !keyPaths.contains(path) {
            keyPaths.append(path)
        }
        primaryKeyPaths = keyPaths

        attributes = declared.attributes.filter { $0.name != primaryKey }.map { attribute in
            var paths = [remotePath(attribute)]
            if paths[0] != [attribute.name] { paths.append([attribute.name]) }
            if paths[0] == ["destroy"] { paths.append(["_destroy"]) }  // the nested-attributes spelling
            let capitalizedName = KeyConvention.capitalized(attribute.name)
            if attribute.remoteKey == nil, !paths.contains([capitalizedName]) { paths.append([capitalizedName]) }
            return AttributeLookup(attribute: attribute, paths: paths)
        }
        relationships = declared.relationships.map { relationship in
            let path: [String] =
                relationship.remoteKey.map(Schema.keyPath)
                ?? [convention.remoteKey(forStorageKey: relationship.name, entity: name.rawValue)]
            let parent = Array(path.dropLast())
            let last = path.last ?? relationship.name
            var nested = [path, parent + [last + "_attributes"], [relationship.name + "Attributes"]]
            if path != [relationship.name] { nested.insert([relationship.name], at: 1) }
            // `GreenWallet` for `greenWallet`, as APIs that capitalize keys send it.
            let capitalizedName = KeyConvention.capitalized(relationship.name)
            if relationship.remoteKey == nil, !nested.contains([capitalizedName]) { nested.append([capitalizedName]) }
            let suffix = relationship.kind == .toOne ? "ID" : "IDs"
            var links: [[String]] = []
            for candidate in [parent + [last + "_" + suffix.lowercased()], parent + [last + suffix], [relationship.name + suffix]]
            where !links.contains(candidate) {
                links.append(candidate)
            }
            return RelationshipLookup(
                relationship: relationship, storage: schema.linkStorage(of: relationship, in: declared),
                nestedPaths: nested, linkPaths: links)
        }
    }

    /// The value at `path` in `members`, walking nested objects; `nil` when a step is missing.
    static func value(at path: [String], in members: [String: JSONValue]) -> JSONValue? {
        guard let first = path.first, var current = members[first] else { return nil }
        for key in path.dropFirst() {
            guard case .object(let inner) = current, let next = inner[key] else { return nil }
            current = next
        }
        return current
    }

    /// The first of `paths` present in `members`, with its value and its dotted text.
    static func firstValue(at paths: [[String]], in members: [String: JSONValue]) -> (value: JSONValue, keyPath: String)? {
        for path in paths {
            if let value = value(at: path, in: members) { return (value, path.joined(separator: ".")) }
        }
        return nil
    }
}
