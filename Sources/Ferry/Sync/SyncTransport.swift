/// What the sync engine needs from every peer, however it is reached (a folder, HTTP, a hub,
/// memory), in frontier terms. The engine holds all planning and conflict logic; a peer only
/// moves changes, and says where it stands with a ``PeerMark`` of its own kind.
///
/// Nine requirements, none with a default. What only some peers can do is a protocol of its
/// own that a transport adopts, and the engine asks for: ``SnapshotSource`` (offers its state
/// to a joining store), ``WriteCheck`` (tells whether a push would be allowed),
/// ``RequestCounting`` and ``ReplicaAwarePeer`` (must know which replica syncs, as a hub does).
public protocol SyncTransport: AnyObject, Sendable {
    /// The peer as people know it: a path or a URL, for messages.
    var peerDescription: String { get }
    /// Opens the exchange (a folder peer is locked until ``close()``) and describes the peer,
    /// with its mark now.
    func open() async throws(SyncError) -> PeerInfo
    /// Ends the exchange and releases the peer.
    func close() async
    /// For each replica, the counter and digest of the latest change the peer has.
    func frontier() async throws(SyncError) -> ReplicaFrontier
    /// The peer's number of live records.
    func liveRecordCount() async throws(SyncError) -> Int
    /// Where to read on from `mark`, a mark this peer gave in an earlier exchange, as a position
    /// for ``changes(after:excluding:limit:)``; `nil` when the mark no longer holds (another
    /// kind's mark, a journal re-created or restored from a backup, a hub that went back in
    /// time): the engine then exchanges every change, as with a peer it never met.
    func resume(from mark: PeerMark) async throws(SyncError) -> UInt64?
    /// A page of the peer's changes after `position` (a position in the peer's own reading
    /// order, from ``resume(from:)``, 0 or a page's ``ChangeBatch/through``), without those in
    /// `knowledge`.
    func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch
    /// Applies changes at the peer, atomically and durably.
    /// - Parameter mark: where the engine knows the peer to stand; the result carries the mark
    ///   after the push only when the push continued it directly (nothing else was written
    ///   there in between).
    func push(_ changes: [Change], maximumSkew: UInt64, continuing mark: PeerMark?) async throws(SyncError) -> PushResult
    /// Records, at the peer, what it exchanged with this store.
    func saveCheckpoint(_ checkpoint: PeerCheckpoint) async throws(SyncError)
}

extension SyncTransport {
    /// For each replica, the counter of the latest change the peer has.
    public func knowledge() async throws(SyncError) -> VersionVector {
        try await frontier().knowledge
    }
}

/// A peer's identity and where it stands.
public struct PeerInfo: Sendable, Hashable {
    public var replica: ReplicaID
    public var name: String?
    public var format: Int64
    /// Where the peer stands now, in its own terms: the checkpoint records it, and an exchange
    /// is up to date when it is the mark recorded last and this store has not changed.
    public var mark: PeerMark
    /// Whether the peer holds no change at all (a store that is new, a hub nobody wrote to).
    public var isEmpty: Bool
    /// The highest clock stamp among the peer's changes.
    public var latestModification: HybridTimestamp
    /// How many changes a full pull reads, when the peer knows (a total for progress).
    public var changeCount: Int?
    /// Which folder the peer is, when it is one this process can see (device and inode of its
    /// root): two stores with one replica id are the same store only when this matches too.
    public var instance: String?
    /// The hand edits of the peer's record files that opening it found (and journaled, unless
    /// it was asked only to count them), with the files it could not read as records; `nil`
    /// when it did not look. The sync report counts them and lists the files.
    public var handEdits: StoreStatus?
    /// The names of replicas the peer knows (a store's own and those it heard of, every name in
    /// a hub's heads): a store keeps those it has none for, so names travel with the changes.
    public var names: [ReplicaID: String]

    public init(
        replica: ReplicaID, name: String?, format: Int64, mark: PeerMark, isEmpty: Bool, latestModification: HybridTimestamp,
        changeCount: Int? = nil, instance: String? = nil, handEdits: StoreStatus? = nil, names: [ReplicaID: String] = [:]
    ) {
        self.replica = replica
        self.name = name
        self.format = format
        self.mark = mark
        self.isEmpty = isEmpty
        self.latestModification = latestModification
        self.changeCount = changeCount
        self.instance = instance
        self.handEdits = handEdits
        self.names = names
    }

