/// Writes stored records back as remote JSON: the inverse of ``RecordConverter``.
///
/// Exportable attributes go under their remote keys (dotted key paths become nested objects),
/// missing ones as `null`; links become ids, inline objects or Rails nested attributes. A record
/// exported under its parent leaves out the relationship back to that parent, and a record is
/// never expanded inside itself, so cycles are cut.
struct Exporter {
    let store: Store
    let schema: Schema?
    let options: ExportOptions
    private var documents: [RecordKey: [String: JSONValue]] = [:]
    /// The children of derived to-manys, read once per entity and member.
    private let backLinks: BackLinkIndex

    /// The deepest chain of inline records written.
    static let maximumNesting = 32

    init(store: Store, schema: Schema?, options: ExportOptions) {
        self.store = store
        self.schema = schema
        self.options = options
        backLinks = BackLinkIndex(store: store)
    }

    // MARK: Reading

    /// A live record's document, read once.
    mutating func document(of key: RecordKey) throws(ImportError) -> [String: JSONValue]? {
        if let document = documents[key] { return document }
        let document: JSONValue?
        do { document = try store.get(entity: key.entity, id: key.id) } catch { throw .store(error) }
        guard let members = document?.objectValue else { return nil }
        documents[key] = members
        return members
    }

    /// Every live record of `entity`, remembered for later look-ups.
    mutating func records(of entity: EntityName) throws(ImportError) -> [(id: RecordID, document: [String: JSONValue])] {
        let records: [(id: RecordID, document: JSONValue)]
        do { records = try store.records(of: entity) } catch { throw .store(error) }
        return records.map { record in
            let members = record.document.objectValue ?? [:]
            documents[RecordKey(entity: entity, id: record.id)] = members
            return (record.id, members)
        }
    }

    /// The ids `document` links to through `relationship`: in stored order when ordered, else sorted.
    mutating func linkedIDs(
        of key: RecordKey, document: [String: JSONValue], relationship: Schema.Relationship, entity: Schema.Entity
    ) throws(ImportError) -> [RecordID] {
        guard let schema else { return [] }
        switch schema.linkStorage(of: relationship, in: entity) {
        case .id(let member):
            return document[member].flatMap(ImportBatch.linkID).map { [$0] } ?? []
        case .ids(let member):
            let ids = ImportBatch.linkIDs(document[member])
            return relationship.ordered ? ids : ids.sorted()
        case .inverse:
            guard let inverseName = relationship.inverse, let target = schema.entities[relationship.target],
                let inverse = target.relationship(named: inverseName),
                case .id(let backLink) = schema.linkStorage(of: inverse, in: target)
            else { return [] }
            return try backLinks.children(of: key.id, in: relationship.target, member: backLink)
        }
    }

    // MARK: Writing

    /// The remote form of one record.
    /// - Parameters:
    ///   - skipping: the relationship leading back to the parent this record is exported under.
    ///   - ancestors: the records being exported around this one, never expanded again.
    mutating func export(
        _ key: RecordKey, document: [String: JSONValue], skipping: String? = nil, ancestors: Set<RecordKey> = []
    ) throws(ImportError) -> JSONValue {
        guard let entity = schema?.entities[key.entity] else {
            var object: [String: JSONValue] = [:]
            for (member, value) in document {
                set(value, at: [undeclaredKey(member, entity: key.entity.rawValue, convention: .camel)], in: &object)
            }
            return .object(object)
        }
        var object: [String: JSONValue] = [:]
        var handled: Set<String> = [entity.primaryKey]
        set(document[entity.primaryKey] ?? .null, at: [options.keys == .asis ? entity.primaryKey : "id"], in: &object)
        for attribute in entity.attributes where attribute.name != entity.primaryKey {
            handled.insert(attribute.name)
            guard attribute.exportable else { continue }
            set(document[attribute.name] ?? .null, at: keyPath(of: attribute, in: entity), in: &object)
        }
        for relationship in entity.relationships {
            if case .id(let member) = schema?.linkStorage(of: relationship, in: entity) { handled.insert(member) }
            if case .ids(let member) = schema?.linkStorage(of: relationship, in: entity) { handled.insert(member) }
            guard relationship.exportable, relationship.name != skipping else { continue }
            let targets = try linkedIDs(of: key, document: document, relationship: relationship, entity: entity)
            try exportRelationship(relationship, of: key, in: entity, targets: targets, ancestors: ancestors, into: &object)
        }
        for (member, value) in document where !handled.contains(member) {
            set(value, at: [undeclaredKey(member, entity: entity.name.rawValue, convention: entity.keys)], in: &object)
        }
        return .object(object)
    }

