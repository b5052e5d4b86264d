/// The writes of one import, built against the store as it is: what each touched record becomes
/// (a new document or a delete), read through to the stored documents for the rest.
///
/// The batch is built while the store's write lock is held, so what it reads cannot change
/// before it is written. Nothing is written until the whole batch is known and validated.
struct ImportBatch {
    /// What an import does to one record.
    enum Pending {
        /// The record's new storage members.
        case put([String: JSONValue])
        case delete
    }

    struct Entry {
        var pending: Pending
        /// The item that caused the write, for error messages.
        var origin: ImportOrigin?
    }

    let store: Store
    let schema: Schema?
    let operations: ImportOperations
    var entries: [RecordKey: Entry] = [:]
    /// The keys of ``entries`` in the order they were first written.
    var order: [RecordKey] = []
    /// Records the input named whose values did not change (and so are not in ``entries``).
    var unchanged: Set<RecordKey> = []
    /// Records the input names: never deleted because a parent lost them, only unlinked.
    var named: Set<RecordKey> = []
    var missingTargets: [ImportReport.MissingTarget] = []
    var withheld = ImportDiffPlan.Withheld()
    /// `deny` rules met while deleting, checked once every delete is known.
    var denyChecks: [(record: RecordKey, relationship: Schema.Relationship, entity: Schema.Entity, targets: [RecordID])] = []
    private var storedDocuments: [RecordKey: [String: JSONValue]] = [:]
    /// The live records of the imported entity and their content hashes, read in one pass.
    private var prefetchedHashes: (entity: EntityName, hashes: [RecordID: SHA256Digest])?
    /// The children of derived to-manys, read once (shared by a streamed import's parts).
    var backLinkIndex: BackLinkIndex?
    /// Where the batch's reads of the store are recorded, when a streamed import needs them.
    var touches: ImportTouches?

    init(store: Store, schema: Schema?, operations: ImportOperations) {
        self.store = store
        self.schema = schema
        self.operations = operations
    }

    // MARK: Reading the store (the write lock is held)

    /// The content hash of a live stored record: SHA-256 of its canonical bytes.
    func storedHash(of key: RecordKey) -> SHA256Digest? {
        touches?.reads.insert(key)
        if let prefetched = prefetchedHashes, key.entity == prefetched.entity { return prefetched.hashes[key.id] }
        guard let state = store.index.records[key], state.isLive else { return nil }
        return state.winner.contentHash
    }

    /// Reads every live record of `entity` with its content hash in one pass over the index,
    /// so ``storedHash(of:)`` needs no lookup per record, and returns their ids (unsorted).
    mutating func prefetch(_ entity: EntityName) -> [RecordID] {
        touches?.entitiesReadWhole.insert(entity)
        let records = store.index.records.liveWinnerHashes(of: entity)
        var hashes: [RecordID: SHA256Digest] = [:]
        hashes.reserveCapacity(records.count)
        for (id, hash) in records { hashes[id] = hash }
        prefetchedHashes = (entity, hashes)
        return records.map(\.id)
    }

    /// The stored document of a live record, read once.
    mutating func storedDocument(of key: RecordKey) throws(ImportError) -> [String: JSONValue]? {
        touches?.reads.insert(key)
        if let document = storedDocuments[key] { return document }
        guard let state = store.index.records[key], state.isLive else { return nil }
        let document: JSONValue
        do { document = try store.currentDocument(key, state: state) } catch { throw .store(error) }
        let members = document.objectValue ?? [:]
        storedDocuments[key] = members
        return members
    }

    /// The live records of `entity` whose `key` member names `parent` (their back-link), as
    /// stored: from the shared index when the batch is a streamed import's part.
    mutating func backLinks(to parent: RecordID, in entity: EntityName, key: String) throws(ImportError) -> [RecordID] {
        if backLinkIndex == nil { backLinkIndex = BackLinkIndex(store: store) }
        touches?.backLinkReads.insert(BackLinkIndex.Bucket(entity: entity, member: key, parent: parent))
        return try backLinkIndex?.children(of: parent, in: entity, member: key) ?? []
    }

