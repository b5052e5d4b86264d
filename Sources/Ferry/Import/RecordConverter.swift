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

    /// Converts `items`, all of `entity`. A large input is converted on every core, in runs of
    /// items merged in input order, so the result and the first error are the single pass's.
    /// - Parameters:
    ///   - firstIndex: the input position of `items[0]` (a streamed import converts a batch at a time).
    ///   - noteID: called with each item's id and position in input order, before a later
    ///     problem is thrown: it throws for an id seen before. By default the ids of `items`
    ///     are compared with each other.
    /// - Throws: ``ImportError/itemNotAnObject(index:kind:)``, ``ImportError/duplicateItemID(_:firstIndex:secondIndex:)``,
    ///   ``ImportError/invalidItemID(index:reason:)``, and ``ImportError/item(index:keyPath:_:)``
    ///   naming the index and key path of a value that cannot be converted.
    static func convert(
        _ items: [JSONValue], firstIndex: Int = 0, entity: EntityName, schema: Schema?, keys: KeyConvention?,
        noteID: ((RecordID, Int) throws(ImportError) -> Void)? = nil
    ) throws(ImportError) -> ImportConversion {
        let runLength = 4_096
        let runs = (items.count + runLength - 1) / runLength
        let parts = ParallelWork.each(count: runs) { run in
            var converter = RecordConverter(entity: entity, schema: schema, keys: keys)
            let failure = converter.convertItems(
                items, in: (run * runLength)..<min(items.count, (run + 1) * runLength), firstIndex: firstIndex)
            return (converter.conversion, failure)
        }
        var merged = RecordConverter(entity: entity, schema: schema, keys: keys)
        var seen: [RecordID: Int] = [:]
        if noteID == nil { seen.reserveCapacity(items.count) }
        merged.conversion.items.reserveCapacity(items.count)
        for (part, failure) in parts {
            // The items of a run that failed are those before its failure, whose repeated ids
            // the single pass would have reported first.
            for item in part.items {
                if let noteID {
                    try noteID(item.id, item.index)
                } else if let first = seen.updateValue(item.index, forKey: item.id) {
                    throw .duplicateItemID(item.id.rawValue, firstIndex: first, secondIndex: item.index)
                }
            }
            if let failure { throw failure }
            merged.conversion.items += part.items
            merged.conversion.skipped += part.skipped
            merged.conversion.linkSets += part.linkSets
            for key in part.nestedOrder {
                guard let record = part.nested[key] else { continue }
                merged.addNested(key, members: record.members, origin: record.origin, indexes: record.indexes)
            }
        }
        return merged.conversion
    }

    /// Converts `items[range]` into ``conversion``, stopping at the first item that fails;
    /// `items[0]` is at input position `firstIndex`. Repeated ids are left for the caller,
    /// which sees every run.
    /// - Returns: the failure, or `nil`.
    mutating func convertItems(_ items: [JSONValue], in range: Range<Int>, firstIndex: Int = 0) -> ImportError? {
        conversion.items.reserveCapacity(range.count)
        for position in range {
            let index = firstIndex + position
            guard case .object(let members) = items[position] else { return .itemNotAnObject(index: index, kind: items[position].kindName) }
            let object: ConvertedObject
            do { object = try convertObject(members, entity: conversion.entity, origin: ImportOrigin(index: index, keyPath: ""), isTopLevel: true) } catch {
                return error
            }
            guard let id = object.id else {
                // An item without its id cannot be matched with anything: never a silent skip.
                let member: String
                do { member = try mapping(of: conversion.entity).primaryKeyPaths.first?.joined(separator: ".") ?? "id" } catch { return error }
                return .item(
                    index: index, keyPath: "",
                    .missingPrimaryKey(member: member, isNull: object.skipReason == "null id", candidates: Self.idLikeKeys(in: members)))
            }
            conversion.items.append(.init(index: index, id: id, members: object.members))
        }
        return nil
    }

    /// Members that look like an id (`_id`, `uuid`, `userId`), for the hint of a missing primary key.
    static func idLikeKeys(in members: [String: JSONValue]) -> [String] {
        members.compactMap { key, value -> String? in
            guard value.stringValue != nil || value.integerValue != nil else { return nil }
            let lower = key.lowercased()
            return ["_id", "id", "uuid", "guid", "key", "pk"].contains(lower) || lower.hasSuffix("_id") || key.hasSuffix("Id") || key.hasSuffix("ID")
                ? key : nil
        }.sorted().prefix(3).map { $0 }
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
    /// - Parameter indexes: the items it was met under; by default that of `origin`.
    mutating func addNested(_ key: RecordKey, members: [String: JSONValue], origin: ImportOrigin, indexes: Set<Int>? = nil) {
        if var existing = conversion.nested[key] {
            existing.members.merge(members) { _, new in new }
            existing.indexes.formUnion(indexes ?? [origin.index])
            conversion.nested[key] = existing
        } else {
            conversion.nested[key] = .init(key: key, members: members, origin: origin, indexes: indexes ?? [origin.index])
            conversion.nestedOrder.append(key)
        }
    }
}
