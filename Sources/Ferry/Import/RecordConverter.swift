/// Turns the items of a remote JSON array into storage form: keys by the entity's convention,
/// values coerced to their declared types, nested objects split off into records of their own
/// and replaced by links (see `docs/IMPORT.md`).
///
/// The converter never reads the store: whether a record is new, changed or gone, and what a
/// link change does to the other side, is decided later against the store.
///
/// ```swift
/// let conversion = try RecordConverter.convert(items, entity: EntityName("User"), schema: schema, keys: nil)
/// conversion.items.map(\.id)            // the users' ids
/// conversion.nested.keys                // Company/6, Note/1, …: once each, however often nested
/// ```
struct RecordConverter {
    /// What converting one object gave: its id (or why it has none) and its storage members.
    struct ConvertedObject {
        var id: RecordID?
        var skipReason: String?
        var members: [String: JSONValue]
    }

    let schema: Schema?
    let keys: KeyConvention?
    var conversion: ImportConversion
    private var mappings: [EntityName: EntityMapping] = [:]

    init(entity: EntityName, schema: Schema?, keys: KeyConvention?) {
        self.schema = schema
        self.keys = keys
        conversion = ImportConversion(entity: entity)
    }

    /// Converts `items`, all of `entity`.
    /// - Throws: ``ImportError/itemNotAnObject(index:kind:)``, ``ImportError/duplicateItemID(_:firstIndex:secondIndex:)``,
    ///   ``ImportError/invalidItemID(index:reason:)``, and ``ImportError/item(index:keyPath:_:)``
    ///   naming the index and key path of a value that cannot be converted.
    static func convert(
        _ items: [JSONValue], entity: EntityName, schema: Schema?, keys: KeyConvention?
    ) throws(ImportError) -> ImportConversion {
        var converter = RecordConverter(entity: entity, schema: schema, keys: keys)
        var seen: [RecordID: Int] = [:]
        seen.reserveCapacity(items.count)
        converter.conversion.items.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .object(let members) = item else { throw .itemNotAnObject(index: index, kind: item.kindName) }
            let origin = ImportOrigin(index: index, keyPath: "")
            let object = try converter.convertObject(members, entity: entity, origin: origin, isTopLevel: true)
            guard let id = object.id else {
                converter.conversion.skipped.append(.init(index: index, keyPath: "", reason: object.skipReason ?? "no id"))
                continue
            }
            if let first = seen.updateValue(index, forKey: id) {
                throw .duplicateItemID(id.rawValue, firstIndex: first, secondIndex: index)
            }
            converter.conversion.items.append(.init(index: index, id: id, members: object.members))
        }
        return converter.conversion
    }

    /// The mapping of `entity`, worked out on first use.
    mutating func mapping(of entity: EntityName) throws(ImportError) -> EntityMapping {
        if let mapping = mappings[entity] { return mapping }
        let mapping = try EntityMapping(entity: entity, schema: schema, keys: keys)
        mappings[entity] = mapping
        return mapping
    }

    /// Converts one object of `entity`; nested objects become records of ``conversion`` and
    /// links become ``ImportConversion/LinkSet``s. An object without a usable id is returned
    /// without an id, and nothing nested in it is kept.
    mutating func convertObject(
        _ members: [String: JSONValue], entity: EntityName, origin: ImportOrigin, isTopLevel: Bool
    ) throws(ImportError) -> ConvertedObject {
        let mapping = try mapping(of: entity)
        guard let found = EntityMapping.firstValue(at: mapping.primaryKeyPaths, in: members) else {
            return ConvertedObject(id: nil, skipReason: "no id", members: [:])
        }
        var keyValue = found.value
        if let attribute = mapping.primaryKeyAttribute {
            do { keyValue = try AttributeCoercion.coerce(keyValue, to: attribute.type) } catch {
                throw origin.appending(found.keyPath).error(error)
            }
        }
        let id: RecordID
        do {
            guard let recordID = try ImportDiffPlan.recordID(keyValue, index: origin.index) else {
                return ConvertedObject(id: nil, skipReason: "null id", members: [:])
            }
            id = recordID
        } catch {
            guard !isTopLevel, case .invalidItemID(_, let reason) = error else { throw error }
            throw origin.appending(found.keyPath).error(.invalidLink(reason: "invalid id: \(reason)"))
        }

        guard mapping.declared != nil else {
            if mapping.convention == .asis, members[mapping.primaryKey] == keyValue {
                return ConvertedObject(id: id, skipReason: nil, members: members)  // stored as it came
            }
            var stored: [String: JSONValue] = [:]
            stored.reserveCapacity(members.count)
            for (key, value) in members {
                stored[mapping.convention.storageKey(forRemoteKey: key, entity: entity.rawValue)] = value
            }
            stored[mapping.primaryKey] = keyValue
            return ConvertedObject(id: id, skipReason: nil, members: stored)
        }

        var stored: [String: JSONValue] = [mapping.primaryKey: keyValue]
        for lookup in mapping.attributes {
            guard let (value, keyPath) = EntityMapping.firstValue(at: lookup.paths, in: members) else { continue }
            do { stored[lookup.attribute.name] = try AttributeCoercion.coerce(value, to: lookup.attribute.type) } catch {
                throw origin.appending(keyPath).error(error)
            }
        }
        let source = RecordKey(entity: entity, id: id)
        for lookup in mapping.relationships {
            try convertRelationship(lookup, of: source, mapping: mapping, members: members, origin: origin, into: &stored)
        }
        return ConvertedObject(id: id, skipReason: nil, members: stored)
    }

    /// Adds a record met as a nested object, merging repeated occurrences (later values win).
    mutating func addNested(_ key: RecordKey, members: [String: JSONValue], origin: ImportOrigin) {
        if var existing = conversion.nested[key] {
            existing.members.merge(members) { _, new in new }
            existing.indexes.insert(origin.index)
            conversion.nested[key] = existing
        } else {
            conversion.nested[key] = .init(key: key, members: members, origin: origin, indexes: [origin.index])
            conversion.nestedOrder.append(key)
        }
    }
}
