import Foundation

/// An app backend (a ``SyncBackend``; PocketBase is ``PocketBaseBackend``) as a peer of the one
/// sync engine, so a backend sync plans, checks, resolves, pushes, checkpoints, dry-runs and
/// moves one way only as every other sync does.
///
/// ```swift
/// let peer = BackendPeer(backend: PocketBaseBackend(client: client), options: .init(entities: [note]))
/// let report = try await SyncEngine(store: laptop, transport: peer).run()
/// ```
///
/// **A stand-in replica holds the backend's changes.** Edits other clients make on the backend
/// become changes of a replica that stands for the backend in this store's journal
/// (``BackendState/proxy``), with their own clock stamps and version vectors that descend from
/// the version Ferry last saw there (the record's base), so an offline edit and a backend edit
/// meet as a conflict. The peer is that stand-in seen as a journal
/// (``BackendState/StandIn``): every change pushed to the backend and every change pulled from
/// it, in order, with a hash chain, a position and a frontier, so the engine's plan and
/// checkpoints work as for a store.
///
/// **Pull.** Opening the peer lists, for each collection, the records written since its
/// watermark less an overlap window, in (updated, id) order with keyset paging, and counts the
/// collection to notice hard deletes; what is new becomes the stand-in's next changes, which
/// ``changes(after:excluding:limit:)`` gives the engine. Watermarks and bases are saved only
/// once the store holds those changes (``saveCheckpoint(_:localRecordCount:)``, or
/// ``exchangeSucceeded()`` after a pull-only sync).
///
/// **Push.** Each record a pushed page changes is written as its current version, conditional
/// on the base revision; a write that meets a newer version is deferred
/// (``ReceiveResult/deferred``), its changes are not held by the backend, and the engine pulls
/// and pushes again. Deletes are written as the soft-delete flag.
///
/// **Purge.** After a sync, records marked deleted longer than the retention period are
/// deleted outright (``Options/purgeAfterMilliseconds``).
///
/// One sync at a time uses a peer (the engine's calls come one after another); a watch reuses
/// it, so its session is signed in once. The store's lock on the backend's folder keeps two
/// processes from syncing the same store with it at once.
public final class BackendPeer: ReplicaAwarePeer, RequestCounting, @unchecked Sendable {
    public struct Options: Sendable {
        /// The entities to sync and their collections.
        public var mapping: BackendMapping
        /// The entities to sync.
        public var entities: [EntityName] { mapping.entities }
        /// Records per listing page.
        public var pageSize = 1000
        /// How far before the watermark a pull starts again (late commits, equal stamps).
        public var overlapMilliseconds: Int64 = 2000
        /// How long a record marked deleted stays on the backend (by the backend's clock)
        /// before a sync deletes it outright; `nil` to keep them. A replica that was offline
        /// longer than this still cannot resurrect it by mistake: the record's disappearance
        /// arrives as a delete, which an edit made there meets as a conflict.
        public var purgeAfterMilliseconds: Int64? = 30 * 86_400_000
        /// The relation field that names each record's owner, where each user owns records
        /// (``PocketBaseAccess/owner(field:)``): not part of the documents; a record Ferry
        /// creates is owned by the signed-in user.
        public var ownerField: String?

        /// Each entity with the collection of the same name.
        public init(entities: [EntityName]) {
            self.mapping = BackendMapping(entities: entities)
        }

        public init(mapping: BackendMapping) {
            self.mapping = mapping
        }
    }

    /// What ``PeerAddress/makeTransport(options:httpClient:handEdits:s3:backend:)`` needs to
    /// reach an app backend: what to sync, and as whom.
    public struct Settings: Sendable {
        public var options: Options
        /// An ordinary user's (``PocketBaseCredentials/forSync(environment:)``).
        public var credentials: PocketBaseCredentials

        public init(options: Options, credentials: PocketBaseCredentials) {
            self.options = options
            self.credentials = credentials
        }
    }

    /// What the last sync did on the backend besides moving changes (also said in its notes).
    public struct Counts: Sendable, Equatable {
        /// Records another client deleted outright on the backend, found gone (deleted here
        /// unless edited here meanwhile).
        public var deletedOnBackend = 0
        /// Records marked deleted longer than the retention period, deleted outright on the backend.
        public var purged = 0
        /// Records the backend no longer had although Ferry had seen them there, with no sign of
        /// a delete (it went back in time: restored from a backup), written there again.
        public var lostRecords = 0
        /// Records the backend holds in a version older than the one Ferry had seen there
        /// (restored from a backup), written there again.
        public var lostEdits = 0
    }

    public let backend: any SyncBackend
    public let options: Options
    /// What the last sync did on the backend besides moving changes.
    public private(set) var counts = Counts()
    /// What the last sync noticed without failing: records that are not Ferry's, records the
    /// mapping cannot write, deletes and purges.
    public private(set) var notes: [String] = []

