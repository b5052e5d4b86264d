/// Streamed imports of items that link records: see ``StreamedImport/runLinked()``.
extension StreamedImport {
    /// How an import of linked items ended.
    enum LinkedOutcome {
        /// Imported (or planned, for a dry run) a batch at a time.
        case imported(ImportReport)
        /// Nothing was written: the input must be read whole, because of `reason` (`nil` when it
        /// is one batch).
        case readWhole(reason: String?)
    }

    /// The import of an array whose items link records (the entity declares relationships), read as
    /// a stream and written a batch at a time when its batches do not depend on each other, so that
    /// its memory stays flat however long the array is.
    ///
    /// The one-batch import (``Importer``) plans the whole input at once: every item and nested
    /// record, then every link on both sides, then the deletes with their rules. Planned a batch at
    /// a time, each against the store as it was, an input gives the same result exactly when no
    /// record one batch writes is read or written by another (``ImportTouchLedger``): then the
    /// batches commute, and writing them one after another is writing them all at once. That holds
    /// for the usual shapes: items that link to stored records by id (`"company_id": 7`), items with
    /// nested children of their own (`"notes": [...]`, listed on the parent or found through the
    /// children's back-links in a ``BackLinkIndex`` shared by the batches), a nested record repeated
    /// unchanged.
    ///
    /// It runs in two passes under the store's write lock, as ``StreamedImport`` does:
    /// 1. **Check**: each batch is converted and planned (as a dry run) against the store; the
    ///    ledger checks it against the batches before it; the ids of the items are kept as 64-bit
    ///    fingerprints (a repeated one is confirmed by reading the input again up to it). Then the stored
    ///    records in scope that no item named are planned as deletes, a batch at a time. Counts,
    ///    the changes to list and the mass-deletion check come from this pass; a dry run stops here.
    /// 2. **Write**: the input is read again, and each batch is planned against the store and written
    ///    as one journal append, then the deletes.
    ///
    /// When the ledger finds a dependency (a record nested in several batches with new values, a
    /// link to a record a later batch creates, a record moved between parents in different
    /// batches), or a batch reads every record of an entity, nothing has been written: the outcome
    /// says why, and the input is read whole and imported as one batch. An input of one batch is
    /// read whole too (nothing would be gained).
    func runLinked() throws(ImportError) -> LinkedOutcome {
        let now = options.now ?? Int64(clamping: store.options.clock.milliseconds())
        var remaining = try candidates(now: now)
        var ledger = ImportTouchLedger()
        let seen = SeenIDs()
        var report = ImportReport(
            entity: entity, countsByEntity: [entity: .init()], skipped: [], missingTargets: [], changes: [], withheld: .init(),
            isDryRun: options.isDryRun, journalEntries: 0)
        var planOptions = options
        planOptions.isDryRun = true
        planOptions.maximumListedChanges = .max
        var dependency: String?
        var deferred: ImportError?
        var batches = 0
        var planned = 0
        // Each pass reads the children of derived to-manys once, for all its parts.
        var plannedBackLinks: BackLinkIndex? = BackLinkIndex(store: store)
        // How many records each part writes, in order: pass 2 skips the parts that write none.
        var writesByPart: [Int] = []

        /// Plans one part against the store, and adds it to the ledger and the report.
        func plan(_ conversion: ImportConversion, part: Importer.Part, name: String) throws(ImportError) {
            let touches = ImportTouches()
            let importer = Importer(
                store: store, schema: schema, options: planOptions, part: part, touches: touches, backLinkIndex: plannedBackLinks)
            let partReport = try importer.run(conversion)
            let outcome = ledger.add(touches, named: name)
            if let reason = outcome.dependency {
                dependency = reason
                return
            }
            if !options.isDryRun, !partReport.refusals.isEmpty {
                // A hand-edited file in the way that is not a valid record: the error it makes.
                let found: StoreStatus
                do { found = try store.handEdits(overwrittenBy: touches.writes).status } catch { throw .store(error) }
                if let problem = found.problems.first { throw .store(store.unjournaledEdit(problem)) }
            }
            var writes = 0
            for (entity, counts) in partReport.countsByEntity {
                report.countsByEntity[entity, default: .init()].add(counts)
                writes += counts.inserted + counts.updated + counts.deleted
            }
            planned += writes
            writesByPart.append(writes)
            for key in outcome.countedAgain { report.countsByEntity[key.entity, default: .init()].unchanged -= 1 }
            report.skipped += partReport.skipped
            report.missingTargets += partReport.missingTargets
            report.withheld.inserts += partReport.withheld.inserts
            report.withheld.updates += partReport.withheld.updates
            report.withheld.deletes += partReport.withheld.deletes
            if options.isDryRun {
                report.refusals += partReport.refusals
                report.handEdits += partReport.handEdits
            }
            let room = options.isDryRun ? partReport.changes.count : max(0, options.maximumListedChanges - report.changes.count)
            report.changes += partReport.changes.prefix(room)
            report.unlistedChanges += partReport.changes.count - min(room, partReport.changes.count)
        }

        /// Plans the items of one batch, unless a dependency or a problem was found before.
        func check(_ conversion: ImportConversion, firstIndex: Int) {
            guard deferred == nil, dependency == nil else { return }  // the rest of the input is still read
            if let nested = conversion.nestedOrder.first(where: { $0.entity == entity }) {
                // Whether it is named depends on the items it is met under: only the whole input says.
                dependency = "\(nested) is nested in an item of its own entity"
                return
            }
            for item in conversion.items { remaining.remove(item.id) }
            do throws(ImportError) { try plan(conversion, part: .items, name: "the items from \(firstIndex)") } catch { deferred = error }
        }

        // Pass 1: check.
        var first: (ImportConversion, Int)?
        report.inputHighWaterBytes = try forEachBatch(inputProgress: options.progress, while: { dependency == nil }) {
            items, firstIndex throws(ImportError) in
            let conversion = try convert(items, firstIndex: firstIndex, checkingIDsIn: seen)
            batches += 1
            // The first batch waits for the second: an input of one batch is read whole unplanned.
            if batches == 1 {
                first = (conversion, firstIndex)
                return
            }
            if let (conversion, firstIndex) = first {
                first = nil
                check(conversion, firstIndex: firstIndex)
            }
            check(conversion, firstIndex: firstIndex)
        }
        if batches <= 1 { return .readWhole(reason: nil) }
        if let dependency { return .readWhole(reason: dependency) }
        if let deferred { throw deferred }

        let gone = remaining.sorted()
        remaining = []
        if options.operations.contains(.delete) {
            for start in stride(from: 0, to: gone.count, by: options.streamBatchItems) {
                let ids = Array(gone[start..<min(gone.count, start + options.streamBatchItems)])
                try plan(ImportConversion(entity: entity), part: .deletes(ids), name: "the deletes")
                if let dependency { return .readWhole(reason: dependency) }
            }
        } else {
            report.withheld.deletes += gone
        }
        let importer = Importer(store: store, schema: schema, options: options)
        report.refusals.insert(contentsOf: try importer.massDeletionRefusals(report.countsByEntity, imported: entity), at: 0)
        guard !options.isDryRun else { return .imported(report) }
        plannedBackLinks = nil

        // Pass 2: write, a part at a time, each planned again against the store as the parts
        // before it left it (which, the ledger showed, is as it was for everything it touches).
        store.mergeIntervalOverride = max(1, store.options.mergeInterval / 4)
        defer { store.mergeIntervalOverride = nil }
        var writeOptions = options
        writeOptions.allowsMassDeletion = true  // checked above, on the whole count
        writeOptions.progress = nil
        var written = 0
        let writtenBackLinks = BackLinkIndex(store: store)
        func write(_ conversion: ImportConversion, part: Importer.Part) throws(ImportError) {
            let partReport: ImportReport
            do {
                partReport = try Importer(
                    store: store, schema: schema, options: writeOptions, part: part, backLinkIndex: writtenBackLinks
                ).run(conversion)
            } catch {
                guard written > 0 else { throw error }
                if case .store(let storeError) = error { throw .partiallyWritten(written: written, planned: planned, storeError) }
                throw .partiallyWritten(written: written, planned: planned, .coding(error.description))
            }
            report.journalEntries += partReport.journalEntries
            report.handEdits += partReport.handEdits
            written += partReport.countsByEntity.values.reduce(0) { $0 + $1.inserted + $1.updated + $1.deleted }
            options.progress?(WorkProgress(task: "writing", done: min(written, planned), total: planned, unit: .items("records")))
        }
        // A part that writes nothing (its items unchanged) is not planned again.
        var part = 0
        try forEachBatch { items, firstIndex throws(ImportError) in
            defer { part += 1 }
            guard part >= writesByPart.count || writesByPart[part] > 0 else { return }
            let conversion = try RecordConverter.convert(items, firstIndex: firstIndex, entity: entity, schema: schema, keys: options.keys) { _, _ in }
            try write(conversion, part: .items)
        }
        if options.operations.contains(.delete) {
            for start in stride(from: 0, to: gone.count, by: options.streamBatchItems) {
                defer { part += 1 }
                guard part >= writesByPart.count || writesByPart[part] > 0 else { continue }
                try write(ImportConversion(entity: entity), part: .deletes(Array(gone[start..<min(gone.count, start + options.streamBatchItems)])))
            }
        }
        return .imported(report)
    }
}
