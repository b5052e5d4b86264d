/// Two-way sync between a store and an app backend (``SyncBackend``) that other clients edit
/// at the same time.
///
/// **Pull.** For each collection, the records written since the watermark less an overlap
/// window, in (updated, id) order with keyset paging, so nothing written in the same
/// millisecond, or committed a little late, is skipped; what was seen already (the revision of
/// its base, or a Ferry revision of a change the store holds) is skipped. Every other version
/// becomes a change of the replica that stands for the backend in this store's journal, with its
/// own clock stamp and a version vector that descends from the base: so an offline edit and a
/// backend edit of the same record are concurrent and meet as a conflict, exactly as between two
/// stores, resolved by the policy. The watermark is saved only after the journal and the bases
/// are durable.
///
/// **Hard deletes.** Another client may delete a record outright. A count per collection (one
/// request) notices it; only when the count is short are the ids listed, and a record Ferry saw
/// there that is gone becomes a delete. A record created offline that the backend has not seen
/// has no base and is never deleted this way.
///
/// **Push.** Each record changed locally since the last push is written as its current version,
/// with a new revision `ferry:<origin>:<counter>` and its base revision, which the backend
/// checks (PocketBase: the update rule). A write that meets a newer version is not retried
/// blindly: the engine pulls (the other edit arrives as a conflict, resolved by policy) and
/// pushes again, up to three rounds; what is still refused waits for the next sync. Deletes are
/// written as the soft-delete flag.
public final class BackendSyncEngine {
    public struct Options: Sendable {
        /// The entities to sync and their collections.
        public var mapping: BackendMapping
        /// The entities to sync.
        public var entities: [EntityName] { mapping.entities }
        public var policy: ConflictPolicy = .keepBoth
        /// Records per page.
        public var pageSize = 1000
        /// How far before the watermark a pull starts again (late commits, equal stamps).
        public var overlapMilliseconds: Int64 = 2000
        public var maximumClockSkewMilliseconds: UInt64 = 86_400_000
        /// Pull-push rounds when a push meets newer versions.
        public var maximumRounds = 3
        /// How long a record marked deleted stays on the backend (by the backend's clock)
        /// before a sync deletes it outright; `nil` to keep them. A replica that was offline
        /// longer than this still cannot resurrect it by mistake: the record's disappearance
        /// arrives as a delete, which an edit made there meets as a conflict.
        public var purgeAfterMilliseconds: Int64? = 30 * 86_400_000

        /// Each entity with the collection of the same name.
        public init(entities: [EntityName]) {
            self.mapping = BackendMapping(entities: entities)
        }

        public init(mapping: BackendMapping) {
            self.mapping = mapping
        }
    }

    public struct Report: Sendable {
        /// Changes made on the backend, now in the store.
        public var pulled = 0
        /// Records written to the backend.
        public var pushed = 0
        /// Records the backend lost to another client's hard delete, now deleted here.
        public var deletedOnBackend = 0
        /// Records marked deleted longer than the retention period, now deleted outright on the backend.
        public var purged = 0
        /// Conflicts resolved by the policy.
        public var resolved = 0
        /// Records left with concurrent versions (keep-both), for `ferry conflicts`.
        public var conflicts: [RecordKey] = []
        /// Records whose push met a newer version in every round; pushed by a later sync.
        public var waiting: [RecordKey] = []
        /// Requests sent to the backend.
        public var requests = 0
        /// Pull-push rounds run.
        public var rounds = 0
        /// Things the user should know.
        public var notes: [String] = []
    }

    private let store: Store
    private let backend: any SyncBackend
    private let options: Options
    private let folder: String
    private var clock: HybridLogicalClock
    private var touched = Set<RecordKey>()
    private var baseTables: [String: BackendBaseTable] = [:]
    /// Records the mapping cannot write (noted once); they wait without another round.
    private var unwritable = Set<RecordKey>()

    public init(store: Store, backend: any SyncBackend, options: Options) {
        self.store = store
        self.backend = backend
        self.options = options
        self.folder = BackendState.folder(of: backend.location, in: store)
        self.clock = HybridLogicalClock(wallClock: store.options.clock, latest: store.latestModification)
    }

    /// The revision Ferry writes for a version.
    static func revision(of identity: ChangeIdentity) -> String {
        "ferry:\(identity.origin.rawValue):\(identity.counter)"
    }

    /// The change a Ferry revision names; `nil` for another client's revision.
    static func identity(ofRevision revision: String) -> ChangeIdentity? {
        let parts = revision.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "ferry", let origin = ReplicaID(String(parts[1])), let counter = UInt64(parts[2]), counter > 0
        else { return nil }
        return ChangeIdentity(origin: origin, counter: counter)
    }

