/// The decisions of one sync, apart from everything it reads and writes: the engine tells it
/// what it found (an ``Event``) and performs what it says to do next (an ``Action``), as
/// swift-nio's protocol handlers do. It checks the peer is another store, plans from this
/// store's head, the peer's mark and the checkpoint, orders the steps (frontiers, snapshot,
/// pull, resolve, push, checkpoints last), and says which marks the checkpoints record.
///
/// A value with no I/O: tests drive it directly, and a dry run is the same session performed
/// by a driver that writes nothing (``SyncEngine``).
///
/// ```swift
/// var session = SyncSession(replica: store.replicaID, instance: nil, location: store.path,
///                           peerDescription: "/media/usb/data", direction: .both, policy: .keepBoth)
/// var action = try session.handle(.opened(peerInfo, local: found))
/// while action != .finish { action = try session.handle(try await perform(action)) }
/// ```
public struct SyncSession: Sendable {
    /// Where each side's changes are read from: after the checkpoint's positions, or from the start.
    public struct Start: Sendable, Hashable {
        public var local: UInt64
        public var peer: UInt64

        public init(local: UInt64, peer: UInt64) {
            self.local = local
            self.peer = peer
        }
    }

    /// What the engine found of this store when it opened the peer.
    public struct LocalState: Sendable {
        /// This store's journal head.
        public var head: StoreHead
        /// A snapshot join that a sync began and did not finish.
        public var pendingJoin: SnapshotJoins.Join?
        /// The checkpoint for this peer, when it still holds on both sides.
        public var checkpoint: SyncCheckpoint?
        /// Where the peer reads on from the checkpoint's mark (its ``SyncTransport/resume(from:)``).
        public var peerStart: UInt64

        public init(head: StoreHead, pendingJoin: SnapshotJoins.Join? = nil, checkpoint: SyncCheckpoint? = nil, peerStart: UInt64 = 0) {
            self.head = head
            self.pendingJoin = pendingJoin
            self.checkpoint = checkpoint
            self.peerStart = peerStart
        }
    }

    /// What the checkpoints record, and which sides keep one.
    public struct Checkpoints: Sendable, Hashable {
        /// Whether this store saves its checkpoint for the peer (it read the peer).
        public var savesLocal: Bool
        /// Whether the peer saves its own (it was written to).
        public var savesPeer: Bool
        /// Where the peer stands, as far as this exchange read it and wrote to it.
        public var peerMark: PeerMark?
        /// This store's journal position the peer holds everything through: `nil` for the head
        /// now (after a push), otherwise the position the exchange started from.
        public var localPosition: UInt64?
    }

    /// What the engine does next.
    public enum Action: Sendable, Hashable {
        /// Read both frontiers, stopping a copied store before anything moves.
        case compareFrontiers(Start)
        /// Take the peer's snapshot first, when it offers one.
        case join
        /// Bring the peer's changes here: a bulk copy into an empty store, or checked pages.
        case pull(copyingAll: Bool)
        /// Settle, by the policy, the conflicts among the records the pull wrote.
        case resolve
        /// Send this store's changes the peer lacks, continuing the peer's mark.
        case push(continuing: PeerMark?)
        /// Save the checkpoints, last of all.
        case saveCheckpoints(Checkpoints)
        /// The exchange is over.
        case finish
    }

    /// What the engine found or did.
    public enum Event: Sendable {
        /// The peer is open.
        case opened(PeerInfo, local: LocalState)
        /// Both frontiers were read and agree on every change both hold.
        case frontiersCompared
        /// The snapshot step is over (taken, or none offered).
        case joined
        /// The pull is over: whether it read every change the peer holds, and whether it wrote
        /// records a resolving policy must look at.
        case pulled(readEverything: Bool, wroteRecords: Bool)
        /// The conflicts were settled.
        case resolved
        /// The push is over, with the peer's mark after it (past this store's pushes only when
        /// nothing else was written there in between), and whether the peer took every change
        /// (an app backend defers a record another client wrote meanwhile).
        case pushed(mark: PeerMark?, tookAll: Bool)
        /// The checkpoints are saved.
        case checkpointsSaved
    }

    private enum Step {
        case opening, comparing, joining, pulling, resolving, pushing, checkpointing, finished
    }

    public let replica: ReplicaID
    public let instance: String?
    public let location: String
    public let peerDescription: String
    public let direction: SyncDirection
    public let policy: ConflictPolicy

