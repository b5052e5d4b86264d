/// Writing the store's records to the backend, each conditional on the revision Ferry last saw.
extension BackendPeer {
    /// Writes each record `changes` touch as the store's current version of it: a create when
    /// the backend has not seen it, else an update from its base revision; deletes as the
    /// soft-delete flag. A write that meets a newer version is deferred, and a record the
    /// mapping cannot write is refused: the changes of neither are held by the backend, nor any
    /// later change of the same origin (the stand-in's frontier stays contiguous).
    public func push(_ changes: [Change], maximumSkew: UInt64, continuing mark: PeerMark?) async throws(SyncError) -> PushResult {
        guard let replica else { throw .transport("\(peerDescription): the engine did not say which replica syncs") }
        var result = PushResult()
        let before = head
        let entities = Set(options.entities)
        let localProxy: UInt64
        do { localProxy = try replica.currentKnowledge()[state.proxy] } catch { throw .store(error) }
        var keys: [RecordKey] = []
        var listed = Set<RecordKey>()
        for change in changes where entities.contains(change.key.entity) && listed.insert(change.key).inserted {
            keys.append(change.key)
        }
        // The writes leave in the backend's groups while the next ones are read from the store:
        // the first request goes out once a group is read, not once every record is.
        var refused = Set<RecordKey>()
        let (written, readFailure) = await writeInGroups(keys, replica: replica, localProxy: localProxy, refused: &refused)
        let (applied, deferred, failure) = recordOutcomes(written)
        result.applied = applied
        if readFailure != nil || failure != nil {
            // What was written is remembered before the error is told: those records' bases
            // are what the backend holds, whatever else this sync did.
            try saveWrittenBases()
            if let readFailure { throw readFailure }
            if let failure { throw .backend(failure) }
        }
        // The backend holds each change of the page but those of records it did not take and
        // what follows them from the same origin.
        var blocked = Set<ReplicaID>()
        for change in changes {
            if blocked.contains(change.origin) { continue }
            if deferred.contains(change.key) || refused.contains(change.key) || change.counter != pending.frontier.knowledge[change.origin] + 1 {
                blocked.insert(change.origin)
                continue
            }
            pending.addPushed(change, previous: state.standIn.hash)
        }
        result.deferred = deferred.sorted()
        result.refused = refused.sorted()
        if let position = mark?.decode(StoreMark.self)?.position, position == before.sequence {
            result.markAfter = PeerMark(StoreMark(head))
        }
        return result
    }

    /// Writes the records of `keys` in the backend's groups (``SyncBackend/writeGrouping``),
    /// reading each group's records from the store while the groups before it are written;
    /// the jobs written and their outcomes, in the keys' order, and the error that stopped the
    /// reading, if one did.
    ///
    /// Once a write fails (the backend went away) or a record cannot be read, no further group
    /// is sent; those in flight finish, and their outcomes are returned.
    private func writeInGroups(
        _ keys: [RecordKey], replica: any SyncReplica, localProxy: UInt64, refused: inout Set<RecordKey>
    ) async -> (written: [(PushJob, Result<BackendWriteOutcome, BackendError>)], readFailure: SyncError?) {
        typealias Written = (index: Int, jobs: [PushJob], outcomes: [Result<BackendWriteOutcome, BackendError>])
        let backend = self.backend
        var next = 0
        var readFailure: SyncError?
        var groups: [Written] = []
        await withTaskGroup(of: Written.self) { group in
            var sent = 0
            var running = 0
            var failed = false
            while true {
                while running < backend.writeGrouping.inFlight, !failed, readFailure == nil, next < keys.count {
                    let size = backend.writeGrouping.size
                    var jobs: [PushJob] = []
                    while jobs.count < size, next < keys.count {
                        do throws(SyncError) {
                            if let job = try pushJob(for: keys[next], replica: replica, localProxy: localProxy, refused: &refused) { jobs.append(job) }
                        } catch {
                            readFailure = error
                            break
                        }
                        next += 1
                    }
                    guard !jobs.isEmpty else { continue }
                    let index = sent
                    sent += 1
                    running += 1
                    let writes = jobs.map { BackendWrite(record: $0.record, base: $0.base, baseUpdated: $0.baseUpdated, clearing: $0.clearing) }
                    group.addTask { (index, jobs, await backend.write(writes)) }
                }
                guard let done = await group.next() else { break }
                running -= 1
                if done.outcomes.contains(where: { if case .failure = $0 { true } else { false } }) { failed = true }
                groups.append(done)
            }
        }
        var written: [(PushJob, Result<BackendWriteOutcome, BackendError>)] = []
        for done in groups.sorted(by: { $0.index < $1.index }) {
            for (job, outcome) in zip(done.jobs, done.outcomes) { written.append((job, outcome)) }
        }
        return (written, readFailure)
    }

