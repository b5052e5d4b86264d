extension Importer {
    /// Validates every document of the batch, drops writes that would change nothing, counts
    /// per entity, and writes the rest as one journal append (unless it is a dry run).
    ///
    /// A record file the batch would replace that was edited by hand is journaled first (see
    /// ``Store/journalHandEdits(overwrittenBy:)``), and the import is planned again on its
    /// content: a link added to a hand-edited record keeps the edit.
    /// - Parameter journaledEdits: what an earlier plan journaled (see ``run(_:journaledEdits:)``).
    /// - Throws: ``ImportError/item(index:keyPath:_:)`` for a document the store would refuse
    ///   (before anything is written), ``ImportError/store(_:)`` when writing fails or a
    ///   hand-edited file in the way is not a valid record.
    func finish(_ batch: ImportBatch, conversion: ImportConversion, journaledEdits: [String] = []) throws(ImportError) -> ImportReport {
        var batch = batch
        var counts: [EntityName: ImportReport.Counts] = [:]
        // Most records are of the imported entity: counted here without hashing its name each time.
        var entityCounts = ImportReport.Counts()
        func count(_ key: RecordKey, _ add: (inout ImportReport.Counts) -> Void) {
            if key.entity == conversion.entity { add(&entityCounts) } else { add(&counts[key.entity, default: .init()]) }
        }
        var changes: [ImportReport.Change] = []
        var writes: [RecordWrite] = []
        writes.reserveCapacity(batch.order.count)
        changes.reserveCapacity(batch.order.count)
        let maximumDepth = store.options.maximumDepth
        let maximumBytes = store.options.maximumDocumentBytes
        var checking = ProgressCounter("checking", total: batch.order.count, handler: progress)
        for key in batch.order {
            checking.advance()
            guard let entry = batch.entries[key] else { continue }
            switch entry.pending {
            case .delete:
                guard batch.storedHash(of: key) != nil else { continue }
                writes.append(.delete(key))
                changes.append(.init(kind: .delete, key: key, changedKeys: []))
                count(key) { $0.deleted += 1 }
            case .put(let members):
                let document = JSONValue.object(ImportDocuments.withoutNulls(members))
                if let problem = ImportDocuments.problem(in: document, maximumDepth: maximumDepth, maximumBytes: maximumBytes) {
                    let error = ImportError.invalidDocument(reason: "\(key) \(problem)")
                    throw entry.origin.map { $0.error(error) } ?? error
                }
                if let storedHash = batch.storedHash(of: key) {
                    if SHA256.hash(document.canonicalBytes()) == storedHash {
                        count(key) { $0.unchanged += 1 }
                        continue
                    }
                    let stored = try batch.storedDocument(of: key) ?? [:]
                    let new = document.objectValue ?? [:]
                    let changed = Set(stored.keys).union(new.keys).filter { stored[$0] != new[$0] }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                    changes.append(.init(kind: .update, key: key, changedKeys: changed))
                    count(key) { $0.updated += 1 }
                } else {
                    changes.append(.init(kind: .insert, key: key, changedKeys: []))
                    count(key) { $0.inserted += 1 }
                }
                writes.append(.put(key, document))
            }
        }
        checking.finish()
        for key in batch.unchanged where batch.entries[key] == nil {
            count(key) { $0.unchanged += 1 }
        }
        counts[conversion.entity] = entityCounts
        counts[conversion.entity, default: .init()].skipped = conversion.skipped.filter { $0.keyPath.isEmpty }.count

        // A streamed import's parts are checked together, once the first pass has counted them all.
        let refusals = part == .whole ? try massDeletionRefusals(counts, imported: conversion.entity) : []

        var journalEntries = 0
        var handEdits = journaledEdits
        var refusalsAfterEdits = refusals
        if !writes.isEmpty {
            let keys = writes.map(\.key)
            if options.isDryRun {
                let found: StoreStatus
                do { found = try store.handEdits(overwrittenBy: keys).status } catch { throw .store(error) }
                handEdits += found.edits.map(\.path)
                refusalsAfterEdits += found.problems.map { store.unjournaledEdit($0).description }
            } else if journaledEdits.isEmpty {
                let edits: [StoreStatus.Edit]
                let editCheck = ProgressCounter("hand edits", total: keys.count, handler: progress)
                do { edits = try store.journalHandEdits(overwrittenBy: keys).edits } catch { throw .store(error) }
                editCheck.finish()
                if !edits.isEmpty { return try run(conversion, journaledEdits: edits.map(\.path)) }
            }
        }
        if !options.isDryRun, !writes.isEmpty {
            // Checked just above, unless this is the plan made after journaling edits: then
            // once more, for a file edited meanwhile.
            store.writeProgress = progress
            defer { store.writeProgress = nil }
            do {
                let result = try store.performLocalWrites(writes, keepingHandEdits: !journaledEdits.isEmpty)
                journalEntries = result.entries.count
                handEdits += result.journaledEdits.map(\.path)
            } catch { throw .store(error) }
        }
        var unlisted = 0
        if !options.isDryRun, changes.count > options.maximumListedChanges {
            unlisted = changes.count - options.maximumListedChanges
            changes.removeLast(unlisted)
        }
        return ImportReport(
            entity: conversion.entity, countsByEntity: counts, skipped: conversion.skipped,
            missingTargets: batch.missingTargets, changes: changes, withheld: batch.withheld,
            isDryRun: options.isDryRun, journalEntries: journalEntries, refusals: refusalsAfterEdits, unlistedChanges: unlisted,
            handEdits: handEdits)
    }

    /// A list much shorter than what is stored is most likely one page of it: refuses to
    /// delete the rest unless told to. A dry run returns the refusals instead of throwing.
    /// - Throws: ``ImportError/massDeletion(entity:deleting:of:limitPercent:)``.
    func massDeletionRefusals(_ counts: [EntityName: ImportReport.Counts], imported: EntityName) throws(ImportError) -> [String] {
        var refusals: [String] = []
        guard !options.allowsMassDeletion else { return [] }
        let ordered = counts.sorted { ($0.key == imported ? 0 : 1, $0.key) < ($1.key == imported ? 0 : 1, $1.key) }
        for (entity, entityCounts) in ordered where entityCounts.deleted > 0 {
            let total = store.index.liveCounts[entity] ?? 0
            guard Double(entityCounts.deleted) > Double(total) * options.maximumDeletionShare else { continue }
            let refusal = ImportError.massDeletion(
                entity: entity, deleting: entityCounts.deleted, of: total, limitPercent: Int((options.maximumDeletionShare * 100).rounded()))
            if !options.isDryRun { throw refusal }
            refusals.append(refusal.description)
        }
        return refusals
    }
}