    /// The plan, once the peer is open.
    public private(set) var plan: SyncPlan?
    /// Where each side is read from.
    public private(set) var start = Start(local: 0, peer: 0)
    /// Where the peer stands, as far as the exchange has read it and written to it.
    public private(set) var peerMark: PeerMark?
    private var peer: PeerInfo?
    private var step = Step.opening

    /// A session for one sync of the replica `replica` (of the folder `instance`, at
    /// `location`) with the peer `peerDescription`.
    public init(
        replica: ReplicaID, instance: String?, location: String, peerDescription: String, direction: SyncDirection,
        policy: ConflictPolicy
    ) {
        self.replica = replica
        self.instance = instance
        self.location = location
        self.peerDescription = peerDescription
        self.direction = direction
        self.policy = policy
    }

    /// Takes what the engine found, and says what to do next.
    /// - Throws: ``SyncError`` for a peer that is this store or a copy of it, of another
    ///   format, or another source while a snapshot join is unfinished; and for an event that
    ///   does not follow the last action.
    public mutating func handle(_ event: Event) throws(SyncError) -> Action {
        switch (step, event) {
        case (.opening, .opened(let info, let local)):
            return try open(info, local: local)
        case (.comparing, .frontiersCompared):
            return direction.pulls ? advance(to: .joining, .join) : pushStep()
        case (.joining, .joined):
            return advance(to: .pulling, .pull(copyingAll: plan == .fullPull))
        case (.pulling, .pulled(let readEverything, let wroteRecords)):
            // A pull that read everything has the peer as it was when opened.
            if readEverything { peerMark = peer?.mark }
            return policy != .keepBoth && wroteRecords ? advance(to: .resolving, .resolve) : pushStep()
        case (.resolving, .resolved):
            return pushStep()
        case (.pushing, .pushed(let mark, let tookAll)):
            peerMark = mark
            return checkpointStep(peerTookAll: tookAll)
        case (.checkpointing, .checkpointsSaved):
            return advance(to: .finished, .finish)
        default:
            throw .transport("\(peerDescription): the sync was told \(event) while \(step); nothing more was done")
        }
    }

    private mutating func advance(to next: Step, _ action: Action) -> Action {
        step = next
        return action
    }

    /// The push, when the sync pushes; else the checkpoints.
    private mutating func pushStep() -> Action {
        direction.pushes ? advance(to: .pushing, .push(continuing: peerMark)) : checkpointStep()
    }

    /// The checkpoints: this store's when it read the peer, the peer's when it was written to.
    /// A push the peer did not take whole leaves this store's position where the exchange
    /// started: the next sync reads those changes again (the peer's frontier leaves out the
    /// ones it holds).
    private mutating func checkpointStep(peerTookAll: Bool = true) -> Action {
        let checkpoints = Checkpoints(
            savesLocal: direction.pulls, savesPeer: direction.pushes, peerMark: peerMark,
            localPosition: direction.pushes && peerTookAll ? nil : start.local)
        return advance(to: .checkpointing, .saveCheckpoints(checkpoints))
    }

    /// Refuses a peer that is this store (or a copy of it), or of another format. The engine
    /// asks before it locks this store; ``handle(_:)`` asks again when the peer opens.
    public func check(_ info: PeerInfo) throws(SyncError) {
        if info.replica == replica {
            if let theirs = info.instance, let ours = instance, theirs != ours {
                throw .copiedStore(local: location, peer: peerDescription)
            }
            throw .samePeer(path: peerDescription)
        }
        guard info.format == StoreManifest.currentFormat else {
            throw .store(.unsupportedFormat(info.format, path: peerDescription))
        }
    }

    /// Checks who the peer is, and plans.
    private mutating func open(_ info: PeerInfo, local: LocalState) throws(SyncError) -> Action {
        try check(info)
        if let pending = local.pendingJoin, pending.source != info.replica {
            throw .joinInProgress(store: location, hub: pending.location)
        }
        peer = info
        let plan = SyncPlanner.plan(local: local.head, peer: info, checkpoint: local.checkpoint)
        self.plan = plan
        if plan == .upToDate && local.pendingJoin == nil { return advance(to: .finished, .finish) }
        if plan == .incremental || plan == .upToDate, let checkpoint = local.checkpoint {
            start = Start(local: checkpoint.localPosition, peer: local.peerStart)
            peerMark = checkpoint.peerMark
        }
        return advance(to: .comparing, .compareFrontiers(start))
    }
}
