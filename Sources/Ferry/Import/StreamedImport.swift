/// An import of an array whose items link to nothing (at the top level, or inside objects at
/// ``ImportOptions/path``), read as a stream and written in batches, so that its memory stays
/// flat however long the array is.
///
/// Such an import touches only the records its items name and the stored records in scope that
/// no item names (deleted, with no delete rules to follow), so each item can be compared with
/// its stored record and written on its own. It runs in two passes under the store's write lock:
/// 1. **Check**: every item is read, converted, compared and checked against the store's limits;
///    the ids seen are kept as 64-bit fingerprints (a repeated one is confirmed by reading the input
///    again up to it), and the stored records in scope not named yet as a set that shrinks.
///    Counts, the changes to list, `--only`'s withheld changes and the mass-deletion check come
///    from this pass; a dry run stops here. Any problem is thrown before anything is written.
/// 2. **Write**: the input is read again and each batch's writes are one journal append with one
///    fsync, then the deletes. When the input was one batch, its writes from the first pass are
///    used and the input is not read again.
///
/// Every batch is durable when written, so a crash or a failed write (a full disk) in pass 2
/// leaves the first batches in the store and the rest not; the error says how far it got
/// (``ImportError/partiallyWritten(written:planned:_:)``), and importing the same input again
/// finishes the work, since an import writes only what differs.
struct StreamedImport {
    let store: Store
    let schema: Schema?
    let entity: EntityName
    let options: ImportOptions
    let input: ImportInput

    /// What one batch of items does, compared with the store.
    struct BatchPlan {
        var writes: [RecordWrite] = []
        var changes: [ImportReport.Change] = []
        var counts = ImportReport.Counts()
        var withheld = ImportDiffPlan.Withheld()
        var skipped: [ImportReport.SkippedItem] = []
    }

    /// The stream options: the store's depth limit one level deeper, for the array.
    var streamOptions: JSONArrayStream.Options {
        JSONArrayStream.Options(
            maximumDepth: store.options.maximumDepth + 1,
            maximumElementBytes: max(store.options.maximumDocumentBytes * 2, 64 << 20),
            chunkBytes: options.streamChunkBytes)
    }

    func run() throws(ImportError) -> ImportReport {
        let now = options.now ?? Int64(clamping: store.options.clock.milliseconds())
        var remaining = try candidates(now: now)
        let seen = SeenIDs()
        var report = ImportReport(
            entity: entity, countsByEntity: [:], skipped: [], missingTargets: [], changes: [], withheld: .init(),
            isDryRun: options.isDryRun, journalEntries: 0)
        var counts = ImportReport.Counts()
        var batches = 0
        var onlyBatch: [RecordWrite] = []
        var writeCount = 0
        report.inputHighWaterBytes = try forEachBatch(inputProgress: options.progress) { items, firstIndex throws(ImportError) in
            let conversion = try convert(items, firstIndex: firstIndex, checkingIDsIn: seen)
            let plan = try self.plan(conversion, now: now) { id, _ in remaining.remove(id) != nil }
            try checkHandEdits(overwrittenBy: plan.writes, into: &report)
            counts.inserted += plan.counts.inserted
            counts.updated += plan.counts.updated
            counts.unchanged += plan.counts.unchanged
            report.skipped += plan.skipped
            report.withheld.inserts += plan.withheld.inserts
            report.withheld.updates += plan.withheld.updates
            list(plan.changes, in: &report)
            writeCount += plan.writes.count
            batches += 1
            onlyBatch = batches == 1 ? plan.writes : []
        }
        let gone = remaining.sorted()
        remaining = []
        if options.operations.contains(.delete) {
            counts.deleted = gone.count
            var start = 0
            while start < gone.count {
                let end = min(gone.count, start + options.streamBatchItems)
                try checkHandEdits(overwrittenBy: gone[start..<end].map { .delete(RecordKey(entity: entity, id: $0)) }, into: &report)
                start = end
            }
            list(gone.map { .init(kind: .delete, key: RecordKey(entity: entity, id: $0), changedKeys: []) }, in: &report)
        } else {
            report.withheld.deletes = gone
        }
        counts.skipped = report.skipped.filter { $0.keyPath.isEmpty }.count
        report.countsByEntity = [entity: counts]
        let importer = Importer(store: store, schema: schema, options: options)
        report.refusals.insert(contentsOf: try importer.massDeletionRefusals(report.countsByEntity, imported: entity), at: 0)
        guard !options.isDryRun else { return report }

        // Pass 2: write. A streamed import holds at most a quarter of the store's merge
        // interval in memory (16k records at the default, about 12 MB): its memory stays that
        // of the batch, whatever the store's size, for a few more merges of the snapshot.
        store.mergeIntervalOverride = max(1, store.options.mergeInterval / 4)
        defer { store.mergeIntervalOverride = nil }
        let deletes = options.operations.contains(.delete) ? gone : []
        let total = writeCount + deletes.count
        var written = 0
        func write(_ writes: [RecordWrite]) throws(ImportError) {
            guard !writes.isEmpty else { return }
            do {
                let result = try store.performLocalWrites(writes)
                report.journalEntries += result.entries.count
                report.handEdits += result.journaledEdits.map(\.path)
            } catch {
                if written == 0 { throw .store(error) }
                throw .partiallyWritten(written: written, planned: total, error)
            }
            written += writes.count
            options.progress?(WorkProgress(task: "writing", done: written, total: total, unit: .items("records")))
        }
        if batches <= 1 {
            try write(onlyBatch)
        } else {
            try forEachBatch { items, firstIndex throws(ImportError) in
                let conversion = try RecordConverter.convert(
                    items, firstIndex: firstIndex, entity: entity, schema: schema, keys: options.keys) { _, _ in }
                try write(try self.plan(conversion, now: now) { id, state throws(ImportError) in try self.isInScope(id, state: state, now: now) }.writes)
            }
        }
        var start = 0
        while start < deletes.count {
            let end = min(deletes.count, start + options.streamBatchItems)
            try write(deletes[start..<end].map { .delete(RecordKey(entity: entity, id: $0)) })
            start = end
        }
        return report
    }

