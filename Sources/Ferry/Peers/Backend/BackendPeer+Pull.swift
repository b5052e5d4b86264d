/// Listing what changed on the backend, as the stand-in's next changes.
extension BackendPeer {
    /// Lists each collection since its watermark and turns what is new into changes of the
    /// stand-in replica (``BackendExchange/pulled``), then counts it for hard deletes.
    ///
    /// The count is asked for while the listing runs: a sync that finds nothing new waits for
    /// one round trip, not two. A record created between the two answers makes the count short
    /// of what was listed, which only lists the collection whole; one deleted between them is
    /// counted by the next sync, since the count is what Ferry then remembers.
    /// - Parameter local: the store's frontier (whether it holds a version Ferry wrote there).
    func pullAll(local: ReplicaFrontier) async throws(SyncError) {
        for entity in options.entities {
            let counting = Self.counting(options.mapping.entry(for: entity).collection, on: backend)
            defer { counting.cancel() }
            let reachedLatestWrite = try await pull(entity, local: local)
            try await checkForGoneRecords(entity, reachedLatestWrite: reachedLatestWrite, count: counting.value)
        }
        for (key, how) in differingRecords().sorted(by: { $0.key < $1.key }) {
            note("\(key): the backend holds it differently from this store (\(how)); its field cannot hold the store's value as it "
                + "is: give the field a type that can ('ferry backend setup … --from <store>' adds missing ones and fills them), "
                + "or change the record")
        }
    }

    /// The records the backend holds at the store's version but with other values: those
    /// saved, less the ones this exchange listed agreeing, and the ones it listed differing.
    func differingRecords() -> [RecordKey: String] {
        state.differing.filter { !pending.agreeing.contains($0.key) }.merging(pending.differing) { $1 }
    }

    /// Notes `record` as differing when it holds the store's current version (Ferry wrote it)
    /// but not its values: the backend could not hold one as it is. Said every sync until it agrees.
    private func checkHeldValues(_ record: BackendRecord, of key: RecordKey, current: RecordState?, entry: BackendMapping.Entry) throws(SyncError) {
        guard !record.isDeleted, let current, !current.winner.isDelete, let replica,
            Self.identity(ofRevision: record.revision) == current.winner.identity
        else { return }
        let document: JSONValue?
        do { document = try replica.versions(of: key).first?.document } catch { throw .store(error) }
        if let how = comparison(of: record, with: document, entry: entry).difference {
            pending.agreeing.remove(key)
            pending.differing[key] = how
        }
    }

    /// How a backend record compares with a document of the store.
    enum Comparison: Equatable {
        /// Every field holds the document's value.
        case same
        /// A field holds a value of another kind (a text field given a number keeps `"3"`): the
        /// collection cannot hold the document as it is, which a sync names.
        case coerced(String)
        /// A field holds another value of the same kind, or a value the document does not have:
        /// someone wrote other content.
        case different(String)

        /// Whether someone wrote other content.
        var isDifferent: Bool {
            if case .different = self { return true }
            return false
        }

        /// How they differ; `nil` when they do not.
        var difference: String? {
            switch self {
            case .same: return nil
            case .coerced(let how), .different(let how): return how
            }
        }
    }

    /// How `record` compares with the store's `document` of the same record (`nil`: a delete).
    func comparison(of record: BackendRecord, with document: JSONValue?, entry: BackendMapping.Entry) -> Comparison {
        guard let object = document?.objectValue else {
            return record.isDeleted ? .same : .different("it is live there, deleted here")
        }
        if record.isDeleted { return .different("it is deleted there, live here") }
        guard let fields = try? entry.fields(of: object, record: "\(record.collection)/\(record.backendID)") else { return .same }
        return comparison(of: record, withFields: fields, entry: entry)
    }