    /// Runs the sync.
    public func sync() async throws(BackendError) -> Report {
        let requestsBefore = backend.requestCount
        try await backend.connect()
        let lock = try lockFolder()
        defer { lock.close() }
        var state = try BackendState.load(from: folder, location: backend.location)
        var report = Report()
        for round in 1...max(1, options.maximumRounds) {
            report.rounds = round
            for entity in options.entities { try await pull(entity, state: &state, report: &report) }
            let waiting = try await push(state: &state, report: &report)
            state.deferred = waiting
            try state.save(to: folder)
            report.waiting = waiting.sorted()
            if waiting.isSubset(of: unwritable) { break }
        }
        if let retention = options.purgeAfterMilliseconds {
            for entity in options.entities { try await purge(entity, retention: retention, state: &state, report: &report) }
        }
        let raced = report.waiting.filter { !unwritable.contains($0) }.count
        if raced > 0 {
            report.notes.append(
                "\(raced) record\(raced == 1 ? "" : "s") changed on the backend again while this sync ran; "
                    + "the next sync pushes \(raced == 1 ? "it" : "them")")
        }
        for key in touched.sorted() {
            if (try? store.state(of: key))??.isConflicted == true { report.conflicts.append(key) }
        }
        report.requests = backend.requestCount - requestsBefore
        return report
    }

    // MARK: Pull

    private func pull(_ entity: EntityName, state: inout BackendState, report: inout Report) async throws(BackendError) {
        let entry = options.mapping.entry(for: entity)
        let collection = entry.collection
        // From the watermark less the overlap window, or, when the last pull began longer than
        // the window after the watermark, from the watermark itself: every record written
        // before then had committed by then, and was seen.
        let since = state.watermarks[collection].map { watermark -> String in
            guard let listed = state.listedAt[collection] else { return Self.earlier(watermark, by: options.overlapMilliseconds) }
            return min(watermark, Self.earlier(listed, by: options.overlapMilliseconds))
        }
        var listedAt: String?
        var newest = state.watermarks[collection]
        var kinds = state.fieldKinds[collection] ?? [:]
        var known = state.knownCounts[collection] ?? 0
        var pulled: [RecordKey] = []
        let bases = try baseTable(collection)
        // The next page is on its way while this one is written here.
        let ahead = PagePrefetch<ListingCursor?, Result<BackendPage, BackendError>>()
        defer { ahead.cancel() }
        var cursor: ListingCursor? = nil
        var more = true
        while more {
            let page: BackendPage
            if let fetched = ahead.take(cursor) {
                page = try await fetched.value.get()
            } else {
                page = try await Self.listingPage(of: collection, since: since, after: cursor, from: backend, limit: options.pageSize).get()
            }
            more = false
            if page.mayHaveMore, let last = page.records.last {
                let next = ListingCursor(updated: last.updated, id: last.backendID)
                ahead.start(next) { [backend, options] in
                    await Self.listingPage(of: collection, since: since, after: next, from: backend, limit: options.pageSize)
                }
                (cursor, more) = (next, true)
            }
            if listedAt == nil { listedAt = page.serverTime ?? "" }
            var frontier: ReplicaFrontier
            do { frontier = try store.currentFrontier() } catch { throw local(error) }
            var counter = frontier.knowledge[state.proxy]
            var parent = frontier.digests[state.proxy] ?? .zero
            var imports: [Change] = []
            var seen: [(id: String, base: BackendState.Base, new: Bool)] = []
            for record in page.records {
                if newest.map({ record.updated > $0 }) ?? true { newest = record.updated }
                for (name, value) in record.fields where !Self.isEmpty(value) {
                    let kind = PocketBaseFieldKind(holding: value)
                    kinds[name] = kinds[name].map { $0.joined(with: kind) } ?? kind
                }
                for (name, value) in record.fields where kinds[name] == nil { kinds[name] = PocketBaseFieldKind(holding: value) }
                guard let id = try? RecordID(record.ferryID) else {
                    report.notes.append("\(collection)/\(record.backendID): \(quoted(record.ferryID)) is not a Ferry record id; left out")
                    continue
                }
                let key = RecordKey(entity: entity, id: id)
                let base = try bases.base(for: record.backendID)
                if base?.revision == record.revision { continue }
                let current: RecordState?
                do { current = try store.state(of: key) } catch { throw local(error) }
                if let identity = Self.identity(ofRevision: record.revision), frontier.knowledge[identity.origin] >= identity.counter {
                    // Written by Ferry, and this store has that change: nothing to pull.
                    let version = current?.versions.first { $0.identity == identity }?.version ?? current?.mergedVersion ?? VersionVector()
                    seen.append((record.backendID, .init(ferryID: record.ferryID, revision: record.revision, version: version, isDeleted: record.isDeleted), base == nil))
                    continue
                }
                if record.isDeleted && base == nil && current?.isLive != true {
                    // Deleted before this store ever saw it: nothing to delete here.
                    seen.append((record.backendID, .init(ferryID: record.ferryID, revision: record.revision, version: current?.mergedVersion ?? VersionVector(), isDeleted: true), true))
                    continue
                }
                let operation: Change.Operation
                if record.isDeleted {
                    operation = .delete
                } else {
                    let localDocument = current?.isLive == true ? (try? store.get(entity: entity, id: id))??.objectValue : nil
                    operation = .put(.object(Self.document(from: entry.document(of: record.fields), local: localDocument)))
                }
                var version = base?.version ?? VersionVector()
                counter += 1
                version[state.proxy] = counter
                var change = Change(origin: state.proxy, counter: counter, timestamp: clock.tick(), key: key, operation: operation, version: version)
                change.chain = ChangeChain(change, parent: parent)
                parent = change.digest
                imports.append(change)
                seen.append((record.backendID, .init(ferryID: record.ferryID, revision: record.revision, version: version, isDeleted: record.isDeleted), base == nil))
            }
            if !imports.isEmpty {
                do {
                    let received = try store.receive(imports, from: "backend \(backend.location)", maximumSkew: options.maximumClockSkewMilliseconds)
                    report.pulled += received.applied
                } catch {
                    throw BackendError(.local, "\(store.path): \(error)")
                }
                pulled += imports.map(\.key)
            }
            for item in seen {
                bases.set(item.base, for: item.id)
                if item.new { known += 1 }
            }
            try bases.save(durable: false)
        }
        try await checkHardDeletes(entity, known: &known, state: &state, report: &report, pulled: &pulled)
        // The bases are durable before the watermark that covers them is saved.
        try bases.save(durable: true)
        touched.formUnion(pulled)
        try resolve(Set(pulled), report: &report)
        state.watermarks[collection] = newest
        state.listedAt[collection] = listedAt.flatMap { $0.isEmpty ? nil : $0 }
        state.fieldKinds[collection] = kinds
        state.knownCounts[collection] = known
        try state.save(to: folder)
    }

