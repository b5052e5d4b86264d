/// Records Ferry saw on the backend that are gone, or older there than Ferry saw them: deletes
/// by another client, or a backend that went back in time (restored from a backup).
///
/// PocketBase keeps no trace of a record deleted outright, so a delete is seen only as a record
/// missing from the backend. A backend restored from a backup looks the same for the records
/// created since the backup, so a missing record is taken as a delete only when nothing says
/// the backend went back:
/// - a record the backend still holds in a revision other than the one Ferry last saw there,
///   which the listing since the watermark did not bring (its `updated` did not move on), or
///   brought as a version of Ferry's that the one Ferry saw there descends from: the backend
///   holds an older version of it; or
/// - a listing that finds nothing as new as the newest record Ferry wrote there (that record
///   is gone or older: the backend lost its newest writes).
///
/// When it went back, nothing missing is deleted here: the records and edits it lost are
/// written there again (``BackendExchange/forgetHeld(except:)``), and a note says so.
extension BackendPeer {
    /// Lists `entity`'s collection whole when its `count` is short of the records Ferry has
    /// seen there or the listing did not reach Ferry's newest write; then deletes here what
    /// another client deleted, or repairs a backend that went back in time.
    /// - Parameter count: the backend's answer to counting the collection.
    func checkForGoneRecords(_ entity: EntityName, reachedLatestWrite: Bool, count counted: Result<Int, BackendError>) async throws(SyncError) {
        let collection = options.mapping.entry(for: entity).collection
        let known = pending.knownCounts[collection] ?? state.knownCounts[collection] ?? 0
        let count: Int
        do { count = try counted.get() } catch { throw .backend(error) }
        pending.knownCounts[collection] = count
        guard count < known || !reachedLatestWrite || pending.heldOlder.contains(collection) else { return }
        pending.checkedWhole.insert(collection)
        let present = try await everyRecord(of: collection)
        var seen = Set<String>()
        let table = try baseTable(collection)
        do { try table.forEachBackendID { seen.insert($0) } } catch { throw .backend(error) }
        for (backendID, pulled) in pending.pulledBases[collection] ?? [:] where pulled.base != nil { seen.insert(backendID) }
        var missing: [(backendID: String, base: BackendState.Base)] = []
        var older: [(backendID: String, base: BackendState.Base, held: BackendRecord)] = []
        for backendID in seen.sorted() {
            guard let base = try pulledOrSavedBase(collection, backendID) else { continue }
            if let held = present[backendID] {
                if held.revision != base.revision { older.append((backendID, base, held)) }
            } else {
                missing.append((backendID, base))
            }
        }
        if older.isEmpty && reachedLatestWrite {
            try deleteHere(missing, of: entity)
        } else if !missing.isEmpty || !older.isEmpty {
            try repair(missing: missing, older: older, of: entity, newestHeld: present.values.map(\.updated).max())
        }
    }

    /// Deletes here the records another client deleted outright there (live ones only: one
    /// edited here since meets the delete as a conflict, and a put beats a delete).
    private func deleteHere(_ missing: [(backendID: String, base: BackendState.Base)], of entity: EntityName) throws(SyncError) {
        let collection = options.mapping.entry(for: entity).collection
        var deleted = 0
        for (backendID, base) in missing {
            var counter: UInt64 = 0
            if let key = try liveKey(of: base, entity) {
                counter = makeChange(key: key, operation: .delete, base: base.version).counter
                deleted += 1
            }
            pending.pulledBases[collection, default: [:]][backendID] = .init(base: nil, counter: counter)
        }
        if deleted > 0 {
            tally { $0.deletedOnBackend += deleted }
            note("\(deleted) record\(deleted == 1 ? "" : "s") of \(collection) deleted outright on the backend by another client")
        }
    }

    /// Takes the backend as it now is for the records it lost or holds older, deletes nothing
    /// here, and has the engine offer every change again so that those are written there again.
    private func repair(
        missing: [(backendID: String, base: BackendState.Base)], older: [(backendID: String, base: BackendState.Base, held: BackendRecord)],
        of entity: EntityName, newestHeld: String?
    ) throws(SyncError) {
        let collection = options.mapping.entry(for: entity).collection
        var lostRecords = 0
        for (backendID, base) in missing {
            if try liveKey(of: base, entity) != nil { lostRecords += 1 }
            pending.pulledBases[collection, default: [:]][backendID] = .init(base: nil, counter: 0)
        }
        for (backendID, base, held) in older {
            // What it holds is older than anything the store's version descends from: written over.
            let now = BackendState.Base(
                ferryID: base.ferryID, revision: held.revision, version: VersionVector(), isDeleted: held.isDeleted, updated: held.updated,
                content: held.contentDigest)
            pending.pulledBases[collection, default: [:]][backendID] = .init(base: now, counter: 0)
        }
        pending.forgetHeld(except: state.proxy)
        tally {
            $0.lostRecords += lostRecords
            $0.lostEdits += older.count
        }
        let since = newestHeld.map { " since \($0) (its newest record; restored from a backup?)" } ?? " (restored from a backup?)"
        note(
            "the backend at \(backend.location) lost \(lostRecords) record\(lostRecords == 1 ? "" : "s") and \(older.count) "
                + "edit\(older.count == 1 ? "" : "s") of \(collection)\(since); pushed them again")
    }

    /// The key of the live record here that `base` is the backend's copy of; `nil` when it is
    /// not live here (or its id is not a Ferry id).
    private func liveKey(of base: BackendState.Base, _ entity: EntityName) throws(SyncError) -> RecordKey? {
        guard let replica, let id = try? RecordID(base.ferryID) else { return nil }
        let key = RecordKey(entity: entity, id: id)
        let current: RecordState?
        do { current = try replica.state(of: key) } catch { throw .store(error) }
        return current?.isLive == true ? key : nil
    }

    /// Every record of `collection`, soft-deleted ones included, by backend id.
    private func everyRecord(of collection: String) async throws(SyncError) -> [String: BackendRecord] {
        var records: [String: BackendRecord] = [:]
        var cursor: ListingCursor? = nil
        while true {
            let page: BackendPage
            do {
                page = try await Self.listingPage(of: collection, since: nil, after: cursor, from: backend, limit: options.pageSize).get()
            } catch { throw .backend(error) }
            for record in page.records { records[record.backendID] = record }
            guard page.mayHaveMore, let last = page.records.last else { return records }
            cursor = ListingCursor(updated: last.updated, id: last.backendID)
        }
    }
}