    /// How a live `record` compares with `fields`, the backend fields of a live document of the
    /// store (``BackendMapping/Entry/fields(of:record:)``).
    func comparison(of record: BackendRecord, withFields fields: [String: JSONValue], entry: BackendMapping.Entry) -> Comparison {
        for name in fields.keys.sorted() {
            let wanted = fields[name] ?? .null
            guard let held = record.fields[name] else { return .coerced("it has no field \(name)") }
            if held == wanted || (held.doubleValue != nil && held.doubleValue == wanted.doubleValue) { continue }
            if wanted == .null && Self.isEmpty(held) { continue }  // an empty field stands for null
            let how = "\(name) is \(Self.shown(held)) there, \(Self.shown(wanted)) here"
            return Self.kind(of: held) == Self.kind(of: wanted) ? .different(how) : .coerced(how)
        }
        for name in record.fields.keys.sorted() where fields[name] == nil && entry.member(forField: name) != nil {
            if let held = record.fields[name], !Self.isEmpty(held) {
                return .different("\(name) is \(Self.shown(held)) there, absent here")
            }
        }
        return .same
    }

    /// A value's kind, as a backend field holds it (integers and doubles are both numbers).
    private static func kind(of value: JSONValue) -> Int {
        switch value {
        case .null: return 0
        case .bool: return 1
        case .integer, .double: return 2
        case .string: return 3
        case .array: return 4
        case .object: return 5
        }
    }

    /// A value in a note, cut short.
    private static func shown(_ value: JSONValue) -> String {
        let text = String(decoding: value.canonicalBytes(), as: UTF8.self)
        return text.count > 40 ? text.prefix(40) + "…" : text
    }

    /// The base of a record as this exchange found it, else as saved.
    func pulledOrSavedBase(_ collection: String, _ backendID: String) throws(SyncError) -> BackendState.Base? {
        if let pulled = pending.pulledBases[collection]?[backendID] { return pulled.base }
        let table = try baseTable(collection)
        do { return try table.base(for: backendID) } catch { throw .backend(error) }
    }

    /// - Returns: whether the listing found a record as new as the newest Ferry wrote there
    ///   (``BackendState/latestWritten``; true when Ferry wrote none).
    private func pull(_ entity: EntityName, local frontier: ReplicaFrontier) async throws(SyncError) -> Bool {
        let entry = options.mapping.entry(for: entity)
        let collection = entry.collection
        // A collection whose bases lack `updated` (kept since) is listed whole, once.
        let since = state.listingStart(of: collection, overlapMilliseconds: options.overlapMilliseconds)
        var listedAt: String?
        var newest = state.watermarks[collection]
        var kinds = state.fieldKinds[collection] ?? [:]
        var known = state.knownCounts[collection] ?? 0
        let latestWrite = state.latestWritten[collection]
        var reachedLatestWrite = latestWrite == nil
        // The next page is on its way while this one is read.
        let ahead = PagePrefetch<ListingCursor?, Result<BackendPage, BackendError>>()
        defer { ahead.cancel() }
        var cursor: ListingCursor? = nil
        var more = true
        while more {
            let page: BackendPage
            do {
                if let fetched = ahead.take(cursor) {
                    page = try await fetched.value.get()
                } else {
                    page = try await Self.listingPage(of: collection, since: since, after: cursor, from: backend, limit: options.pageSize).get()
                }
            } catch { throw .backend(error) }
            more = false
            if page.mayHaveMore, let last = page.records.last {
                let next = ListingCursor(updated: last.updated, id: last.backendID)
                ahead.start(next) { [backend, options] in
                    await Self.listingPage(of: collection, since: since, after: next, from: backend, limit: options.pageSize)
                }
                (cursor, more) = (next, true)
            }
            if listedAt == nil { listedAt = page.serverTime ?? "" }
            for record in page.records {
                if newest.map({ record.updated > $0 }) ?? true { newest = record.updated }
                if let latestWrite, record.updated >= latestWrite { reachedLatestWrite = true }
                for (name, value) in record.fields where !Self.isEmpty(value) {
                    let kind = PocketBaseFieldKind(holding: value)
                    kinds[name] = kinds[name].map { $0.joined(with: kind) } ?? kind
                }
                for (name, value) in record.fields where kinds[name] == nil { kinds[name] = PocketBaseFieldKind(holding: value) }
                if try take(record, entity: entity, entry: entry, local: frontier) { known += 1 }
            }
        }
        pending.watermarks[collection] = newest
        pending.listedAt[collection] = listedAt.flatMap { $0.isEmpty ? nil : $0 }
        pending.fieldKinds[collection] = kinds
        pending.knownCounts[collection] = known
        return reachedLatestWrite
    }

