/// Applies a converted input to a store as one batch: diffs the imported entity's items against
/// the stored records in scope, upserts the records split off from nested objects, makes the
/// links on both sides, deletes what is gone with each relationship's delete rule, validates
/// every document, and writes it all with one journal append (unless it is a dry run).
///
/// Runs while the store's write lock is held (see ``Store/importRecords(_:into:options:)-(JSONValue,_,_)``).
struct Importer {
    let store: Store
    let schema: Schema?
    let options: ImportOptions
    /// Which part of the import this run is: the whole of it, or a streamed import's part.
    var part: Part = .whole
    /// Where the run records what it reads and writes (a streamed import's check of its parts).
    var touches: ImportTouches? = nil
    /// The children of derived to-manys, shared by a streamed import's parts.
    var backLinkIndex: BackLinkIndex? = nil

    /// Told how far each step has got: a whole import's steps, not a streamed import's parts
    /// (whose caller reports them as they are written).
    var progress: WorkProgressHandler? { part == .whole ? options.progress : nil }

    /// What a run imports.
    enum Part: Equatable {
        /// The whole input, as one batch: stored records in scope that no item names are deleted.
        case whole
        /// One batch of a streamed import's items: nothing is deleted for being absent, since
        /// later batches may name it, and the mass-deletion check waits for the whole count.
        case items
        /// The stored records in scope that no item of a streamed import named: deleted, with
        /// their delete rules (the conversion holds no items).
        case deletes([RecordID])

        var isDeletes: Bool {
            if case .deletes = self { return true }
            return false
        }
    }

    /// The parent of a `--parent` import and the relationship whose children are imported.
    struct Parent {
        var key: RecordKey
        var entity: Schema.Entity
        var relationship: Schema.Relationship
    }

    /// Plans the import against the store and writes it (see ``finish(_:conversion:journaledEdits:)``).
    /// - Parameter journaledEdits: the paths of hand-edited record files a first plan found in
    ///   its way and journaled, so that this plan builds on their content.
    func run(_ conversion: ImportConversion, journaledEdits: [String] = []) throws(ImportError) -> ImportReport {
        let entity = conversion.entity
        let operations = options.operations
        var batch = ImportBatch(store: store, schema: schema, operations: operations)
        batch.touches = touches
        batch.backLinkIndex = backLinkIndex
        let parent = try options.parent.map { parentKey throws(ImportError) in try resolveParent(parentKey, child: entity, batch: &batch) }

        // The stored records that may be updated or deleted.
        var candidates: [RecordID]
        switch part {
        case .whole:
            if let parent, let document = try batch.current(parent.key) {
                candidates = try batch.linkedIDs(of: parent.key, document: document, relationship: parent.relationship, entity: parent.entity)
            } else {
                candidates = batch.prefetch(entity)
            }
        case .items:
            // Only the stored records this batch's items name: one lookup each.
            candidates = conversion.items.compactMap { item in
                batch.storedHash(of: RecordKey(entity: entity, id: item.id)) == nil ? nil : item.id
            }
        case .deletes(let gone):
            candidates = gone  // found in scope by the streamed import's first pass
        }
        var outOfScopeChildren: [RecordID] = []
        if let scope = options.scope, !part.isDeletes {
            let now = options.now ?? Int64(clamping: store.options.clock.milliseconds())
            var kept: [RecordID] = []
            for id in candidates {
                let document = try batch.storedDocument(of: RecordKey(entity: entity, id: id)) ?? [:]
                if scope.matches(.object(document), now: now) { kept.append(id) } else { outOfScopeChildren.append(id) }
            }
            candidates = kept
        }
        let inScope = Set(candidates)

        // The imported entity's items: insert, update or unchanged. Items whose record is stored
        // are hashed first (on every core): an item equal to its record is unchanged unread.
        var storedPositions: [Int] = []
        var storedHashes: [SHA256Digest] = []
        // Into an empty scope (a first import) every item is an insert: no item is hashed.
        let scopeIsEmpty = inScope.isEmpty
        for position in conversion.items.indices where !scopeIsEmpty {
            let id = conversion.items[position].id
            guard inScope.contains(id), let hash = batch.storedHash(of: RecordKey(entity: entity, id: id)) else { continue }
            storedPositions.append(position)
            storedHashes.append(hash)
        }
        let itemHashes = ImportDocuments.contentHashes(of: storedPositions.map { conversion.items[$0].members })
        var identical = [Bool](repeating: false, count: conversion.items.count)
        for (offset, position) in storedPositions.enumerated() where itemHashes[offset] == storedHashes[offset] {
            identical[position] = true
        }
        batch.named.reserveCapacity(conversion.items.count + conversion.nestedOrder.count)
        batch.unchanged.reserveCapacity(storedPositions.count)
        batch.entries.reserveCapacity(conversion.items.count - storedPositions.count + conversion.nestedOrder.count)
        batch.order.reserveCapacity(conversion.items.count - storedPositions.count + conversion.nestedOrder.count)
        var withheldIndexes: Set<Int> = []
        var comparing = ProgressCounter("comparing", total: conversion.items.count, unit: .items("items"), handler: progress)
        for (position, item) in conversion.items.enumerated() {
            comparing.advance()
            let key = RecordKey(entity: entity, id: item.id)
            let origin = ImportOrigin(index: item.index, keyPath: "")
            batch.named.insert(key)
            if identical[position] {
                batch.unchanged.insert(key)
                continue
            }
            guard !scopeIsEmpty && inScope.contains(item.id) else {
                if operations.contains(.insert) {
                    batch.put(key, ImportDocuments.withoutNulls(item.members), origin: origin)
                } else {
                    batch.withheld.inserts.append(item.id)
                    withheldIndexes.insert(item.index)
                }
                continue
            }
            if try upsert(key, members: item.members, origin: origin, batch: &batch) == .withheld {
                batch.withheld.updates.append(item.id)
                withheldIndexes.insert(item.index)
            }
        }

        comparing.finish()
        // Records split off from nested objects: created or updated, never deleted for being absent.
        var nesting = ProgressCounter("nested records", total: conversion.nestedOrder.count, handler: progress)
        for key in conversion.nestedOrder {
            nesting.advance()
            guard let record = conversion.nested[key] else { continue }
            guard !record.indexes.isSubset(of: withheldIndexes) else {
                // Its members would still merge with those met in another part of a streamed import.
                touches?.reads.insert(key)
                continue
            }
            batch.named.insert(key)
            if batch.entries[key] == nil, batch.storedHash(of: key) == nil {
                batch.put(key, ImportDocuments.withoutNulls(record.members), origin: record.origin)
            } else {
                _ = try upsert(key, members: record.members, origin: record.origin, batch: &batch, alwaysUpdate: true)
            }
        }

        nesting.finish()
        var linking = ProgressCounter("linking", total: conversion.linkSets.count, unit: .items("links"), handler: progress)
        for link in conversion.linkSets {
            linking.advance()
            if !withheldIndexes.contains(link.origin.index) { try batch.apply(link) }
        }
        linking.finish()

        if let parent {
            var targets: [RecordID] = []
            for item in conversion.items where try batch.current(RecordKey(entity: entity, id: item.id)) != nil {
                targets.append(item.id)
            }
            // One item object adds to the children; an array is the complete list of them.
            let kept = conversion.isSingleItem ? candidates + outOfScopeChildren : outOfScopeChildren
            let listed = Set(targets)
            let link = ImportConversion.LinkSet(
                source: parent.key, sourceEntity: parent.entity, relationship: parent.relationship,
                targets: targets + kept.filter { !listed.contains($0) }, isNested: true, referencedOnly: [],
                origin: ImportOrigin(index: 0, keyPath: ""))
            try batch.apply(link)
        } else if !conversion.isSingleItem, part != .items {
            let gone = candidates.filter { !batch.named.contains(RecordKey(entity: entity, id: $0)) }.sorted()
            if operations.contains(.delete) {
                for id in gone { try batch.delete(RecordKey(entity: entity, id: id), origin: nil) }
            } else {
                batch.withheld.deletes += gone
            }
        }
        let denyRules = ProgressCounter("delete rules", total: nil, handler: progress)
        try batch.checkDenyRules()
        denyRules.finish()
        if let touches {
            touches.writes += batch.order
            touches.backLinkWrites += try batch.changedBackLinks()
            touches.unchanged += batch.unchanged.filter { batch.entries[$0] == nil }
        }
        return try finish(batch, conversion: conversion, journaledEdits: journaledEdits)
    }

