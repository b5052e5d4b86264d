/// Which backend collection each Ferry entity syncs with, and which members of its records are
/// stored under other field names there. By default an entity syncs with the collection of
/// the same name and every top-level member is the field of the same name; a mapping file
/// (JSON) says otherwise:
///
/// ```json
/// {
///   "Product": { "collection": "products", "fields": { "name": "title", "priceCents": "price_cents" } },
///   "Note": "notes",
///   "Tag": {}
/// }
/// ```
///
/// Each key is an entity; its value is the collection's name, or an object with `collection`
/// (default: the entity's name) and `fields` (document member → field). Names of collections
/// and fields are letters, digits and `_`; no two entities share a collection and no two
/// members share a field. A renamed member's field name cannot be another member's own name
/// (a record holding both could not be written), which a push reports for the record.
public struct BackendMapping: Sendable, Equatable {
    /// One entity's collection and renamed fields.
    public struct Entry: Sendable, Equatable {
        public let entity: EntityName
        public let collection: String
        /// Document member → backend field, for the members whose names differ.
        public let fields: [String: String]

        public init(entity: EntityName, collection: String? = nil, fields: [String: String] = [:]) {
            self.entity = entity
            self.collection = collection ?? entity.rawValue
            self.fields = fields
            self.members = Dictionary(fields.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        }

        /// Backend field → document member, for the renamed ones.
        private let members: [String: String]

        /// The backend field that holds `member`.
        public func field(forMember member: String) -> String { fields[member] ?? member }

        /// The document member a backend field holds; `nil` for a field that stands for no
        /// member (it carries the name of a member stored under another name).
        public func member(forField field: String) -> String? {
            if let member = members[field] { return member }
            return fields[field] == nil ? field : nil
        }

        /// A document's members renamed to the backend's fields.
        public func fields(of document: [String: JSONValue], record: String) throws(BackendError) -> [String: JSONValue] {
            guard !fields.isEmpty else { return document }
            var result: [String: JSONValue] = [:]
            result.reserveCapacity(document.count)
            for (member, value) in document {
                let field = field(forMember: member)
                if fields[member] == nil, members[field] != nil {
                    throw BackendError(.invalid,
                        "\(record): the member \(quoted(member)) has the name its mapping gives to the member \(quoted(members[field] ?? "")); "
                            + "map \(quoted(member)) to another field in the mapping file")
                }
                result[field] = value
            }
            return result
        }

        /// The kinds of the members of some records, by the fields that hold them.
        public func fieldKinds(_ memberKinds: [String: PocketBaseFieldKind]) throws(BackendError) -> [String: PocketBaseFieldKind] {
            // Refuses a member named like the field another member is renamed to.
            _ = try fields(of: memberKinds.mapValues { _ in JSONValue.null }, record: entity.rawValue + " records")
            var kinds: [String: PocketBaseFieldKind] = [:]
            for (member, kind) in memberKinds { kinds[field(forMember: member)] = kind }
            return kinds
        }

        /// A backend record's fields renamed to a document's members (fields that stand for
        /// no member are left out).
        public func document(of fields: [String: JSONValue]) -> [String: JSONValue] {
            guard !self.fields.isEmpty else { return fields }
            var result: [String: JSONValue] = [:]
            result.reserveCapacity(fields.count)
            for (field, value) in fields {
                if let member = member(forField: field) { result[member] = value }
            }
            return result
        }
    }

    /// The entities, in the order given.
    public private(set) var entries: [Entry]

    /// Each entity with the collection of the same name, every field under its own name.
    public init(entities: [EntityName]) {
        entries = entities.map { Entry(entity: $0) }
    }

    /// Checks the entries (see the type's rules).
    public init(entries: [Entry]) throws(BackendError) {
        var collections: [String: EntityName] = [:]
        var entities = Set<EntityName>()
        for entry in entries {
            guard entities.insert(entry.entity).inserted else { throw Self.invalid("\(entry.entity.rawValue) is mapped twice") }
            guard Self.isValidName(entry.collection) else {
                throw Self.invalid("\(entry.entity.rawValue): \(quoted(entry.collection)) is not a collection name (letters, digits and _)")
            }
            if let other = collections[entry.collection] {
                throw Self.invalid("\(other.rawValue) and \(entry.entity.rawValue) both map to the collection \(entry.collection)")
            }
            collections[entry.collection] = entry.entity
            var targets: [String: String] = [:]
            for (member, field) in entry.fields.sorted(by: { $0.key < $1.key }) {
                guard Self.isValidName(field) else {
                    throw Self.invalid("\(entry.entity.rawValue).\(member): \(quoted(field)) is not a field name (letters, digits and _)")
                }
                guard !field.hasPrefix("ferry_"), !Self.systemFields.contains(field) else {
                    throw Self.invalid("\(entry.entity.rawValue).\(member): the field \(field) is the backend's or Ferry's own")
                }
                if let other = targets[field] {
                    throw Self.invalid("\(entry.entity.rawValue): the members \(quoted(other)) and \(quoted(member)) both map to the field \(field)")
                }
                targets[field] = member
            }
        }
        self.entries = entries
    }