    /// Turns one listed record into the stand-in's next change when it is new to the store,
    /// and notes its base.
    ///
    /// A record is what Ferry last saw when its revision, `updated` and content are the base's.
    /// Anything else was written since, by whoever: a revision of Ferry's form is taken as
    /// Ferry's write only when the store holds that change of this record and the record holds
    /// its content; every other write (a superuser's, a hook's, a client that kept or borrowed a
    /// revision) becomes a change of the stand-in.
    /// - Parameter frontier: the store's (whether it holds a version Ferry wrote there).
    /// - Returns: whether the record is one Ferry had not seen on the backend.
    private func take(
        _ record: BackendRecord, entity: EntityName, entry: BackendMapping.Entry, local frontier: ReplicaFrontier
    ) throws(SyncError) -> Bool {
        guard let replica else { return false }
        let collection = entry.collection
        guard let id = try? RecordID(record.ferryID) else {
            note("\(collection)/\(record.backendID): \(quoted(record.ferryID)) is not a Ferry record id; left out")
            return false
        }
        let key = RecordKey(entity: entity, id: id)
        let base = try pulledOrSavedBase(collection, record.backendID)
        let seen = base?.isSame(as: record) == true
        let seenSurely = seen && base?.updated != nil && base?.content != nil
        if seenSurely, let base, base.valuesChecked || state.watermarks[collection].map({ record.updated <= $0 }) == true {
            // Listed again unchanged since an earlier sync listed it and checked its values, or
            // since Ferry wrote it and found them in the backend's answer (what a check found
            // is kept): nothing to read here.
            return false
        }
        pending.agreeing.insert(key)
        pending.differing[key] = nil
        let current: RecordState?
        do { current = try replica.state(of: key) } catch { throw .store(error) }
        try checkHeldValues(record, of: key, current: current, entry: entry)
        if seenSurely { return false }
        if seen, var base {
            // A base from before Ferry kept `updated`: the record is still the write Ferry saw when
            // it holds the content of the change the base names.
            let named = Self.identity(ofRevision: base.revision) ?? ChangeIdentity(origin: state.proxy, counter: base.version[state.proxy])
            if let stored = try storedVersion(named, of: key, current: current),
               !comparison(of: record, with: stored.document, entry: entry).isDifferent {
                base.updated = record.updated
                base.content = record.contentDigest
                setPulledBase(base, for: record.backendID, in: collection, counter: 0)
                return false
            }
        }
        if let identity = Self.identity(ofRevision: record.revision), frontier.knowledge[identity.origin] >= identity.counter {
            if let stored = try storedVersion(identity, of: key, current: current),
               !comparison(of: record, with: stored.document, entry: entry).isDifferent {
                if let base, base.version[identity.origin] >= identity.counter, !(base.updated.map { record.updated > $0 } ?? false) {
                    // A version of Ferry's older than the one Ferry last saw there, and no newer
                    // write: the backend went back in time (``checkForGoneRecords(_:reachedLatestWrite:count:)`` repairs it).
                    pending.heldOlder.insert(collection)
                    return false
                }
                // Written by Ferry, and this store has that change of this record: nothing to pull.
                setPulledBase(.init(ferryID: record.ferryID, revision: record.revision, version: stored.version, isDeleted: record.isDeleted,
                                    updated: record.updated, content: record.contentDigest),
                              for: record.backendID, in: collection, counter: 0)
                return base == nil
            }
            note("\(collection)/\(record.backendID) (\(key)): its revision \(record.revision) names a change of Ferry's whose content it does not "
                + "hold; pulled as another client's edit")
        }
        if record.isDeleted && base == nil && current?.isLive != true {
            // Deleted before this store ever saw it: nothing to delete here.
            setPulledBase(.init(ferryID: record.ferryID, revision: record.revision, version: current?.mergedVersion ?? VersionVector(), isDeleted: true,
                                updated: record.updated, content: record.contentDigest),
                          for: record.backendID, in: collection, counter: 0)
            return true
        }
        let operation: Change.Operation
        if record.isDeleted {
            operation = .delete
        } else {
            var localDocument: [String: JSONValue]? = nil
            if current?.isLive == true {
                do { localDocument = try replica.versions(of: key).first?.document?.objectValue } catch { throw .store(error) }
            }
            operation = .put(.object(Self.document(from: entry.document(of: record.fields), local: localDocument)))
        }
        let change = makeChange(key: key, operation: operation, base: base?.version)
        setPulledBase(.init(ferryID: record.ferryID, revision: record.revision, version: change.version, isDeleted: record.isDeleted,
                            updated: record.updated, content: record.contentDigest),
                      for: record.backendID, in: collection, counter: change.counter)
        return base == nil
    }