    /// Finds the hand-edited record files a batch's writes would replace (pass 1): one that is
    /// not a valid record stops the import before anything is written; a dry run lists the
    /// others, which pass 2 journals before writing over them.
    private func checkHandEdits(overwrittenBy writes: [RecordWrite], into report: inout ImportReport) throws(ImportError) {
        guard !writes.isEmpty else { return }
        let found: StoreStatus
        do { found = try store.handEdits(overwrittenBy: writes.map(\.key)).status } catch { throw .store(error) }
        let problems = found.problems.map(store.unjournaledEdit)
        guard options.isDryRun else {
            if let problem = problems.first { throw .store(problem) }
            return
        }
        report.handEdits += found.edits.map(\.path)
        report.refusals += problems.map(\.description)
    }

    /// Adds `changes` to the report's list, or to its count past the limit (a dry run lists all).
    private func list(_ changes: [ImportReport.Change], in report: inout ImportReport) {
        let room = options.isDryRun ? changes.count : max(0, options.maximumListedChanges - report.changes.count)
        report.changes += changes.prefix(room)
        report.unlistedChanges += changes.count - min(room, changes.count)
    }

    // MARK: Reading

    /// The input's size in bytes, when it is a file (or bytes in memory).
    private var inputSize: Int? {
        switch input {
        case .file(let path):
            guard let status = (try? FileSystem.status(path)) ?? nil, status.kind == .regular else { return nil }
            return Int(status.size)
        case .bytes(let bytes): return bytes.count
        }
    }

    /// Calls `body` with each batch of items and the input position of its first: up to
    /// ``ImportOptions/streamBatchItems`` items, fewer once they take
    /// ``ImportOptions/streamBatchBytes`` of input. Returns the most bytes of the input held at
    /// once.
    /// - Parameters:
    ///   - inputProgress: told the bytes read after each batch (the first pass).
    ///   - shouldContinue: asked after each batch; reading stops when it returns false.
    @discardableResult
    func forEachBatch(
        inputProgress: WorkProgressHandler? = nil, while shouldContinue: () -> Bool = { true },
        _ body: ([JSONValue], Int) throws(ImportError) -> Void
    ) throws(ImportError) -> Int {
        var (stream, close) = try input.stream(streamOptions)
        defer { close() }
        func read(upTo count: Int) throws(ImportError) -> [JSONValue] {
            do { return try stream.nextElements(upTo: count) } catch { throw Self.importError(error) }
        }
        let isArray: Bool
        do { isArray = try stream.openArray(at: options.path ?? []) } catch { throw Self.importError(error) }
        guard isArray else { throw .topLevelNotAnArray(kind: "value") }
        var batch: [JSONValue] = []
        var firstIndex = 0
        var batchStart = stream.bytesConsumed
        while true {
            let elements = try read(upTo: options.streamBatchItems - batch.count)
            batch += elements
            let isFull = batch.count >= options.streamBatchItems || stream.bytesConsumed - batchStart >= options.streamBatchBytes
            if !batch.isEmpty && (isFull || elements.isEmpty) {
                try body(batch, firstIndex)
                firstIndex += batch.count
                batch.removeAll(keepingCapacity: true)
                batchStart = stream.bytesConsumed
                if let progress = inputProgress {
                    progress(WorkProgress(task: "checking input", done: stream.bytesRead, total: inputSize, unit: .bytes))
                }
                if !shouldContinue() { return stream.highWaterBytes }
            }
            if elements.isEmpty { return stream.highWaterBytes }
        }
    }

