extension RecordConverter {
    /// Reads one relationship of an item: nested objects (`"company": {...}`, `"notes": [...]`,
    /// `"notes_attributes": {"0": {...}}`) or ids only (`"company_id": 7`, `"notes_ids": [1, 2]`).
    /// An absent key keeps the stored links, so nothing is recorded then.
    ///
    /// Writes this side's link members into `stored` (`companyID`, `notesIDs`) and records a
    /// ``ImportConversion/LinkSet`` for what the store must do on the other side.
    mutating func convertRelationship(
        _ lookup: EntityMapping.RelationshipLookup, of source: RecordKey, mapping: EntityMapping,
        members: [String: JSONValue], origin: ImportOrigin, into stored: inout [String: JSONValue]
    ) throws(ImportError) {
        let relationship = lookup.relationship
        var targets: [RecordID] = []
        var referencedOnly: Set<RecordID> = []
        var isNested = false
        let linkOrigin: ImportOrigin
        if let (value, keyPath) = EntityMapping.firstValue(at: lookup.nestedPaths, in: members) {
            linkOrigin = origin.appending(keyPath)
            let elements: [(value: JSONValue, origin: ImportOrigin)]
            switch (relationship.kind, value) {
            case (_, .null):
                elements = []
                isNested = true
            case (.toOne, _):
                elements = [(value, linkOrigin)]
            case (_, .array(let array)):
                elements = array.enumerated().map { ($1, linkOrigin.appending(index: $0)) }
                isNested = array.isEmpty || array.contains { $0.objectValue != nil }
            case (_, .object(let byIndex)):
                // `notes_attributes: {"0": {...}, "1": {...}}`, in the order of the numeric keys.
                elements = Self.elementsByIndex(byIndex, origin: linkOrigin)
                isNested = true
            default:
                throw linkOrigin.error(
                    .invalidLink(reason: "expected an array of objects or ids for \(relationship.name), found \(value.kindName)"))
            }
            for element in elements {
                switch element.value {
                case .object(let child):
                    var object = try convertObject(child, entity: relationship.target, origin: element.origin, isTopLevel: false)
                    if object.id == nil, relationship.kind == .toOne {
                        // A to-one object without an id of its own (`"location": {"city": …}`) is
                        // the parent's: it is stored under an id made from the parent's.
                        object = try convertOwnedObject(child, of: source, relationship: relationship, origin: element.origin)
                    }
                    guard let id = object.id else {
                        conversion.skipped.append(
                            .init(index: origin.index, keyPath: element.origin.keyPath, reason: object.skipReason ?? "no id"))
                        continue
                    }
                    addNested(RecordKey(entity: relationship.target, id: id), members: object.members, origin: element.origin)
                    targets.append(id)
                default:
                    let id = try Self.referencedID(element.value, relationship: relationship, origin: element.origin)
                    targets.append(id)
                    referencedOnly.insert(id)
                }
            }
        } else if let (value, keyPath) = EntityMapping.firstValue(at: lookup.linkPaths, in: members) {
            linkOrigin = origin.appending(keyPath)
            switch value {
            case .null: break
            case .array(let array) where relationship.kind != .toOne:
                for (offset, element) in array.enumerated() {
                    targets.append(try Self.referencedID(element, relationship: relationship, origin: linkOrigin.appending(index: offset)))
                }
            default:
                guard relationship.kind == .toOne else {
                    throw linkOrigin.error(.invalidLink(reason: "expected an array of ids for \(relationship.name), found \(value.kindName)"))
                }
                targets.append(try Self.referencedID(value, relationship: relationship, origin: linkOrigin))
            }
            referencedOnly = Set(targets)
        } else {
            return
        }

        var unique: [RecordID] = []
        var seen: Set<RecordID> = []
        for target in targets where seen.insert(target).inserted { unique.append(target) }
        if relationship.kind == .toOne, unique.count > 1 {
            throw linkOrigin.error(.invalidLink(reason: "\(relationship.name) is to-one but \(unique.count) records are given"))
        }
        switch lookup.storage {
        case .id(let key):
            stored[key] = unique.first.map { .string($0.rawValue) } ?? .null
        case .ids(let key):
            let ordered = relationship.ordered ? unique : unique.sorted()
            stored[key] = .array(ordered.map { .string($0.rawValue) })
        case .inverse:
            break
        }
        conversion.linkSets.append(
            .init(
                source: source, sourceEntity: mapping.declared ?? Schema.Entity(name: source.entity),
                relationship: relationship, targets: unique, isNested: isNested, referencedOnly: referencedOnly,
                origin: linkOrigin))
    }

    /// The id of a record linked by reference: a string or an integer.
    static func referencedID(
        _ value: JSONValue, relationship: Schema.Relationship, origin: ImportOrigin
    ) throws(ImportError) -> RecordID {
        let id: RecordID?
        do { id = try ImportDiffPlan.recordID(value, index: origin.index) } catch {
            guard case .invalidItemID(_, let reason) = error else { throw origin.error(error) }
            throw origin.error(.invalidLink(reason: "invalid id for \(relationship.name): \(reason)"))
        }
        guard let id else {
            throw origin.error(.invalidLink(reason: "null is not an id; use [] or null for the whole of \(relationship.name)"))
        }
        return id
    }

    /// The members of a Rails nested-attributes object in the order of their keys: numerically
    /// when every key is a number, else by text.
    static func elementsByIndex(
        _ byIndex: [String: JSONValue], origin: ImportOrigin
    ) -> [(value: JSONValue, origin: ImportOrigin)] {
        let allNumeric = byIndex.keys.allSatisfy { Int($0) != nil }
        let keys = byIndex.keys.sorted { left, right in
            if allNumeric, let l = Int(left), let r = Int(right) { return l < r }
            return left.utf8.lexicographicallyPrecedes(right.utf8)
        }
        return keys.compactMap { key in byIndex[key].map { ($0, origin.appending(key)) } }
    }

    /// The id a to-one nested object without one of its own is stored under:
    /// `<parent entity>-<parent id>-<relationship>` (`User-11-location`).
    static func ownedID(of parent: RecordKey, relationship: String) -> String {
        "\(parent.entity.rawValue)-\(parent.id.rawValue)-\(relationship)"
    }

    /// Converts a to-one nested object that has no id, under the id derived from its parent.
    mutating func convertOwnedObject(
        _ child: [String: JSONValue], of parent: RecordKey, relationship: Schema.Relationship, origin: ImportOrigin
    ) throws(ImportError) -> ConvertedObject {
        let target = try mapping(of: relationship.target)
        guard let keyPath = target.primaryKeyPaths.first, keyPath.count == 1 else {
            return ConvertedObject(id: nil, skipReason: "no id", members: [:])
        }
        if let attribute = target.primaryKeyAttribute, attribute.type != .string {
            throw origin.error(.invalidLink(
                reason: "\(relationship.name) has no id, and \(relationship.target.rawValue)'s primary key is a \(attribute.type.rawValue), "
                    + "so none can be made from its parent's; give the nested object an id"))
        }
        var members = child
        members[keyPath[0]] = .string(Self.ownedID(of: parent, relationship: relationship.name))
        return try convertObject(members, entity: relationship.target, origin: origin, isTopLevel: false)
    }
}