    /// Deletes here the records another client deleted outright there: one count; the ids only when it is short.
    private func checkHardDeletes(
        _ entity: EntityName, known: inout Int, state: inout BackendState, report: inout Report, pulled: inout [RecordKey]
    ) async throws(BackendError) {
        let collection = options.mapping.entry(for: entity).collection
        let count = try await backend.count(in: collection)
        guard count < known else { return }
        let present = try await backend.ids(in: collection)
        var frontier: ReplicaFrontier
        do { frontier = try store.currentFrontier() } catch { throw local(error) }
        var counter = frontier.knowledge[state.proxy]
        var parent = frontier.digests[state.proxy] ?? .zero
        var deletes: [Change] = []
        var gone: [String] = []
        let bases = try baseTable(collection)
        try bases.forEachBackendID { backendID in
            if !present.contains(backendID) { gone.append(backendID) }
        }
        for backendID in gone {
            guard let base = try bases.base(for: backendID), let id = try? RecordID(base.ferryID)
            else { continue }
            let key = RecordKey(entity: entity, id: id)
            let current: RecordState?
            do { current = try store.state(of: key) } catch { throw local(error) }
            // A live record only; one edited here since meets the delete as a conflict, and a put beats a delete.
            guard current?.isLive == true else { continue }
            var version = base.version
            counter += 1
            version[state.proxy] = counter
            var change = Change(origin: state.proxy, counter: counter, timestamp: clock.tick(), key: key, operation: .delete, version: version)
            change.chain = ChangeChain(change, parent: parent)
            parent = change.digest
            deletes.append(change)
        }
        if !deletes.isEmpty {
            do {
                let received = try store.receive(deletes, from: "backend \(backend.location)", maximumSkew: options.maximumClockSkewMilliseconds)
                report.deletedOnBackend += received.applied
            } catch {
                throw BackendError(.local, "\(store.path): \(error)")
            }
            pulled += deletes.map(\.key)
        }
        for backendID in gone { bases.remove(backendID) }
        known = count
    }

    // MARK: Purge