    /// A store peer, described by its journal head.
    public init(
        replica: ReplicaID, name: String?, format: Int64, head: StoreHead, instance: String? = nil, handEdits: StoreStatus? = nil,
        names: [ReplicaID: String] = [:]
    ) {
        self.init(
            replica: replica, name: name, format: format, mark: PeerMark(StoreMark(head)), isEmpty: head.sequence == 0,
            latestModification: head.latestModification, changeCount: Int(clamping: head.sequence), instance: instance,
            handEdits: handEdits, names: names)
    }

    /// Every name the peer passed on, with its own: what the syncing store learns of it.
    public var namesHeard: [ReplicaID: String] {
        var heard = names
        if let name { heard[replica] = name }
        return heard
    }
}

/// What a push did at the peer.
public struct PushResult: Sendable {
    /// Changes new to the peer, now held there.
    public var applied = 0
    /// Changes the peer had already.
    public var alreadyKnown = 0
    /// Hand edits at the peer of the pushed records, journaled there first as its own changes.
    public var committedEdits = 0
    /// The peer's mark after the push, when the push continued the mark it was given directly;
    /// `nil` when something else was written there in between (or the peer cannot tell).
    public var markAfter: PeerMark?
    /// Records a push could not write because the peer holds a newer version of them than the
    /// one the write was made from (an app backend's compare-and-set): their changes are not
    /// held by the peer. The engine pulls and pushes again (``SyncOptions/maximumRounds``),
    /// opening the peer again for each round with no ``SyncTransport/close()`` in between.
    public var deferred: [RecordKey] = []
    /// Records the peer cannot take as they are (a member an app backend's mapping cannot
    /// store): not held by the peer either, but another round would not help.
    public var refused: [RecordKey] = []

    /// Whether the peer took every change pushed.
    public var tookAll: Bool { deferred.isEmpty && refused.isEmpty }

    public init(applied: Int = 0, alreadyKnown: Int = 0, committedEdits: Int = 0, markAfter: PeerMark? = nil) {
        self.applied = applied
        self.alreadyKnown = alreadyKnown
        self.committedEdits = committedEdits
        self.markAfter = markAfter
    }

    /// A store's receive, seen as a push to it: its mark moves on when its journal's head
    /// before the push was the position `mark` names.
    public init(_ received: ReceiveResult, continuing mark: PeerMark?) {
        self.init(applied: received.applied, alreadyKnown: received.alreadyKnown, committedEdits: received.committedEdits)
        if let position = mark?.decode(StoreMark.self)?.position, position == received.headBefore {
            markAfter = PeerMark(StoreMark(position: received.headAfter, hash: received.hashAfter))
        }
    }
}

/// What the peer records of an exchange with a store: how far it holds the store's changes,
/// where it stood itself at the end, and the store's name and size.
public struct PeerCheckpoint: Sendable, Hashable {
    /// The store that synced.
    public var replica: ReplicaID
    /// Its short name (`laptop`), when it has one.
    public var replicaName: String?
    /// The store's journal position the peer has received everything through.
    public var replicaMark: StoreMark
    /// Where the peer stood at the end of the exchange, as far as this store read it; `nil`
    /// when it did not read the peer (a push-only sync that never pulled from it).
    public var peerMark: PeerMark?
    /// The store's number of live records (a hub shows it in the replica's head).
    public var recordCount: Int
    /// When the exchange finished, milliseconds since 1970.
    public var time: UInt64
    /// Every replica name the store knows, its own included: the peer keeps those it has none
    /// for (a hub in the store's head), so names travel on.
    public var names: [ReplicaID: String]

    public init(
        replica: ReplicaID, replicaName: String?, replicaMark: StoreMark, peerMark: PeerMark?, recordCount: Int, time: UInt64,
        names: [ReplicaID: String] = [:]
    ) {
        self.names = names
        self.replica = replica
        self.replicaName = replicaName
        self.replicaMark = replicaMark
        self.peerMark = peerMark
        self.recordCount = recordCount
        self.time = time
    }

    /// The checkpoint a store peer keeps of this exchange: its own journal position is in its
    /// mark (position 0 when it has none, so its side reads its changes from the start).
    public var storeCheckpoint: SyncCheckpoint {
        let own = peerMark?.decode(StoreMark.self) ?? StoreMark(position: 0, hash: .zero)
        return SyncCheckpoint(
            peer: replica, peerMark: PeerMark(replicaMark), localPosition: own.position, localHash: own.hash, time: time,
            peerName: replicaName)
    }
}