    /// Whether the input holds an array at ``ImportOptions/path`` to stream. Whatever is wrong
    /// before the first value, the whole-input path reports as it always did.
    func findsArray() throws(ImportError) -> Bool {
        var (stream, close) = try input.stream(streamOptions)
        defer { close() }
        return (try? stream.openArray(at: options.path ?? [])) ?? false
    }

    /// A stream's failure as the import reports it.
    static func importError(_ error: JSONArrayStream.Failure) -> ImportError {
        switch error {
        case .invalidJSON(let parse): return .invalidJSON(line: parse.line, column: parse.column, reason: parse.reason)
        case .io(let system): return .store(.io(system))
        }
    }

    /// The ids of the items met so far, as 64-bit fingerprints (``FingerprintTable``: about
    /// 11 bytes an item).
    final class SeenIDs {
        var fingerprints = FingerprintTable()
    }

    /// Converts a batch of the first pass, throwing for an item whose id an earlier one has.
    func convert(_ items: [JSONValue], firstIndex: Int, checkingIDsIn seen: SeenIDs) throws(ImportError) -> ImportConversion {
        try RecordConverter.convert(items, firstIndex: firstIndex, entity: entity, schema: schema, keys: options.keys) {
            id, index throws(ImportError) in
            var hasher = Hasher()
            hasher.combine(id)
            let fingerprint = UInt64(bitPattern: Int64(hasher.finalize()))
            // Most likely the same id; a different one with the same fingerprint is told apart
            // by reading the input again up to this item.
            if seen.fingerprints.flags(of: fingerprint) != nil, let first = try position(of: id, before: index) {
                throw .duplicateItemID(id.rawValue, firstIndex: first, secondIndex: index)
            }
            seen.fingerprints.insert(fingerprint, flags: 1)
        }
    }

    /// The input position of the first item before `limit` whose id is `id`, read again from
    /// the input (every item before `limit` was converted once already).
    func position(of id: RecordID, before limit: Int) throws(ImportError) -> Int? {
        var found: Int?
        var reachedLimit = false
        _ = try forEachBatch(while: { found == nil && !reachedLimit }) { items, firstIndex throws(ImportError) in
            let count = min(items.count, limit - firstIndex)
            reachedLimit = firstIndex + items.count >= limit
            guard count > 0 else { return }
            let conversion = try RecordConverter.convert(
                Array(items[..<count]), firstIndex: firstIndex, entity: entity, schema: schema, keys: options.keys) { _, _ in }
            found = conversion.items.first { $0.id == id }?.index
        }
        return found
    }

    // MARK: The store's side

    /// The ids of the stored records in scope: every live record of the entity, kept when it
    /// matches `--scope`.
    func candidates(now: Int64) throws(ImportError) -> Set<RecordID> {
        let ids = store.index.records.liveIDs(of: entity)
        guard options.scope != nil else { return Set(ids) }
        var kept: Set<RecordID> = []
        for id in ids where try isInScope(id, state: store.index.records[RecordKey(entity: entity, id: id)], now: now) { kept.insert(id) }
        return kept
    }

    /// Whether the stored record `id`, whose state is `state`, is live and matches `--scope`.
    private func isInScope(_ id: RecordID, state: RecordState?, now: Int64) throws(ImportError) -> Bool {
        guard let state, state.isLive else { return false }
        guard let scope = options.scope else { return true }
        return scope.matches(.object(try storedDocument(RecordKey(entity: entity, id: id), state: state) ?? [:]), now: now)
    }