    /// Deletes outright the records of `entity` marked deleted longer than `retention` ago,
    /// at most once per retention period (or day) per collection.
    private func purge(_ entity: EntityName, retention: Int64, state: inout BackendState, report: inout Report) async throws(BackendError) {
        let collection = options.mapping.entry(for: entity).collection
        guard let now = state.listedAt[collection], let nowMilliseconds = Self.milliseconds(now) else { return }
        if let last = state.purgedAt[collection].flatMap(Self.milliseconds), nowMilliseconds - last < min(retention, 86_400_000) { return }
        let cutoff = Self.earlier(now, by: retention)
        let bases = try baseTable(collection)
        var known = state.knownCounts[collection] ?? 0
        var refused = Set<String>()
        while true {
            let found = try await backend.softDeleted(in: collection, updatedBefore: cutoff, limit: 200)
            let fresh = found.filter { !refused.contains($0.backendID) }
            for record in fresh {
                if try await backend.purge(in: collection, backendID: record.backendID, revision: record.revision) {
                    if try bases.base(for: record.backendID) != nil {
                        bases.remove(record.backendID)
                        known = max(0, known - 1)
                    }
                    report.purged += 1
                } else {
                    refused.insert(record.backendID)  // changed meanwhile: it stays
                }
            }
            if found.count < 200 || fresh.isEmpty { break }
        }
        try bases.save(durable: true)
        state.knownCounts[collection] = known
        state.purgedAt[collection] = now
        try state.save(to: folder)
    }

    // MARK: Push

    /// Pushes what changed here; returns the records whose write met a newer version.
    private func push(state: inout BackendState, report: inout Report) async throws(BackendError) -> Set<RecordKey> {
        var keys = state.deferred
        var readThrough = state.pushedThrough
        let entities = Set(options.entities)
        while true {
            let batch: ChangeBatch
            do { batch = try store.changes(after: readThrough, excluding: VersionVector(), limit: options.pageSize) } catch { throw local(error) }
            for change in batch.changes where change.origin != state.proxy && entities.contains(change.key.entity) { keys.insert(change.key) }
            readThrough = batch.through
            if batch.through >= batch.head { break }
        }
        // What to write, read from the store first; then the writes, several in flight.
        var jobs: [PushJob] = []
        for key in keys.sorted() where entities.contains(key.entity) {
            let entry = options.mapping.entry(for: key.entity)
            let collection = entry.collection
            let current: RecordState?
            do { current = try store.state(of: key) } catch { throw local(error) }
            guard let current else { continue }
            let winner = current.winner
            if winner.identity.origin == state.proxy { continue }  // the backend's own version
            let backendID = backend.backendID(for: key.id.rawValue)
            let base = try baseTable(collection).base(for: backendID)
            if base == nil && winner.isDelete { continue }  // never reached the backend
            if let base, base.version.dominates(winner.version) { continue }  // the backend has it or newer
            let revision = Self.revision(of: winner.identity)
            if base?.revision == revision { continue }
            var fields: [String: JSONValue] = [:]
            var clearing: [String: JSONValue] = [:]
            if !winner.isDelete {
                let document: JSONValue?
                do { document = try store.get(entity: key.entity, id: key.id) } catch { throw local(error) }
                do {
                    fields = try entry.fields(of: document?.objectValue ?? [:], record: "\(collection)/\(backendID) (\(key))")
                } catch {
                    if !unwritable.contains(key) { report.notes.append(error.message) }
                    unwritable.insert(key)
                    continue
                }
                // Fields this record lacks are emptied, except those that stand for no member.
                for (name, kind) in state.fieldKinds[collection] ?? [:] where fields[name] == nil && entry.member(forField: name) != nil {
                    clearing[name] = Self.empty(kind)
                }
            }
            let record = BackendRecord(
                collection: collection, backendID: backendID, ferryID: key.id.rawValue, revision: revision, isDeleted: winner.isDelete,
                updated: "", fields: fields)
            jobs.append(PushJob(key: key, record: record, base: base?.revision, clearing: clearing, version: winner.version))
        }
        let outcomes = await backend.write(jobs.map { BackendWrite(record: $0.record, base: $0.base, clearing: $0.clearing) })
        var waiting = unwritable.intersection(keys)
        var written: Set<String> = []
        var failure: BackendError?
        for (job, outcome) in zip(jobs, outcomes) {
            switch outcome {
            case .success(.written):
                try baseTable(job.record.collection).set(
                    .init(ferryID: job.key.id.rawValue, revision: job.record.revision, version: job.version, isDeleted: job.record.isDeleted),
                    for: job.record.backendID)
                if job.base == nil { state.knownCounts[job.record.collection, default: 0] += 1 }
                written.insert(job.record.collection)
                report.pushed += 1
            case .success(.stale):
                waiting.insert(job.key)
            case .failure(let error):
                waiting.insert(job.key)
                if failure == nil { failure = error }
            }
        }
        if let failure {
            // What was written is remembered before the error is told.
            for collection in written { try baseTable(collection).save(durable: true) }
            state.deferred = waiting
            try state.save(to: folder)
            throw failure
        }
        for collection in written { try baseTable(collection).save(durable: true) }
        state.pushedThrough = readThrough
        return waiting
    }

