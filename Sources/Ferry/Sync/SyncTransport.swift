/// What the sync engine needs from every peer, however it is reached (a folder, HTTP, a hub,
/// memory). The engine holds all planning and conflict logic; a transport only moves changes.
///
/// Nine requirements, none with a default. What only some peers can do is a protocol of its
/// own that a transport adopts, and the engine asks for: ``SnapshotSource`` (offers its state
/// to a joining store), ``WriteCheck`` (tells whether a push would be allowed),
/// ``RequestCounting`` and ``ReplicaAwarePeer`` (must know which replica syncs, as a hub does).
public protocol SyncTransport: AnyObject, Sendable {
    /// The peer as people know it: a path or a URL, for messages.
    var peerDescription: String { get }
    /// Opens the exchange (a folder peer is locked until ``close()``) and describes the peer.
    func open() async throws(SyncError) -> PeerInfo
    /// Ends the exchange and releases the peer.
    func close() async
    /// For each replica, the counter and digest of the latest change the peer has.
    func frontier() async throws(SyncError) -> ReplicaFrontier
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
}

extension SyncTransport {
    /// For each replica, the counter of the latest change the peer has.
    public func knowledge() async throws(SyncError) -> VersionVector {
        try await frontier().knowledge
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
