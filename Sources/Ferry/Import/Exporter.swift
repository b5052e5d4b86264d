/// Writes stored records back as remote JSON: the inverse of ``RecordConverter``.
///
/// Exportable attributes go under their remote keys (dotted key paths become nested objects),
/// missing ones as `null`; links become ids, inline objects or Rails nested attributes.
///
/// Inline, every linked record is written in full once in the whole export, the first time it
/// is met; everywhere else it recurs (another item's link, a link back to a record being
/// written around it, past ``maximumNesting`` levels) it is a reference: an object that holds
/// only its primary key, which an import reads as "link, change nothing". Lists therefore stay
/// complete, which an import relies on (a list is the whole list), and a many-to-many graph
/// writes each record once rather than once per path to it. A record written under its parent
/// leaves out the relationship back to that parent, and, when the exported entity declares the
/// inverse, its relationships to the exported entity: the items carry those links themselves.
struct Exporter {
    let store: Store
    let schema: Schema?
    let options: ExportOptions
    /// The entity whose records are the items; its links are written from the items' side.
    let exportedEntity: EntityName
    /// The linked records already written in full: only their keys, not their documents.
    private var written: Set<RecordKey> = []
    /// The children of derived to-manys, read once per entity and member.
    private let backLinks: BackLinkIndex

    /// The deepest chain of inline records written; deeper ones are references.
    static let maximumNesting = 32

    init(store: Store, schema: Schema?, options: ExportOptions, exporting entity: EntityName) {
        self.store = store
        self.schema = schema
        self.options = options
        exportedEntity = entity
        backLinks = BackLinkIndex(store: store)
    }

    // MARK: Reading

    /// A live record's document; `nil` when there is none (a link to a deleted record).
    func document(of key: RecordKey) throws(ImportError) -> [String: JSONValue]? {
        let document: JSONValue?
        do { document = try store.get(entity: key.entity, id: key.id) } catch { throw .store(error) }
        return document?.objectValue
    }

    /// The ids `document` links to through `relationship`: in stored order when ordered, else sorted.
    func linkedIDs(
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
            // A record made by `put` or by hand may not hold its id: the export always does.
            if object["id"] == nil { object["id"] = .string(key.id.rawValue) }
            return .object(object)
        }
        var object: [String: JSONValue] = [:]
        var handled: Set<String> = [entity.primaryKey]
        set(primaryKeyValue(of: key, document: document), at: [primaryKeyMember(of: entity)], in: &object)
        for attribute in entity.attributes where attribute.name != entity.primaryKey {
            handled.insert(attribute.name)
            guard attribute.exportable else { continue }
            set(document[attribute.name] ?? .null, at: keyPath(of: attribute, in: entity), in: &object)
        }
        for relationship in entity.relationships {
            let storage = schema?.linkStorage(of: relationship, in: entity)
            var listMember: String?
            if case .id(let member) = storage { handled.insert(member) }
            if case .ids(let member) = storage {
                handled.insert(member)
                listMember = member
            }
            guard relationship.exportable, relationship.name != skipping else { continue }
            // Under an item, a link to the exported entity is written by the items themselves.
            if !ancestors.isEmpty, relationship.target == exportedEntity, relationship.inverse != nil { continue }
            let targets = try linkedIDs(of: key, document: document, relationship: relationship, entity: entity)
            // A list the record never held (made by `put` or by hand) is not written as `[]`,
            // which an import would store: it is left out, which an import reads as "keep".
            if let listMember, document[listMember] == nil, targets.isEmpty { continue }
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
        var exported: [JSONValue] = []
        for target in targets {
            let targetKey = RecordKey(entity: relationship.target, id: target)
            guard !written.contains(targetKey), !inside.contains(targetKey), inside.count < Self.maximumNesting else {
                if isLive(targetKey) { exported.append(reference(to: targetKey)) }
                continue
            }
            guard let document = try document(of: targetKey) else { continue }
            written.insert(targetKey)
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

    /// Whether `key` is a live record (a link may name one that was deleted).
    func isLive(_ key: RecordKey) -> Bool {
        store.index.records[key]?.isLive ?? false
    }

    /// A record written again where it recurs: only its primary key.
    func reference(to key: RecordKey) -> JSONValue {
        guard let entity = schema?.entities[key.entity] else { return .object(["id": .string(key.id.rawValue)]) }
        return .object([primaryKeyMember(of: entity): primaryKeyValue(of: key, document: nil)])
    }

    /// The member the primary key is written under: `id`, or its own name for `asis` keys.
    func primaryKeyMember(of entity: Schema.Entity) -> String {
        options.keys == .asis ? entity.primaryKey : "id"
    }

    /// A record's primary key as stored, or, for a record that does not hold it (made by
    /// `put` or by hand), its id in the primary key's type.
    func primaryKeyValue(of key: RecordKey, document: [String: JSONValue]?) -> JSONValue {
        let entity = schema?.entities[key.entity]
        if let stored = document?[entity?.primaryKey ?? "id"], !stored.isNull { return stored }
        if let entity, entity.attribute(named: entity.primaryKey)?.type == .integer,
            let integer = Int64(key.id.rawValue), String(integer) == key.id.rawValue
        {
            return .integer(integer)
        }
        return .string(key.id.rawValue)
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
