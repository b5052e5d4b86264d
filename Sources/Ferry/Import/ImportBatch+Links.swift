extension ImportBatch {
    /// A relationship's inverse on the target entity, with where its links are stored.
    struct Inverse {
        var relationship: Schema.Relationship
        var entity: Schema.Entity
        var storage: Schema.LinkStorage
    }

    /// The inverse of `relationship`, when the schema declares one.
    func inverse(of relationship: Schema.Relationship) -> Inverse? {
        guard let schema, let name = relationship.inverse, let target = schema.entities[relationship.target],
            let inverse = target.relationship(named: name)
        else { return nil }
        return Inverse(relationship: inverse, entity: target, storage: schema.linkStorage(of: inverse, in: target))
    }

    /// Where `relationship` of `entity` stores its links.
    func storage(of relationship: Schema.Relationship, in entity: Schema.Entity) -> Schema.LinkStorage {
        schema?.linkStorage(of: relationship, in: entity) ?? .ids(key: relationship.name + "IDs")
    }

    /// The records `document` (of `key`) links to through `relationship`, as stored: its own
    /// link members, or for a derived to-many the records whose back-link names it.
    mutating func linkedIDs(
        of key: RecordKey, document: [String: JSONValue], relationship: Schema.Relationship, entity: Schema.Entity
    ) throws(ImportError) -> [RecordID] {
        switch storage(of: relationship, in: entity) {
        case .id(let member):
            return document[member].flatMap(Self.linkID).map { [$0] } ?? []
        case .ids(let member):
            return Self.linkIDs(document[member])
        case .inverse:
            guard let inverse = inverse(of: relationship), case .id(let backLink) = inverse.storage else { return [] }
            var children: [RecordID] = []
            for child in try backLinks(to: key.id, in: relationship.target, key: backLink) {
                // The stored back-link may have been changed by this batch.
                let childKey = RecordKey(entity: relationship.target, id: child)
                if let current = try current(childKey), current[backLink].flatMap(Self.linkID) == key.id {
                    children.append(child)
                }
            }
            return children
        }
    }

    /// Makes `link.source` link to exactly `link.targets` through `link.relationship`, on both
    /// sides: targets that do not exist are reported and left out; targets no longer listed are
    /// deleted (children of a to-many given as nested objects) or unlinked.
    mutating func apply(_ link: ImportConversion.LinkSet) throws(ImportError) {
        let source = link.source
        guard let sourceDocument = try current(source) else { return }
        let relationship = link.relationship
        var targets: [RecordID] = []
        for target in link.targets {
            let key = RecordKey(entity: relationship.target, id: target)
            if try current(key) == nil {
                missingTargets.append(.init(index: link.origin.index, keyPath: link.origin.keyPath, target: key))
            } else {
                targets.append(target)
            }
        }
        let stored = try storedDocument(of: source) ?? sourceDocument
        let before = try linkedIDs(of: source, document: stored, relationship: relationship, entity: link.sourceEntity)
        let listed = Set(targets)
        let inverse = inverse(of: relationship)
        for removed in before where !listed.contains(removed) {
            let key = RecordKey(entity: relationship.target, id: removed)
            // Whether it is named decides between delete and unlink: a streamed import's parts
            // must agree on it, so it counts as read even when it is only withheld.
            touches?.reads.insert(key)
            if link.isNested, relationship.kind == .toMany, !named.contains(key) {
                if operations.contains(.delete) {
                    try delete(key, origin: link.origin)
                    continue
                }
                targets.append(removed)  // kept: `--only` withholds the delete
                withheld.deletes.append(removed)
                continue
            }
            try unlink(key, from: source, inverse: inverse, origin: link.origin)
        }
        switch storage(of: relationship, in: link.sourceEntity) {
        case .id(let member):
            try patch(source, [member: targets.first.map { .string($0.rawValue) } ?? .null], origin: link.origin)
        case .ids(let member):
            let ordered = relationship.ordered ? targets : targets.sorted()
            try patch(source, [member: .array(ordered.map { .string($0.rawValue) })], origin: link.origin)
        case .inverse:
            break
        }
        for target in targets {
            try attach(
                RecordKey(entity: relationship.target, id: target), to: source, relationship: relationship,
                sourceEntity: link.sourceEntity, inverse: inverse, origin: link.origin)
        }
    }

    /// Removes `source` from the inverse side of `target` (its back-link or its list).
    mutating func unlink(
        _ target: RecordKey, from source: RecordKey, inverse: Inverse?, origin: ImportOrigin?
    ) throws(ImportError) {
        guard let inverse, let document = try current(target) else { return }
        switch inverse.storage {
        case .id(let member):
            if document[member].flatMap(Self.linkID) == source.id { try patch(target, [member: .null], origin: origin) }
        case .ids(let member):
            let ids = Self.linkIDs(document[member])
            if ids.contains(source.id) {
                try patch(target, [member: .array(ids.filter { $0 != source.id }.map { .string($0.rawValue) })], origin: origin)
            }
        case .inverse:
            break
        }
    }

    /// Adds `source` to the inverse side of `target`. A target whose to-one inverse named another
    /// record is taken from that record (its list or its to-one link is updated too).
    mutating func attach(
        _ target: RecordKey, to source: RecordKey, relationship: Schema.Relationship, sourceEntity: Schema.Entity,
        inverse: Inverse?, origin: ImportOrigin?
    ) throws(ImportError) {
        guard let inverse, let document = try current(target) else { return }
        switch inverse.storage {
        case .id(let member):
            let previous = document[member].flatMap(Self.linkID)
            guard previous != source.id else { return }
            try patch(target, [member: .string(source.id.rawValue)], origin: origin)
            guard let previous else { return }
            let previousOwner = RecordKey(entity: source.entity, id: previous)
            guard let ownerDocument = try current(previousOwner) else { return }
            switch storage(of: relationship, in: sourceEntity) {
            case .id(let ownerMember):
                if ownerDocument[ownerMember].flatMap(Self.linkID) == target.id {
                    try patch(previousOwner, [ownerMember: .null], origin: origin)
                }
            case .ids(let ownerMember):
                let ids = Self.linkIDs(ownerDocument[ownerMember])
                if ids.contains(target.id) {
                    try patch(
                        previousOwner, [ownerMember: .array(ids.filter { $0 != target.id }.map { .string($0.rawValue) })],
                        origin: origin)
                }
            case .inverse:
                break
            }
        case .ids(let member):
            var ids = Self.linkIDs(document[member])
            guard !ids.contains(source.id) else { return }
            ids.append(source.id)
            if !inverse.relationship.ordered { ids.sort() }
            try patch(target, [member: .array(ids.map { .string($0.rawValue) })], origin: origin)
        case .inverse:
            break
        }
    }
}