    /// The stored document of a live record whose state is `state`.
    private func storedDocument(_ key: RecordKey, state: RecordState?) throws(ImportError) -> [String: JSONValue]? {
        guard let state, state.isLive else { return nil }
        do { return try store.currentDocument(key, state: state).objectValue ?? [:] } catch { throw .store(error) }
    }

    // MARK: Comparing

    /// What the items of `conversion` do, as ``Importer`` decides it for an entity without
    /// links: unchanged (by content hash, else by merging), updated, inserted or withheld;
    /// every document checked against the store's limits.
    /// Each item's stored state is looked up once (in a store too large to hold its index in
    /// memory, a lookup that misses costs a search of up to three index files).
    /// - Parameter inScope: whether an item's stored record (id and state) is a candidate for
    ///   update.
    private func plan(
        _ conversion: ImportConversion, now: Int64, inScope: (RecordID, RecordState?) throws(ImportError) -> Bool
    ) throws(ImportError) -> BatchPlan {
        var plan = BatchPlan()
        plan.skipped = conversion.skipped
        var states: [RecordState?] = []
        states.reserveCapacity(conversion.items.count)
        var scoped = [Bool](repeating: false, count: conversion.items.count)
        var hashed: [Int] = []
        var storedHashes: [SHA256Digest] = []
        for (position, item) in conversion.items.enumerated() {
            let state = store.index.records[RecordKey(entity: entity, id: item.id)]
            states.append(state)
            scoped[position] = try inScope(item.id, state)
            guard scoped[position], let state, state.isLive else { continue }
            hashed.append(position)
            storedHashes.append(state.winner.contentHash)
        }
        let itemHashes = ImportDocuments.contentHashes(of: hashed.map { conversion.items[$0].members })
        var identical = [Bool](repeating: false, count: conversion.items.count)
        for (offset, position) in hashed.enumerated() where itemHashes[offset] == storedHashes[offset] {
            identical[position] = true
        }
        let operations = options.operations
        for (position, item) in conversion.items.enumerated() {
            let key = RecordKey(entity: entity, id: item.id)
            if identical[position] {
                plan.counts.unchanged += 1
                continue
            }
            let members: [String: JSONValue]
            let state = states[position]
            if scoped[position] {
                let stored = try storedDocument(key, state: state) ?? [:]
                let (merged, changed) = ImportDiffPlan.merge(
                    item.members, into: stored, record: item.id, primaryKey: schema?.entities[entity]?.primaryKey ?? "id")
                if changed.isEmpty {
                    plan.counts.unchanged += 1
                    continue
                }
                guard operations.contains(.update) else {
                    plan.withheld.updates.append(item.id)
                    continue
                }
                members = merged
            } else {
                guard operations.contains(.insert) else {
                    plan.withheld.inserts.append(item.id)
                    continue
                }
                members = item.members
            }
            try add(key, stored: state, members: members, origin: ImportOrigin(index: item.index, keyPath: ""), to: &plan)
        }
        return plan
    }

    /// Checks a put as ``Importer/finish(_:conversion:)`` does and adds it to `plan`.
    /// - Parameter stored: the record's state in the store.
    private func add(
        _ key: RecordKey, stored state: RecordState?, members: [String: JSONValue], origin: ImportOrigin, to plan: inout BatchPlan
    ) throws(ImportError) {
        let document = JSONValue.object(ImportDocuments.withoutNulls(members))
        let limits = store.options
        if let problem = ImportDocuments.problem(in: document, maximumDepth: limits.maximumDepth, maximumBytes: limits.maximumDocumentBytes) {
            throw origin.error(.invalidDocument(reason: "\(key) \(problem)"))
        }
        if let state, state.isLive {
            if SHA256.hash(document.canonicalBytes()) == state.winner.contentHash {
                plan.counts.unchanged += 1
                return
            }
            let stored = try storedDocument(key, state: state) ?? [:]
            let new = document.objectValue ?? [:]
            let changed = Set(stored.keys).union(new.keys).filter { stored[$0] != new[$0] }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            plan.changes.append(.init(kind: .update, key: key, changedKeys: changed))
            plan.counts.updated += 1
        } else {
            plan.changes.append(.init(kind: .insert, key: key, changedKeys: []))
            plan.counts.inserted += 1
        }
        plan.writes.append(.put(key, document))
    }
}
