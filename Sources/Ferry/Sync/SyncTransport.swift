/// What the sync engine needs from a peer, however it is reached (a folder, HTTP, memory).
/// The engine holds all planning and conflict logic; a transport only moves changes.
public protocol SyncTransport: AnyObject, Sendable {
    /// The peer as people know it: a path or a URL, for messages.
    var peerDescription: String { get }
    /// Opens the exchange (a folder peer is locked until ``close()``) and describes the peer.
    func open() async throws(SyncError) -> PeerInfo
    /// Ends the exchange and releases the peer.
    func close() async
    /// For each replica, the counter of the latest change the peer has.
    func knowledge() async throws(SyncError) -> VersionVector
    /// For each replica, the counter and digest of the latest change the peer has.
    func frontier() async throws(SyncError) -> ReplicaFrontier
    /// Whether this exchange may write to the peer; `nil` when the transport cannot tell.
    func mayWrite() async -> Bool?
    /// The peer's number of live records.
    func liveRecordCount() async throws(SyncError) -> Int
    /// The hash of the peer's journal entry at `sequence`; `nil` past its head.
    func entryHash(at sequence: UInt64) async throws(SyncError) -> SHA256Digest?
    /// A page of the peer's changes after `position`, without those in `knowledge`.
    func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch
    /// Applies changes at the peer, atomically and durably.
    func push(_ changes: [Change], maximumSkew: UInt64) async throws(SyncError) -> ReceiveResult
    /// Records, at the peer, what it exchanged with this store.
    func saveCheckpoint(_ checkpoint: SyncCheckpoint) async throws(SyncError)
    /// Told, before ``open()``, which replica is syncing: a hub needs it to know which of its
    /// heads is the replica's own and where to keep its cache.
    func prepare(for replica: any SyncReplica)
    /// Records, at the peer, what it exchanged with this store and how many live records the
    /// store holds now (a hub shows it in the replica's head).
    func saveCheckpoint(_ checkpoint: SyncCheckpoint, localRecordCount: Int) async throws(SyncError)
    /// A snapshot the store should take before pulling changes: when it is empty (a join), when
    /// changes it lacks were collected, or to finish `pending`, a join this peer's hub started.
    /// `nil` when the peer has none to offer or the changes suffice.
    func snapshotOffer(for knowledge: VersionVector, pending: StoreBase.Join?) async throws(SyncError) -> SnapshotOffer?
    /// The next page of the offered snapshot's record versions; `nil` after the last.
    func snapshotChanges(limit: Int) async throws(SyncError) -> [Change]?
    /// The id and location of the hub or store a joining store takes a snapshot from.
    var hubIdentity: (id: ReplicaID, location: String)? { get }
    /// Told, before ``close()``, that the exchange succeeded (a hub then notes that this
    /// replica was seen, even when there was nothing to exchange).
    func exchangeSucceeded() async
    /// What the exchange noticed without failing (a hub's segment that has not arrived yet).
    var notes: [String] { get }
    /// Requests made to the peer so far, when the transport counts them.
    var requestCount: Int? { get }
}

extension SyncTransport {
    /// Whether this exchange may write to the peer (a read-only token may not); `nil` when the
    /// transport cannot tell without writing. A dry run asks, to list the refusal a push would meet.
    public func mayWrite() async -> Bool? { nil }

    public func prepare(for replica: any SyncReplica) {}

    public func saveCheckpoint(_ checkpoint: SyncCheckpoint, localRecordCount: Int) async throws(SyncError) {
        try await saveCheckpoint(checkpoint)
    }

    public var notes: [String] { [] }

    public func exchangeSucceeded() async {}

    public func snapshotOffer(for knowledge: VersionVector, pending: StoreBase.Join?) async throws(SyncError) -> SnapshotOffer? { nil }

    public func snapshotChanges(limit: Int) async throws(SyncError) -> [Change]? { nil }

    public var hubIdentity: (id: ReplicaID, location: String)? { nil }

    public var requestCount: Int? { nil }

    /// A peer that knows no digests: its knowledge alone (no copy can be told apart by it).
    public func frontier() async throws(SyncError) -> ReplicaFrontier {
        ReplicaFrontier(knowledge: try await knowledge(), digests: [:])
    }
}

/// A peer's identity and journal head.
public struct PeerInfo: Sendable, Hashable {
    public var replica: ReplicaID
    public var name: String?
    public var format: Int64
    public var head: StoreHead
    /// Which folder the peer is, when it is one this process can see (device and inode of its
    /// root): two stores with one replica id are the same store only when this matches too.
    public var instance: String?
    /// The hand edits of the peer's record files that opening it found (and journaled, unless
    /// it was asked only to count them), with the files it could not read as records; `nil`
    /// when it did not look. The sync report counts them and lists the files.
    public var handEdits: StoreStatus?

    public init(
        replica: ReplicaID, name: String?, format: Int64, head: StoreHead, instance: String? = nil, handEdits: StoreStatus? = nil
    ) {
        self.replica = replica
        self.name = name
        self.format = format
        self.head = head
        self.instance = instance
        self.handEdits = handEdits
    }
}