    /// Takes the outcomes of writes: the base of each record written (with the backend's
    /// answer), the keys whose writes met a newer version or failed, and the first failure.
    private func recordOutcomes(
        _ written: [(PushJob, Result<BackendWriteOutcome, BackendError>)]
    ) -> (applied: Int, deferred: Set<RecordKey>, failure: BackendError?) {
        var applied = 0
        var deferred = Set<RecordKey>()
        var failure: BackendError?
        for (job, outcome) in written {
            switch outcome {
            case .success(.written(let stored)):
                if pending.latestWritten[job.record.collection].map({ stored.updated > $0 }) ?? true {
                    pending.latestWritten[job.record.collection] = stored.updated
                }
                pending.pushedBases[job.record.collection, default: [:]][job.record.backendID] = .init(
                    ferryID: job.key.id.rawValue, revision: job.record.revision, version: job.version, isDeleted: job.record.isDeleted,
                    updated: stored.updated, content: stored.contentDigest, valuesChecked: holdsWhatWasSent(stored, job))
                if job.base == nil { pending.created[job.record.collection, default: 0] += 1 }
                applied += 1
            case .success(.stale):
                deferred.insert(job.key)
            case .failure(let error):
                deferred.insert(job.key)
                if failure == nil { failure = error }
            }
        }
        return (applied, deferred, failure)
    }

    /// The write of `key`'s current version, or `nil` when the backend needs none (it has
    /// that version or a newer one, or the record is the backend's own version, or a record
    /// deleted before it ever reached the backend). A record the mapping cannot write goes to
    /// `refused`, with a note.
    private func pushJob(
        for key: RecordKey, replica: any SyncReplica, localProxy: UInt64, refused: inout Set<RecordKey>
    ) throws(SyncError) -> PushJob? {
        let entry = options.mapping.entry(for: key.entity)
        let collection = entry.collection
        let current: RecordState?
        do { current = try replica.state(of: key) } catch { throw .store(error) }
        guard let current else { return nil }
        let winner = current.winner
        if winner.identity.origin == state.proxy { return nil }  // the backend's own version
        let backendID = backend.backendID(for: key.id.rawValue)
        let base = try pushBase(collection, backendID, localProxy: localProxy)
        if base == nil && winner.isDelete { return nil }  // never reached the backend
        if let base, base.version.dominates(winner.version) { return nil }  // the backend has it or newer
        let revision = Self.revision(of: winner.identity)
        if base?.revision == revision { return nil }
        var fields: [String: JSONValue] = [:]
        var clearing: [String: JSONValue] = [:]
        if !winner.isDelete {
            let document: JSONValue?
            do { document = try replica.versions(of: key).first?.document } catch { throw .store(error) }
            do {
                fields = try entry.fields(of: document?.objectValue ?? [:], record: "\(collection)/\(backendID) (\(key))")
            } catch {
                if unwritable.insert(key).inserted { note(error.message) }
                refused.insert(key)
                return nil
            }
            // Fields this record lacks are emptied, except those that stand for no member.
            let kinds = pending.fieldKinds[collection] ?? state.fieldKinds[collection] ?? [:]
            for (name, kind) in kinds where fields[name] == nil && entry.member(forField: name) != nil {
                clearing[name] = Self.empty(kind)
            }
        }
        let record = BackendRecord(
            collection: collection, backendID: backendID, ferryID: key.id.rawValue, revision: revision, isDeleted: winner.isDelete,
            updated: "", fields: fields)
        return PushJob(key: key, record: record, base: base?.revision, baseUpdated: base?.updated, clearing: clearing, version: winner.version)
    }

    /// Whether the backend's answer to a write holds exactly the values the write sent, for a
    /// record with no difference outstanding: then a later listing of that very write (same
    /// revision, `updated` and content) needs no check against the store. Anything else is
    /// checked when the record is listed, as a record another client wrote is.
    private func holdsWhatWasSent(_ stored: BackendRecord, _ job: PushJob) -> Bool {
        guard !job.record.isDeleted, !stored.isDeleted, state.differing[job.key] == nil, pending.differing[job.key] == nil else { return false }
        return comparison(of: stored, withFields: job.record.fields, entry: options.mapping.entry(for: job.key.entity)) == .same
    }

    /// The base a write is made from: the one this exchange wrote, else the one it pulled when
    /// the store holds the change that brought it (a push-only sync does not take them), else
    /// the saved one.
    private func pushBase(_ collection: String, _ backendID: String, localProxy: UInt64) throws(SyncError) -> BackendState.Base? {
        if let written = pending.pushedBases[collection]?[backendID] { return written }
        if let pulled = pending.pulledBases[collection]?[backendID], pulled.counter <= localProxy { return pulled.base }
        let table = try baseTable(collection)
        do { return try table.base(for: backendID) } catch { throw .backend(error) }
    }

    /// One record to write.
    struct PushJob: Sendable {
        var key: RecordKey
        var record: BackendRecord
        /// The base revision; `nil` to create.
        var base: String?
        /// The base's `updated`, when known.
        var baseUpdated: String?
        var clearing: [String: JSONValue]
        var version: VersionVector
    }
}