    /// One record to write.
    private struct PushJob: Sendable {
        var key: RecordKey
        var record: BackendRecord
        /// The base revision; `nil` to create.
        var base: String?
        var clearing: [String: JSONValue]
        var version: VersionVector
    }

    // MARK: Helpers

    /// The bases of `collection`, opened once per sync.
    private func baseTable(_ collection: String) throws(BackendError) -> BackendBaseTable {
        if let table = baseTables[collection] { return table }
        let table = try BackendState.bases(in: folder, collection: collection)
        baseTables[collection] = table
        return table
    }

    /// One page of the backend's listing of `collection` after `cursor`, as a result (a page
    /// read ahead keeps its error for the request that takes it).
    private static func listingPage(
        of collection: String, since: String?, after cursor: ListingCursor?, from backend: any SyncBackend, limit: Int
    ) async -> Result<BackendPage, BackendError> {
        do throws(BackendError) {
            let after = cursor.map { (updated: $0.updated, id: $0.id) }
            return .success(try await backend.changes(in: collection, since: since, after: after, limit: limit))
        } catch { return .failure(error) }
    }

    /// Where a listing page ends: the next page starts after this record.
    struct ListingCursor: Equatable, Sendable {
        var updated: String
        var id: String
    }

    private func resolve(_ keys: Set<RecordKey>, report: inout Report) throws(BackendError) {
        guard options.policy != .keepBoth, !keys.isEmpty else { return }
        do { report.resolved += try store.resolveConflicts(among: keys, policy: options.policy) } catch { throw local(error) }
    }

    private func lockFolder() throws(BackendError) -> FileDescriptor {
        do {
            // New folders are synced: state.json, written durably inside, must not lose its folder.
            for created in try FileSystem.createDirectories(folder) {
                try FileSystem.synchronizeDirectory(FileSystem.parentPath(of: created))
            }
            let descriptor = try FileDescriptor.open(folder + "/lock", .readWrite, options: [.create], permissions: 0o644)
            guard try descriptor.lockExclusively(wait: false) else {
                descriptor.close()
                throw BackendError(.local, "\(store.path): another sync with \(backend.location) is running")
            }
            return descriptor
        } catch let error as BackendError {
            throw error
        } catch {
            throw BackendError(.local, "\(folder)/lock: \(error)")
        }
    }

    private func local(_ error: StoreError) -> BackendError {
        BackendError(.local, "\(store.path): \(error)")
    }

    /// The document a backend record's fields stand for. A field the backend cannot leave
    /// unset (PocketBase gives an empty text "", 0, false or null) is left out when it holds
    /// that empty value and the local document has no such member: absent and empty look the
    /// same there.
    static func document(from fields: [String: JSONValue], local: [String: JSONValue]?) -> [String: JSONValue] {
        var document: [String: JSONValue] = [:]
        for (name, value) in fields where !isEmpty(value) || local?[name] != nil {
            document[name] = value
        }
        return document
    }

    static func isEmpty(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return true
        case .string(let text): return text.isEmpty
        case .integer(let number): return number == 0
        case .double(let number): return number == 0
        case .bool(let flag): return !flag
        case .array, .object: return false
        }
    }

    static func empty(_ kind: PocketBaseFieldKind) -> JSONValue {
        switch kind {
        case .text: return .string("")
        case .number: return .integer(0)
        case .bool: return .bool(false)
        case .json: return .null
        }
    }

    /// A PocketBase date (`2026-11-25 08:50:46.872Z`) in milliseconds since 1970.
    static func milliseconds(_ date: String) -> Int64? {
        ISO8601Milliseconds.parse(date.replacingOccurrences(of: " ", with: "T"))
    }

    /// A PocketBase date (`2026-11-25 08:50:46.872Z`) `milliseconds` earlier; the date itself
    /// when it is not in that form.
    static func earlier(_ date: String, by milliseconds: Int64) -> String {
        let iso = date.replacingOccurrences(of: " ", with: "T")
        guard let value = ISO8601Milliseconds.parse(iso) else { return date }
        return ISO8601Milliseconds.format(signedMilliseconds: value - milliseconds).replacingOccurrences(of: "T", with: " ")
    }
}
