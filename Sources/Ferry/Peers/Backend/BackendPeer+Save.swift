/// Saving what an exchange did, last: the bases first (synced), then `state.json` with the
/// stand-in's new position and the watermarks that cover them.
extension BackendPeer {
    /// Saves what this exchange pulled, when the store holds it (`acknowledged`, the stand-in's
    /// position the store has everything through, is past it), and what it pushed. A
    /// push-only sync saves only its pushes: the changes it pulled are listed again next time.
    func save(acknowledged: UInt64) throws(SyncError) {
        var standIn = state.standIn
        standIn.marks[standIn.sequence] = standIn.hash
        let start = pending.startFrontier
        var knowledge = start.knowledge
        var digests = start.digests
        func advance(_ change: Change) {
            standIn.sequence += 1
            standIn.hash = BackendState.StandIn.hash(after: standIn.hash, change)
            if change.counter > knowledge[change.origin] {
                knowledge[change.origin] = change.counter
                digests[change.origin] = change.digest
            }
        }
        let takesPulled = acknowledged >= standIn.sequence + UInt64(pending.pulled.count)
        if takesPulled {
            for change in pending.pulled { advance(change) }
            standIn.latest = max(standIn.latest, pending.latestPulled)
            for (collection, bases) in pending.pulledBases {
                let table = try baseTable(collection)
                for (backendID, pulled) in bases {
                    if let base = pulled.base { table.set(base, for: backendID) } else { table.remove(backendID) }
                }
            }
            for (collection, mark) in pending.watermarks { state.watermarks[collection] = mark }
            for (collection, mark) in pending.listedAt { state.listedAt[collection] = mark }
            for (collection, kinds) in pending.fieldKinds { state.fieldKinds[collection] = kinds }
            for (collection, count) in pending.knownCounts { state.knownCounts[collection] = count }
            // Every collection was listed (whole, where its bases lacked `updated`).
            state.updatedKnown.formUnion(pending.knownCounts.keys)
            state.differing = differingRecords()
            if !pending.pulled.isEmpty { standIn.marks[standIn.sequence] = standIn.hash }
        }
        for change in pending.pushed { advance(change) }
        try applyWrittenBases()
        for (collection, count) in pending.created { state.knownCounts[collection, default: 0] += count }
        for collection in pending.checkedWhole where takesPulled { state.latestWritten[collection] = nil }
        for (collection, written) in pending.latestWritten where state.latestWritten[collection].map({ written > $0 }) ?? true {
            state.latestWritten[collection] = written
        }
        standIn.frontier = ReplicaFrontier(knowledge: knowledge, digests: digests)
        standIn.marks[standIn.sequence] = standIn.hash
        if standIn.marks.count > BackendState.StandIn.markLimit {
            for position in standIn.marks.keys.sorted().dropLast(BackendState.StandIn.markLimit) { standIn.marks[position] = nil }
        }
        state.standIn = standIn
        state.deferred = []
        try saveState()
        pending = BackendExchange(saved: standIn, proxy: state.proxy, local: ReplicaFrontier(knowledge: VersionVector(), digests: [:]))
        pending.isSaved = true
    }

    /// Saves the bases of the records this exchange wrote (before its error is told).
    func saveWrittenBases() throws(SyncError) {
        try applyWrittenBases()
        for collection in pending.pushedBases.keys {
            let table = try baseTable(collection)
            do { try table.save(durable: true) } catch { throw .backend(error) }
        }
    }

    private func applyWrittenBases() throws(SyncError) {
        for (collection, bases) in pending.pushedBases {
            let table = try baseTable(collection)
            for (backendID, base) in bases { table.set(base, for: backendID) }
        }
    }

    /// The bases (synced), then `state.json`: not written again when it would change nothing
    /// a later sync reads (a sync that found nothing new: ``BackendState/isEquivalent(to:overlapMilliseconds:)``).
    private func saveState() throws(SyncError) {
        for entity in options.entities {
            let table = try baseTable(options.mapping.entry(for: entity).collection)
            do { try table.save(durable: true) } catch { throw .backend(error) }
        }
        try writeState()
        try rememberMapping()
    }

    /// Writes `state.json` durably, unless what it holds is equivalent.
    private func writeState() throws(SyncError) {
        if let stateOnDisk, state.isEquivalent(to: stateOnDisk, overlapMilliseconds: options.overlapMilliseconds) { return }
        do { try state.save(to: folder) } catch { throw .backend(error) }
        stateOnDisk = state
    }

    /// Keeps the mapping this sync used beside the state (`mapping.json`), so that the next
    /// `ferry sync` with this backend needs no `--entities` (see
    /// ``Store/rememberedBackendMapping(storeAt:for:)``); written only when it changed.
    private func rememberMapping() throws(SyncError) {
        let path = folder + "/" + BackendPeer.mappingFileName
        let bytes = options.mapping.jsonValue.prettyBytes()
        if let existing = try? FileSystem.readFile(path, limit: 1 << 20), existing == bytes { return }
        do { _ = try FileSystem.writeFileAtomically(path, bytes, durable: true) } catch {
            throw .backend(BackendError(.local, "\(path): \(error)"))
        }
    }

    /// Deletes outright the records of `entity` marked deleted longer than `retention` ago,
    /// at most once per retention period (or day) per collection.
    func purge(_ entity: EntityName, retention: Int64) async throws(SyncError) {
        let collection = options.mapping.entry(for: entity).collection
        guard let now = state.listedAt[collection], let nowMilliseconds = Self.milliseconds(now) else { return }
        if let last = state.purgedAt[collection].flatMap(Self.milliseconds), nowMilliseconds - last < min(retention, 86_400_000) { return }
        let cutoff = Self.earlier(now, by: retention)
        let bases = try baseTable(collection)
        var known = state.knownCounts[collection] ?? 0
        var refused = Set<String>()
        var purged = 0
        do throws(BackendError) {
            while true {
                let found = try await backend.softDeleted(in: collection, updatedBefore: cutoff, limit: 200)
                let fresh = found.filter { !refused.contains($0.backendID) }
                for record in fresh {
                    if try await backend.purge(in: collection, record: record) {
                        if try bases.base(for: record.backendID) != nil {
                            bases.remove(record.backendID)
                            known = max(0, known - 1)
                        }
                        purged += 1
                    } else {
                        refused.insert(record.backendID)  // changed meanwhile: it stays
                    }
                }
                if found.count < 200 || fresh.isEmpty { break }
            }
            try bases.save(durable: true)
        } catch { throw .backend(error) }
        state.knownCounts[collection] = known
        state.purgedAt[collection] = now
        try writeState()
        if purged > 0 {
            tally { $0.purged += purged }
            note("purged \(purged) record\(purged == 1 ? "" : "s") of \(collection) marked deleted longer than the retention period")
        }
    }
}

extension BackendPeer {
    /// The file beside a backend's state that keeps the mapping of its last sync.
    static let mappingFileName = "mapping.json"
}

extension Store {
    /// The entities and mapping of the last sync of the store at `path` with the app backend
    /// at `location` (`pocketbase+http://host:8090`), which `ferry sync` uses when it is given
    /// none; `nil` before any sync, or when the file is unreadable. The store is not opened.
    public static func rememberedBackendMapping(storeAt path: String, for location: String) -> BackendMapping? {
        let layout = StoreLayout(root: path)
        let path = layout.peerMemory(for: .backend(location: location)).backend + "/" + BackendPeer.mappingFileName
        guard let bytes = try? FileSystem.readFile(path, limit: 1 << 20) else { return nil }
        return try? BackendMapping(parsing: bytes)
    }
}