    /// The change `identity` of `key` as the store holds it: one of its current versions, or an
    /// earlier one found along the record's chain in the journal; `nil` when the store holds no
    /// such change of this record (a revision borrowed from another record, or history archived).
    func storedVersion(
        _ identity: ChangeIdentity, of key: RecordKey, current: RecordState?
    ) throws(SyncError) -> (version: VersionVector, document: JSONValue?)? {
        guard let replica, let current, identity.counter > 0 else { return nil }
        if current.versions.contains(where: { $0.identity == identity }) {
            let versions: [(version: RecordVersion, document: JSONValue?)]
            do { versions = try replica.versions(of: key) } catch { throw .store(error) }
            if let found = versions.first(where: { $0.version.identity == identity }) { return (found.version.version, found.document) }
        }
        var sequence = current.lastSequence
        for _ in 0..<1024 where sequence > 0 {
            guard let entry = try? replica.journalEntry(at: sequence), entry.change.key == key else { return nil }  // archived: unknown
            if entry.change.identity == identity { return (entry.change.version, entry.change.operation.document) }
            if entry.previousSequenceOfRecord >= sequence { return nil }
            sequence = entry.previousSequenceOfRecord
        }
        return nil
    }

    /// The stand-in's next change to `key`, descending from `base`, added to the exchange.
    func makeChange(key: RecordKey, operation: Change.Operation, base: VersionVector?) -> Change {
        let (counter, parent) = pending.next(of: state.proxy)
        var version = base ?? VersionVector()
        version[state.proxy] = counter
        var change = Change(origin: state.proxy, counter: counter, timestamp: clock.tick(), key: key, operation: operation, version: version)
        change.chain = ChangeChain(change, parent: parent)
        pending.addPulled(change, previous: state.standIn.hash)
        return change
    }

    private func setPulledBase(_ base: BackendState.Base, for backendID: String, in collection: String, counter: UInt64) {
        pending.pulledBases[collection, default: [:]][backendID] = .init(base: base, counter: counter)
    }

    /// One page of the backend's listing of `collection` after `cursor`, as a result (a page
    /// read ahead keeps its error for the request that takes it).
    static func listingPage(
        of collection: String, since: String?, after cursor: ListingCursor?, from backend: any SyncBackend, limit: Int
    ) async -> Result<BackendPage, BackendError> {
        do throws(BackendError) {
            let after = cursor.map { (updated: $0.updated, id: $0.id) }
            return .success(try await backend.changes(in: collection, since: since, after: after, limit: limit))
        } catch { return .failure(error) }
    }

    /// Counts `collection` on a task of its own, as a result (the count runs beside the listing).
    static func counting(_ collection: String, on backend: any SyncBackend) -> Task<Result<Int, BackendError>, Never> {
        Task {
            do throws(BackendError) {
                return .success(try await backend.count(in: collection))
            } catch { return .failure(error) }
        }
    }

    /// Where a listing page ends: the next page starts after this record.
    struct ListingCursor: Equatable, Sendable {
        var updated: String
        var id: String
    }
}