    /// Reads a mapping file's content.
    public init(parsing bytes: [UInt8]) throws(BackendError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, options: JSONParser.Options(maximumDepth: 8, maximumByteCount: 1 << 20))
        } catch {
            throw Self.invalid("not JSON: \(error)")
        }
        guard let ordered = value.objectValue else {
            throw Self.invalid("the mapping is a JSON object with an entry per entity")
        }
        var entries: [Entry] = []
        for (key, description) in ordered.sorted(by: { $0.key < $1.key }) {
            let entity: EntityName
            do { entity = try EntityName(key) } catch { throw Self.invalid("\(quoted(key)): \(error)") }
            switch description {
            case .string(let collection):
                entries.append(Entry(entity: entity, collection: collection))
            case .object(let members):
                for name in members.keys where name != "collection" && name != "fields" {
                    throw Self.invalid("\(key): unknown member \(quoted(name)) (collection, fields)")
                }
                var collection: String?
                if let given = members["collection"] {
                    guard let text = given.stringValue else { throw Self.invalid("\(key).collection: a string") }
                    collection = text
                }
                var fields: [String: String] = [:]
                if let given = members["fields"] {
                    guard let pairs = given.objectValue else { throw Self.invalid("\(key).fields: an object of member → field name") }
                    for (member, field) in pairs {
                        guard let name = field.stringValue else { throw Self.invalid("\(key).fields.\(member): a field name (a string)") }
                        if name != member { fields[member] = name }
                    }
                }
                entries.append(Entry(entity: entity, collection: collection, fields: fields))
            default:
                throw Self.invalid("\(key): a collection name or an object with collection and fields")
            }
        }
        guard !entries.isEmpty else { throw Self.invalid("no entities") }
        try self.init(entries: entries)
    }

    /// Reads a mapping file.
    public static func load(from path: String) throws(BackendError) -> BackendMapping {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path, limit: 1 << 20) } catch { throw BackendError(.invalid, "\(path): \(error)") }
        do {
            return try BackendMapping(parsing: bytes)
        } catch {
            throw BackendError(.invalid, "\(path): \(error.message)")
        }
    }

    /// The entities mapped.
    public var entities: [EntityName] { entries.map(\.entity) }

    /// The mapping in the form of a mapping file, which ``init(parsing:)`` reads back.
    public var jsonValue: JSONValue {
        var object: [String: JSONValue] = [:]
        for entry in entries {
            var description: [String: JSONValue] = ["collection": .string(entry.collection)]
            if !entry.fields.isEmpty { description["fields"] = .object(entry.fields.mapValues { .string($0) }) }
            object[entry.entity.rawValue] = .object(description)
        }
        return .object(object)
    }

    /// The entry of `entity` (the same names when the mapping does not list it).
    public func entry(for entity: EntityName) -> Entry {
        entries.first { $0.entity == entity } ?? Entry(entity: entity)
    }

    /// This mapping narrowed to `entities` (those it does not list keep their own names).
    public func restricted(to entities: [EntityName]) throws(BackendError) -> BackendMapping {
        try BackendMapping(entries: entities.map { entry(for: $0) })
    }

    /// Fields of the backend's own, which no member may be mapped to (PocketBase's, the one
    /// backend there is; Ferry's own start with `ferry_`).
    static var systemFields: Set<String> { PocketBaseBackend.systemFields }

    /// Whether `name` can name a collection or a field (as PocketBase allows: letters, digits, `_`).
    static func isValidName(_ name: String) -> Bool { PocketBaseSetup.isValidFieldName(name) }

    private static func invalid(_ message: String) -> BackendError {
        BackendError(.invalid, "mapping: \(message)")
    }
}
