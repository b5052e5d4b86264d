/// The optional `schema.json` of a store: how each entity's remote JSON maps to stored records.
///
/// Without a schema, import stores items as they come (keys converted to camelCase, values
/// untouched). A schema adds, per entity, the primary key, the key convention, typed attributes
/// with remote key paths, and relationships. The file format is documented in `docs/IMPORT.md`.
///
/// ```swift
/// let schema = try Schema(json: [
///     "formatVersion": 1,
///     "entities": ["User": ["attributes": ["id": ["type": "integer"], "createdAt": ["type": "date"]]]],
/// ])
/// schema.entity(named: "User")?.attribute(named: "createdAt")?.type // .date
/// ```
public struct Schema: Sendable, Equatable {
    /// The `formatVersion` this code reads and writes.
    public static let currentFormatVersion: Int64 = 1

    /// The entities, by name.
    public var entities: [EntityName: Entity]

    /// Makes a schema from entities already built (not validated: use ``init(json:)`` for files).
    public init(entities: [EntityName: Entity]) {
        self.entities = entities
    }

    /// The entity called `name`, if the schema declares it.
    public func entity(named name: String) -> Entity? {
        guard let entityName = try? EntityName(name) else { return nil }
        return entities[entityName]
    }
}

extension Schema {
    /// One entity: its primary key, key convention, attributes and relationships.
    public struct Entity: Sendable, Equatable {
        /// The entity's name, such as `User`.
        public var name: EntityName
        /// The storage key holding the record's id; `"id"` unless the file says otherwise.
        public var primaryKey: String
        /// How remote keys become storage keys; ``KeyConvention/camel`` by default.
        public var keys: KeyConvention
        /// The declared attributes, sorted by name.
        public var attributes: [Attribute]
        /// The declared relationships, sorted by name.
        public var relationships: [Relationship]

        /// Makes an entity; attributes and relationships are sorted by name.
        public init(
            name: EntityName, primaryKey: String = "id", keys: KeyConvention = .camel,
            attributes: [Attribute] = [], relationships: [Relationship] = []
        ) {
            self.name = name
            self.primaryKey = primaryKey
            self.keys = keys
            self.attributes = attributes.sorted { $0.name < $1.name }
            self.relationships = relationships.sorted { $0.name < $1.name }
        }

        /// The attribute stored under `name`, if declared.
        public func attribute(named name: String) -> Attribute? {
            attributes.first { $0.name == name }
        }

        /// The relationship called `name`, if declared.
        public func relationship(named name: String) -> Relationship? {
            relationships.first { $0.name == name }
        }

        /// The remote key path of an attribute: its declared ``Attribute/remoteKey``, or the
        /// storage name converted back by ``keys`` (`firstName` → `first_name`).
        public func remoteKeyPath(of attribute: Attribute) -> [String] {
            if let remoteKey = attribute.remoteKey { return Schema.keyPath(remoteKey) }
            return [keys.remoteKey(forStorageKey: attribute.name, entity: name.rawValue)]
        }

        /// The remote key path of a relationship, as for attributes (`notes`, `company`).
        public func remoteKeyPath(of relationship: Relationship) -> [String] {
            if let remoteKey = relationship.remoteKey { return Schema.keyPath(remoteKey) }
            return [keys.remoteKey(forStorageKey: relationship.name, entity: name.rawValue)]
        }
    }

    /// A typed attribute, named by its storage key.
    public struct Attribute: Sendable, Equatable {
        /// The storage key (`firstName`).
        public var name: String
        /// The declared type; values are coerced to it on import.
        public var type: AttributeType
        /// Where the value is in the remote JSON, when not derived from ``name``: a key, or a
        /// dotted path into nested objects (`attributes.contact.email`).
        public var remoteKey: String?
        /// Whether export writes the attribute; `true` by default.
        public var exportable: Bool