    var replica: (any SyncReplica)?
    var clock = HybridLogicalClock(wallClock: SystemClock())
    /// `.ferry/peers/<backend id>/backend` of the store that syncs.
    var folder = ""
    private var lock: FileDescriptor?
    private var connected = false
    private var requestsBefore = 0
    /// What is saved of the backend: the stand-in's position, watermarks, counts.
    var state = BackendState(location: "", proxy: .generate())
    /// The state as `state.json` holds it (read or last written); `nil` when there is none.
    var stateOnDisk: BackendState?
    private var tables: [String: BackendBaseTable] = [:]
    /// What this exchange pulled and pushed, not saved yet.
    var pending = BackendExchange()
    /// Records the mapping cannot write (noted once per sync).
    var unwritable = Set<RecordKey>()

    public init(backend: any SyncBackend, options: Options) {
        self.backend = backend
        self.options = options
    }

    /// The backend's location (`pocketbase+http://127.0.0.1:8090`).
    public var peerDescription: String { backend.location }

    /// Requests sent to the backend since the sync began (all its rounds).
    public var requestCount: Int { backend.requestCount - requestsBefore }

    /// Told which store syncs: its memory of the backend, its clock, its records.
    public func prepare(for replica: any SyncReplica) {
        self.replica = replica
        clock = HybridLogicalClock(wallClock: replica.wallClock, latest: replica.head.latestModification)
        counts = Counts()
        notes = []
        unwritable = []
        requestsBefore = backend.requestCount
    }

    /// Signs in (once per peer), takes the backend's lock in the store, reads what the store
    /// remembers of it, and lists what changed there since (see ``pullAll(local:)``).
    public func open() async throws(SyncError) -> PeerInfo {
        guard let replica else { throw .transport("\(peerDescription): the engine did not say which replica syncs") }
        guard let layout = replica.cacheLayout else {
            throw .transport("\(peerDescription): an app backend syncs with a store on disk, which keeps what it saw there")
        }
        folder = layout.peerMemory(for: .backend(location: backend.location)).backend
        do throws(BackendError) {
            if !connected {
                try await backend.connect()
                connected = true
            }
            // Held across the rounds of one sync: the engine opens the peer again for each, and
            // a lock let go and taken again could meet a copy of its descriptor that a process
            // being spawned holds for a moment.
            if lock == nil { lock = try lockFolder(store: replica.location) }
            stateOnDisk = try BackendState.loadSaved(from: folder, location: backend.location)
            state = stateOnDisk ?? BackendState(location: backend.location, proxy: .generate())
        } catch {
            throw .backend(error)
        }
        do throws(SyncError) {
            tables = [:]
            let local: ReplicaFrontier
            do { local = try replica.currentFrontier() } catch { throw .store(error) }
            if local.knowledge[state.proxy] < state.standIn.frontier.knowledge[state.proxy] {
                throw .backend(
                    BackendError(
                        .local,
                        "\(replica.location) holds fewer of \(backend.location)'s changes than \(folder) remembers "
                            + "(a store restored from a backup?); move that folder away to start over with this backend"))
            }
            pending = BackendExchange(saved: state.standIn, proxy: state.proxy, local: local)
            try await pullAll(local: local)
        } catch {
            // A peer that fails to open is not closed by the engine: the lock goes now.
            await close()
            throw error
        }
        return PeerInfo(replica: state.proxy, name: standInName, format: StoreManifest.currentFormat, head: head)
    }

    /// The name the backend's stand-in replica goes by in `ferry log`: its kind and where it
    /// is, `pocketbase@127.0.0.1:8090` for `pocketbase+http://127.0.0.1:8090`.
    public var standInName: String {
        let location = backend.location
        guard let range = location.range(of: "://") else { return String(location.prefix(ReplicaNameBook.longestName)) }
        let kind = location[..<range.lowerBound].split(separator: "+").first.map(String.init) ?? "backend"
        var place = location[range.upperBound...]
        while place.hasSuffix("/") { place = place.dropLast() }
        return String((kind + "@" + place).prefix(ReplicaNameBook.longestName))
    }

    /// Releases the backend's lock in the store, and forgets what was not saved.
    public func close() async {
        lock?.close()
        lock = nil
        pending = BackendExchange()
    }

    /// The stand-in's position: what was saved, then what this exchange pulled and pushed.
    var head: StoreHead {
        StoreHead(
            sequence: state.standIn.sequence + UInt64(pending.pulled.count + pending.pushed.count),
            hash: pending.pushedHashes.last ?? pending.pulledHashes.last ?? state.standIn.hash,
            latestModification: max(state.standIn.latest, pending.latestPulled))
    }

    /// For each replica, the latest change the backend holds (contiguously), with what this
    /// exchange pulled and pushed.
    public func frontier() async throws(SyncError) -> ReplicaFrontier {
        pending.frontier
    }

