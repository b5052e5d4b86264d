/// What the sync engine needs from the replica it runs for, the local side of a sync: a
/// ``Store`` on disk, or a ``MemoryReplica`` (so every step of the engine, pull, resolve, push
/// and checkpoint, can be exercised with no disk at all). The other side is a ``SyncTransport``.
///
/// ```swift
/// let report = try await SyncEngine(replica: MemoryReplica(name: "a"), transport: MemoryReplica(name: "b")).run()
/// ```
public protocol SyncReplica: AnyObject, Sendable {
    /// The replica's id.
    var replicaID: ReplicaID { get }
    /// Its short name (`laptop`), when it has one.
    var replicaName: String? { get }
    /// Every replica name it knows, its own included: what it passes on to its peers.
    var knownReplicaNames: [ReplicaID: String] { get }
    /// Keeps the names a peer passed on, for replicas it has no name for.
    func learnReplicaNames(_ heard: [ReplicaID: String]) throws(StoreError)
    /// Where it is, for messages: a store's path.
    var location: String { get }
    /// Which folder it is (device and inode), to tell a copy of a store folder from the
    /// original; `nil` when it is not a folder.
    var instance: String? { get }
    /// The clock it stamps changes with (a received change far ahead of it is refused).
    var wallClock: any WallClock { get }
    /// Where a transport may keep what it remembers of a peer (a hub's cache): `nil` for nowhere.
    var cacheLayout: StoreLayout? { get }
    /// Where its journal ends.
    var head: StoreHead { get }
    /// Its number of live records.
    var recordCount: Int { get }

    /// Holds the replica for one exchange, until ``endExchange()``.
    func beginExchange() throws(StoreError)
    func endExchange()
    /// A join from a hub snapshot that started and has not finished (see ``SnapshotJoins``).
    func pendingJoin() throws(StoreError) -> SnapshotJoins.Join?
    func checkpoint(for peer: ReplicaID) throws(StoreError) -> SyncCheckpoint?
    func saveCheckpoint(_ checkpoint: SyncCheckpoint) throws(StoreError)
    /// The hash of its journal entry at `sequence` (zeros for 0); `nil` past its head.
    func entryHash(at sequence: UInt64) throws(StoreError) -> SHA256Digest?
    func journalEntry(at sequence: UInt64) throws(StoreError) -> JournalEntry
    func currentFrontier() throws(StoreError) -> ReplicaFrontier
    /// Its changes after journal position `position`, without those `knowledge` holds.
    func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) throws(StoreError) -> ChangeBatch
    /// Applies a peer's changes (see ``Store/receive(_:from:maximumSkew:)``).
    func receive(_ changes: [Change], from peer: String, maximumSkew: UInt64) throws(SyncError) -> ReceiveResult
    /// Checks that `changes`, new to it and in order, are their origins' signed work (see
    /// ``SealCheck``), without applying or learning anything: a sync checks a whole pull this
    /// way before it applies any of it.
    func checkSignatures(_ changes: [Change], from source: String) throws(SyncError)
    /// The public half of its signing key, when it has one (see ``Store/publicKey()``).
    func ownPublicKey() -> ReplicaPublicKey?
    /// Whether an origin must sign its work here: its id is derived from a key, or a key is held for it.
    func requiresSignatures(from origin: ReplicaID) -> Bool
    /// Applies a page of a snapshot's versions (see ``Store/receiveSnapshot(_:from:maximumSkew:)``).
    func receiveSnapshot(_ changes: [Change], from peer: String, maximumSkew: UInt64) throws(SyncError) -> ReceiveResult
    func beginJoin(_ join: SnapshotJoins.Join) throws(StoreError)
    func finishJoin(frontier: ReplicaFrontier, records: Int) throws(StoreError)
    /// A record's current versions, winner first; `nil` for a record it never had.
    func state(of key: RecordKey) throws(StoreError) -> RecordState?
    /// Every conflicted record.
    func conflicts() throws(StoreError) -> [ConflictSummary]
    /// The documents of a record's current versions, winner first (`nil` for a delete).
    func versions(of key: RecordKey) throws(StoreError) -> [(version: RecordVersion, document: JSONValue?)]
    /// Writes a version that descends from every current version of a conflicted record.
    /// - Returns: what the write did, as far as the replica keeps it.
    @discardableResult
    func resolve(_ key: RecordKey, with document: JSONValue?) throws(StoreError) -> WriteResult
}

extension SyncReplica {
    /// For each replica, the counter of its latest change held here.
    public func currentKnowledge() throws(StoreError) -> VersionVector { try currentFrontier().knowledge }

    /// The document of the latest version in this record's history that both `a` and `b`
    /// descend from: the common ancestor for a three-way merge. `nil` when there is none.
    public func commonAncestor(of key: RecordKey, _ a: VersionVector, _ b: VersionVector) throws(StoreError) -> JSONValue? {
        guard var sequence = try state(of: key)?.lastSequence else { return nil }
        var steps = 0
        while sequence > 0 && steps < 100_000 {
            let entry = try journalEntry(at: sequence)
            let version = entry.change.version
            if a.dominates(version) && b.dominates(version) {
                return entry.change.operation.document
            }
            sequence = entry.previousSequenceOfRecord
            steps += 1
        }
        return nil
    }

    /// How many changes of `key` its journal holds (its history, walked back); `nil` for none
    /// or past 100,000.
    public func journaledChangeCount(of key: RecordKey) throws(StoreError) -> Int? {
        guard var sequence = try state(of: key)?.lastSequence else { return nil }
        var count = 0
        while sequence > 0 {
            count += 1
            guard count < 100_000 else { return nil }
            sequence = try journalEntry(at: sequence).previousSequenceOfRecord
        }
        return count
    }
}

/// A store is the replica a sync usually runs for.
extension Store: SyncReplica {
    public var replicaName: String? { manifest.name }
    public var location: String { path }
    public var wallClock: any WallClock { options.clock }
    public var cacheLayout: StoreLayout? { layout }
    public func pendingJoin() throws(StoreError) -> SnapshotJoins.Join? { try snapshotJoins()?.pending }
}

extension SyncReplica {
    /// Resolves the conflicts among `keys` by `policy`: lww writes the winner as the resolution;
    /// merge combines two puts against their common ancestor when they changed different fields;
    /// keep-both, a delete against an update, or more than two versions are left for `ferry resolve`.
    /// - Returns: how many records were resolved.
    public func resolveConflicts(among keys: Set<RecordKey>, policy: ConflictPolicy) throws(StoreError) -> Int {
        var resolved = 0
        for key in keys.sorted() {
            guard let state = try state(of: key), state.isConflicted else { continue }
            let versions = try versions(of: key)
            switch policy {
            case .keepBoth:
                continue
            case .lastWriterWins:
                try resolve(key, with: versions[0].document)
                resolved += 1
            case .merge:
                let puts = versions.filter { !$0.version.isDelete }
                guard versions.count == 2, puts.count == 2, let ours = puts[0].document, let theirs = puts[1].document else {
                    continue  // a delete against an update, or more than two: keep both
                }
                let ancestor = try commonAncestor(of: key, puts[0].version.version, puts[1].version.version)
                if let merged = ThreeWayMerge.merge(ancestor: ancestor, ours: ours, theirs: theirs) {
                    try resolve(key, with: merged)
                    resolved += 1
                }
            }
        }
        return resolved
    }
}