        /// Makes an attribute; by default its remote key is derived and it is exported.
        public init(name: String, type: AttributeType, remoteKey: String? = nil, exportable: Bool = true) {
            self.name = name
            self.type = type
            self.remoteKey = remoteKey
            self.exportable = exportable
        }
    }

    /// The types an attribute can declare. See ``AttributeCoercion`` for what each accepts.
    public enum AttributeType: String, Sendable, Hashable, CaseIterable {
        case string, integer, decimal, double, bool, date, uuid, url, json
    }

    /// A link from records of one entity to records of another.
    public struct Relationship: Sendable, Equatable {
        /// The relationship's name (`company`, `notes`).
        public var name: String
        /// One target or many, and whether the inverse is also many.
        public var kind: RelationshipKind
        /// The entity linked to.
        public var target: EntityName
        /// The relationship on ``target`` that points back, if any.
        public var inverse: String?
        /// What deleting a record does to the records it links to.
        public var deleteRule: DeleteRule
        /// Whether the order of a to-many relationship is kept (the remote array's order).
        public var ordered: Bool
        /// Where the nested object(s) or id(s) are in the remote JSON, when not derived from ``name``.
        public var remoteKey: String?
        /// Whether export writes the relationship; `true` by default.
        public var exportable: Bool

        /// Makes a relationship; `nullify`, unordered, derived remote key and exported by default.
        public init(
            name: String, kind: RelationshipKind, target: EntityName, inverse: String? = nil,
            deleteRule: DeleteRule = .nullify, ordered: Bool = false, remoteKey: String? = nil, exportable: Bool = true
        ) {
            self.name = name
            self.kind = kind
            self.target = target
            self.inverse = inverse
            self.deleteRule = deleteRule
            self.ordered = ordered
            self.remoteKey = remoteKey
            self.exportable = exportable
        }
    }

    /// How many records each side of a relationship links to.
    public enum RelationshipKind: String, Sendable, Hashable, CaseIterable {
        case toOne = "to-one"
        case toMany = "to-many"
        case manyToMany = "many-to-many"
    }

    /// What deleting the source record does to its targets.
    public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
        /// The targets are deleted too.
        case cascade
        /// The targets stay; their links back are removed.
        case nullify
        /// The delete is refused while targets exist.
        case deny
    }

    /// Where a relationship's links are written in records (see `docs/IMPORT.md`).
    public enum LinkStorage: Sendable, Equatable {
        /// The source record holds the target's id under `key` (`"companyID": "7"`).
        case id(key: String)
        /// The source record holds the targets' ids under `key`, in order when ordered,
        /// otherwise sorted (`"notesIDs": ["1", "2"]`).
        case ids(key: String)
        /// Nothing is written on this side: the links are the inverse to-one's ids on the targets.
        case inverse
    }

    /// Splits a dotted remote key path: `"attributes.contact.email"` → `["attributes", "contact", "email"]`.
    static func keyPath(_ text: String) -> [String] {
        text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }
}

extension Schema {
    /// Where the links of `relationship`, declared on `entity`, are stored.
    ///
    /// - A to-one is stored on its side as `<name>ID`.
    /// - A to-many whose inverse is a to-one is derived from the inverse (nothing stored), unless it
    ///   is ordered: the order exists only on this side, so it is stored as `<name>IDs` too.
    /// - Any other to-many (no inverse) and every many-to-many is stored as `<name>IDs`.
    public func linkStorage(of relationship: Relationship, in entity: Entity) -> LinkStorage {
        switch relationship.kind {
        case .toOne:
            return .id(key: relationship.name + "ID")
        case .manyToMany:
            return .ids(key: relationship.name + "IDs")
        case .toMany:
            if !relationship.ordered, let inverseName = relationship.inverse,
                let inverse = entities[relationship.target]?.relationship(named: inverseName), inverse.kind == .toOne
            {
                return .inverse
            }
            return .ids(key: relationship.name + "IDs")
        }
    }
}