    /// Writes one relationship of a record in the chosen style.
    mutating func exportRelationship(
        _ relationship: Schema.Relationship, of key: RecordKey, in entity: Schema.Entity, targets: [RecordID],
        ancestors: Set<RecordKey>, into object: inout [String: JSONValue]
    ) throws(ImportError) {
        let path = keyPath(of: relationship, in: entity)
        let parent = Array(path.dropLast())
        let last = path.last ?? relationship.name
        let isToOne = relationship.kind == .toOne
        switch options.relationships {
        case .none:
            let member: String
            switch options.keys {
            case .snake: member = last + (isToOne ? "_id" : "_ids")
            case .camel: member = last + (isToOne ? "ID" : "IDs")
            case .asis: member = relationship.name + (isToOne ? "ID" : "IDs")
            }
            let ids = targets.map { JSONValue.string($0.rawValue) }
            set(isToOne ? (ids.first ?? .null) : .array(ids), at: parent + [member], in: &object)
            return
        case .array, .nested:
            break
        }
        let inside = ancestors.union([key])
        guard inside.count < Self.maximumNesting else { return }
        var exported: [JSONValue] = []
        for target in targets {
            let targetKey = RecordKey(entity: relationship.target, id: target)
            // A record is never expanded inside itself: the link back is cut.
            guard !inside.contains(targetKey), let document = try document(of: targetKey) else { continue }
            exported.append(try export(targetKey, document: document, skipping: relationship.inverse, ancestors: inside))
        }
        if options.relationships == .array {
            set(isToOne ? (exported.first ?? .null) : .array(exported), at: path, in: &object)
            return
        }
        let member = options.keys == .camel ? last + "Attributes" : (options.keys == .asis ? relationship.name : last) + "_attributes"
        if isToOne {
            if let first = exported.first { set(first, at: parent + [member], in: &object) }
        } else {
            var byIndex: [String: JSONValue] = [:]
            for (index, value) in exported.enumerated() { byIndex[String(index)] = value }
            set(.object(byIndex), at: parent + [member], in: &object)
        }
    }

    /// Where an attribute goes in the remote JSON for the chosen key style.
    func keyPath(of attribute: Schema.Attribute, in entity: Schema.Entity) -> [String] {
        switch options.keys {
        case .asis: return [attribute.name]
        case .snake: return entity.remoteKeyPath(of: attribute)
        case .camel: return entity.remoteKeyPath(of: attribute).map(KeyConvention.camelCased)
        }
    }

    /// Where a relationship goes in the remote JSON for the chosen key style.
    func keyPath(of relationship: Schema.Relationship, in entity: Schema.Entity) -> [String] {
        switch options.keys {
        case .asis: return [relationship.name]
        case .snake: return entity.remoteKeyPath(of: relationship)
        case .camel: return entity.remoteKeyPath(of: relationship).map(KeyConvention.camelCased)
        }
    }

    /// The key of a member the schema does not declare.
    func undeclaredKey(_ member: String, entity: String, convention: KeyConvention) -> String {
        switch options.keys {
        case .asis: return member
        case .snake: return convention.remoteKey(forStorageKey: member, entity: entity)
        case .camel: return KeyConvention.camelCased(convention.remoteKey(forStorageKey: member, entity: entity))
        }
    }

    /// Sets `value` at a key path, making the objects on the way (`attributes.contact.email`).
    /// In the nested style a final `destroy` is written `_destroy`.
    func set(_ value: JSONValue, at path: [String], in object: inout [String: JSONValue]) {
        guard let first = path.first else { return }
        if path.count == 1 {
            object[options.relationships == .nested && first == "destroy" ? "_destroy" : first] = value
            return
        }
        var inner = object[first]?.objectValue ?? [:]
        set(value, at: Array(path.dropFirst()), in: &inner)
        object[first] = .object(inner)
    }
}
