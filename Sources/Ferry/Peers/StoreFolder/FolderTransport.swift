/// Reaches a peer store in another directory (a USB stick, a network share, a cloud-drive
/// folder) by direct file access. The peer store is locked for the whole exchange.
///
/// ```swift
/// let report = try await store.sync(with: FolderTransport(path: "/media/usb/data"))
/// ```
public final class FolderTransport: SyncTransport, SnapshotSource, StateStatingSource, WriteCheck, @unchecked Sendable {
    /// What to do, on opening the peer, with hand edits of its record files.
    public enum HandEdits: Sendable {
        /// Nothing: a received change still never overwrites one without journaling it first.
        case leave
        /// Find them, for a dry run's report (``PeerInfo/handEdits``).
        case count
        /// Journal them as changes of the peer, as `ferry commit` there would.
        case commit
    }

    /// The peer store's directory.
    public let path: String
    private let options: StoreOptions
    private let handEdits: HandEdits
    private var store: Store?
    /// The state offered to a joining store, while it is read.
    private var snapshot: StoreSnapshot?
    /// The offered state once every page of it was read, for its statement.
    private var stateRead: StoreSnapshot?

    /// - Parameters:
    ///   - options: how to open the peer store (its clock, lock timeout).
    ///   - handEdits: what to do with hand edits of the peer's record files on opening it.
    public init(path: String, options: StoreOptions = StoreOptions(), handEdits: HandEdits = .leave) {
        self.path = path
        self.options = options
        self.handEdits = handEdits
    }

    public var peerDescription: String { path }

    private func peer() throws(SyncError) -> Store {
        guard let store else { throw .transport("the folder transport to \(path) is not open") }
        return store
    }

    public func open() async throws(SyncError) -> PeerInfo {
        let layout = StoreLayout(root: path)
        guard FileSystem.isDirectory(layout.root) else {
            throw .transport("peer \(path) does not exist or is not a folder (is the drive mounted?); nothing was changed")
        }
        guard FileSystem.exists(layout.manifest) else {
            throw .transport(
                "\(path) is neither a Ferry store (no ferry.json) nor a hub (no hub.json); nothing was changed; "
                    + "make it a store with 'ferry init \(path)' or a hub with 'ferry hub init \(path)'")
        }
        let store: Store
        do { store = try Store.open(at: path, options: options) } catch { throw .store(error) }
        // A store that has a journal but lost its records folder is a wiped or half-copied
        // folder: never read that as "everything was deleted".
        if store.headSequence > 0 && !FileSystem.isDirectory(layout.records) {
            store.close()
            throw .transport("peer \(path) has lost its records folder; refusing to sync with it")
        }
        do {
            if let pending = try store.snapshotJoins()?.pending {
                store.close()
                throw SyncError.joinInProgress(store: path, hub: pending.location)
            }
        } catch let error as SyncError {
            throw error
        } catch let error as StoreError {
            store.close()
            throw .store(error)
        } catch {
            store.close()
            throw .transport("\(error)")
        }
        let handEditsFound: StoreStatus?
        do {
            switch handEdits {
            case .leave: handEditsFound = nil
            case .count: handEditsFound = try store.status()
            case .commit:
                let report = try store.commit()
                handEditsFound = StoreStatus(edits: report.committed, problems: report.problems)
            }
            try store.beginExchange()
        } catch {
            store.close()
            throw .store(error)
        }
        self.store = store
        return PeerInfo(
            replica: store.replicaID, name: store.manifest.name, format: store.manifest.format, head: store.head,
            instance: store.instance, handEdits: handEditsFound, names: store.knownReplicaNames)
    }

    public func close() async {
        store?.endExchange()
        store?.close()
        store = nil
    }

    public func mayWrite() async -> Bool? { true }

    public func frontier() async throws(SyncError) -> ReplicaFrontier {
        let store = try peer()
        do { return try store.currentFrontier() } catch { throw .store(error) }
    }

    public func liveRecordCount() async throws(SyncError) -> Int {
        try peer().recordCount
    }

    public func resume(from mark: PeerMark) async throws(SyncError) -> UInt64? {
        let store = try peer()
        return try await StoreMark.resume(from: mark, head: store.head) { (position) throws(SyncError) -> SHA256Digest? in
            do throws(StoreError) { return try store.entryHash(at: position) } catch { throw .store(error) }
        }
    }

    public func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch {
        let store = try peer()
        do { return try store.changes(after: position, excluding: knowledge, limit: limit) } catch { throw .store(error) }
    }

    public func push(_ changes: [Change], maximumSkew: UInt64, continuing mark: PeerMark?) async throws(SyncError) -> PushResult {
        PushResult(try peer().receive(changes, from: "this store", maximumSkew: maximumSkew), continuing: mark)
    }

    public func saveCheckpoint(_ checkpoint: PeerCheckpoint) async throws(SyncError) {
        let store = try peer()
        do {
            try store.saveCheckpoint(checkpoint.storeCheckpoint)
            try store.learnReplicaNames(checkpoint.names)
        } catch { throw .store(error) }
    }

    // MARK: Joining from the peer's state

    public func snapshotOffer(for knowledge: VersionVector, pending: SnapshotJoins.Join?) async throws(SyncError) -> SnapshotOffer? {
        let store = try peer()
        do { snapshot = try store.snapshotOffer(for: knowledge, pending: pending, stating: false) } catch { throw .store(error) }
        stateRead = nil
        return snapshot?.offer
    }

    public func snapshotChanges(limit: Int) async throws(SyncError) -> [Change]? {
        let store = try peer()
        guard var current = snapshot else { return nil }
        let page: [Change]?
        do { page = try store.snapshotChanges(&current, limit: limit) } catch { throw .store(error) }
        snapshot = page == nil ? nil : current
        if page == nil { stateRead = current }
        return page
    }

    public func statementOfStateRead() async throws(SyncError) -> JSONValue? {
        guard let stateRead else { return nil }
        let store = try peer()
        do { return try store.statement(of: stateRead) } catch { throw .store(error) }
    }

    public var joinSource: (id: ReplicaID, location: String)? { store.map { ($0.replicaID, path) } }
}