    /// The back-link buckets the batch's writes change: for each record written whose entity
    /// links to a parent by a member that a derived to-many reads (``backLinks(to:in:key:)``),
    /// the parent it named before and the one it names after, when they differ.
    mutating func changedBackLinks() throws(ImportError) -> [BackLinkIndex.Bucket] {
        guard let schema else { return [] }
        var membersByEntity: [EntityName: [String]] = [:]
        var changed: [BackLinkIndex.Bucket] = []
        for key in order {
            let members: [String]
            if let known = membersByEntity[key.entity] {
                members = known
            } else {
                members = schema.entities[key.entity].map { entity in
                    entity.relationships.compactMap { relationship -> String? in
                        guard case .id(let member) = schema.linkStorage(of: relationship, in: entity),
                            let inverse = inverse(of: relationship), case .inverse = inverse.storage
                        else { return nil }
                        return member
                    }
                } ?? []
                membersByEntity[key.entity] = members
            }
            guard !members.isEmpty else { continue }
            let before = try storedDocument(of: key)
            let after: [String: JSONValue]?
            if case .put(let document)? = entries[key]?.pending { after = document } else { after = nil }
            for member in members {
                let old = before?[member].flatMap(Self.linkID)
                let new = after?[member].flatMap(Self.linkID)
                guard old != new else { continue }
                for parent in [old, new].compactMap({ $0 }) {
                    changed.append(.init(entity: key.entity, member: member, parent: parent))
                }
            }
        }
        return changed
    }

    // MARK: The batch's view

    /// The record as the batch leaves it: its pending document, `nil` when deleted or absent.
    mutating func current(_ key: RecordKey) throws(ImportError) -> [String: JSONValue]? {
        if let entry = entries[key] {
            if case .put(let members) = entry.pending { return members }
            return nil
        }
        return try storedDocument(of: key)
    }

    /// Whether the batch deletes `key`.
    func isDeleted(_ key: RecordKey) -> Bool {
        if case .delete = entries[key]?.pending { return true }
        return false
    }

    /// Sets the record's new members.
    mutating func put(_ key: RecordKey, _ members: [String: JSONValue], origin: ImportOrigin?) {
        set(key, .put(members), origin: origin)
    }

    /// Marks the record deleted.
    mutating func markDeleted(_ key: RecordKey, origin: ImportOrigin?) {
        set(key, .delete, origin: origin)
    }

    /// Sets what the batch does to `key`, keeping the first origin when `origin` is `nil`.
    private mutating func set(_ key: RecordKey, _ pending: Pending, origin: ImportOrigin?) {
        if let index = entries.index(forKey: key) {
            entries.values[index] = Entry(pending: pending, origin: origin ?? entries.values[index].origin)
        } else {
            order.append(key)
            entries[key] = Entry(pending: pending, origin: origin)
        }
    }

    /// Merges `changes` into an existing record (`null` removes a key). Does nothing to a record
    /// that does not exist or is deleted.
    mutating func patch(_ key: RecordKey, _ changes: [String: JSONValue], origin: ImportOrigin?) throws(ImportError) {
        guard let members = try current(key) else { return }
        let (merged, changed) = ImportDiffPlan.merge(changes, into: members)
        if !changed.isEmpty { put(key, merged, origin: origin) }
    }

    /// A link member's value as an id: links are stored as strings; integers are read too.
    static func linkID(_ value: JSONValue) -> RecordID? {
        switch value {
        case .string(let text): return try? RecordID(text)
        case .integer(let integer): return try? RecordID(String(integer))
        default: return nil
        }
    }

    /// A link list member's ids.
    static func linkIDs(_ value: JSONValue?) -> [RecordID] {
        value?.arrayValue?.compactMap(linkID) ?? []
    }
}