    /// The records of the synced collections that are on the backend and not marked deleted,
    /// as far as Ferry has seen them.
    public func liveRecordCount() async throws(SyncError) -> Int {
        var live = 0
        for entity in options.entities {
            let collection = options.mapping.entry(for: entity).collection
            let table = try baseTable(collection)
            var ids = Set<String>()
            do { try table.forEachBackendID { ids.insert($0) } } catch { throw .backend(error) }
            ids.formUnion(pending.pulledBases[collection, default: [:]].keys)
            for id in ids {
                let base: BackendState.Base?
                if let pulled = pending.pulledBases[collection]?[id] {
                    base = pulled.base
                } else {
                    do { base = try table.base(for: id) } catch { throw .backend(error) }
                }
                if let base, !base.isDeleted { live += 1 }
            }
        }
        return live
    }

    /// The stand-in's hash at `sequence`: its saved position, one this exchange added, or one
    /// of the recent positions kept (``BackendState/StandIn/marks``); `nil` for any other.
    func entryHash(at sequence: UInt64) -> SHA256Digest? {
        let saved = state.standIn
        if sequence == 0 { return .zero }
        if sequence == saved.sequence { return saved.hash }
        if sequence > saved.sequence {
            let index = Int(sequence - saved.sequence) - 1
            let hashes = pending.pulledHashes + pending.pushedHashes
            return index < hashes.count ? hashes[index] : nil
        }
        // An older position a checkpoint may name; one not kept makes the checkpoint not hold.
        return saved.marks[sequence]
    }

    /// Reads on from the stand-in's position in `mark`, when the stand-in's hash there is the
    /// mark's (a position this exchange added, the saved one, or a recent one kept).
    /// A backend that lost what it held (``BackendExchange/isRepairing``) holds no mark.
    public func resume(from mark: PeerMark) async throws(SyncError) -> UInt64? {
        if pending.isRepairing { return nil }
        return try await StoreMark.resume(from: mark, head: head) { (position) throws(SyncError) in entryHash(at: position) }
    }

    /// The changes pulled in this exchange after `position` (the stand-in's saved changes are
    /// in the store already, and those it pushes are the store's own).
    public func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch {
        let first = state.standIn.sequence
        let end = head.sequence
        var batch = ChangeBatch(changes: [], through: min(max(position, first), end), head: end)
        var index = Int(batch.through - first)
        while index < pending.pulled.count && batch.changes.count < limit {
            let change = pending.pulled[index]
            index += 1
            batch.through = first + UInt64(index)
            if change.counter > knowledge[change.origin] {
                batch.changes.append(change)
                batch.sequences.append(batch.through)
            }
        }
        if index >= pending.pulled.count { batch.through = end }
        return batch
    }

    /// Saves what this exchange pulled (when the store acknowledged it: the checkpoint's mark
    /// of the stand-in is past it) and pushed.
    public func saveCheckpoint(_ checkpoint: PeerCheckpoint) async throws(SyncError) {
        try save(acknowledged: checkpoint.peerMark?.decode(StoreMark.self)?.position ?? 0)
    }

    /// After a sync that saved no checkpoint here (pull-only, or up to date), saves what it
    /// pulled; then purges what was deleted long ago.
    public func exchangeSucceeded() async throws(SyncError) {
        if !pending.isSaved { try save(acknowledged: head.sequence) }
        guard let retention = options.purgeAfterMilliseconds else { return }
        for entity in options.entities { try await purge(entity, retention: retention) }
    }

    /// Adds a note once.
    func note(_ text: String) {
        if !notes.contains(text) { notes.append(text) }
    }

    func tally(_ change: (inout Counts) -> Void) {
        change(&counts)
    }

    /// The bases of `collection`, opened once per exchange.
    func baseTable(_ collection: String) throws(SyncError) -> BackendBaseTable {
        if let table = tables[collection] { return table }
        do {
            let table = try BackendState.bases(in: folder, collection: collection)
            tables[collection] = table
            return table
        } catch { throw .backend(error) }
    }

    private func lockFolder(store: String) throws(BackendError) -> FileDescriptor {
        do {
            // New folders are synced: state.json, written durably inside, must not lose its folder.
            for created in try FileSystem.createDirectories(folder) {
                try FileSystem.synchronizeDirectory(FileSystem.parentPath(of: created))
            }
            let descriptor = try FileDescriptor.open(folder + "/lock", .readWrite, options: [.create], permissions: 0o644)
            guard try descriptor.lockExclusively(wait: false) else {
                descriptor.close()
                throw BackendError(.local, "\(store): another sync with \(backend.location) is running")
            }
            return descriptor
        } catch let error as BackendError {
            throw error
        } catch {
            throw BackendError(.local, "\(folder)/lock: \(error)")
        }
    }
}