    enum UpsertOutcome { case written, unchanged, withheld }

    /// Merges `members` into the existing record `key`: unchanged when nothing differs (decided
    /// by content hash first, without reading the record, when the members are the whole record).
    func upsert(
        _ key: RecordKey, members: [String: JSONValue], origin: ImportOrigin, batch: inout ImportBatch,
        alwaysUpdate: Bool = false
    ) throws(ImportError) -> UpsertOutcome {
        if batch.entries[key] == nil, let storedHash = batch.storedHash(of: key),
            ImportDocuments.contentHashes(of: [members])[0] == storedHash
        {
            batch.unchanged.insert(key)
            return .unchanged
        }
        guard let current = try batch.current(key) else { return .unchanged }
        let primaryKey = schema?.entities[key.entity]?.primaryKey ?? "id"
        let (merged, changed) = ImportDiffPlan.merge(members, into: current, record: key.id, primaryKey: primaryKey)
        if changed.isEmpty {
            if batch.entries[key] == nil { batch.unchanged.insert(key) }
            return .unchanged
        }
        guard alwaysUpdate || options.operations.contains(.update) else { return .withheld }
        batch.put(key, merged, origin: origin)
        return .written
    }

    /// Finds the `--parent` record and the one relationship of its entity whose target is `child`.
    func resolveParent(_ key: RecordKey, child: EntityName, batch: inout ImportBatch) throws(ImportError) -> Parent {
        let text = key.description
        guard let entity = schema?.entities[key.entity] else {
            throw .invalidParent(text, reason: "schema.json declares no entity \(key.entity.rawValue), so its relationships are unknown")
        }
        let candidates = entity.relationships.filter { $0.target == child && $0.kind != .toOne }
        guard let relationship = candidates.first else {
            throw .invalidParent(text, reason: "\(key.entity.rawValue) has no to-many relationship to \(child.rawValue)")
        }
        guard candidates.count == 1 else {
            let names = candidates.map(\.name).joined(separator: ", ")
            throw .invalidParent(text, reason: "\(key.entity.rawValue) has several relationships to \(child.rawValue): \(names)")
        }
        guard try batch.current(key) != nil else { throw .invalidParent(text, reason: "there is no record \(text)") }
        return Parent(key: key, entity: entity, relationship: relationship)
    }
}
