/// What one exchange with an app backend pulled and pushed, held until it is saved
/// (``BackendPeer/save(acknowledged:)``): the stand-in's entries after its saved position,
/// first the changes pulled, then those pushed.
struct BackendExchange {
    /// A record's base as a pull found it, and the stand-in change that brought it (0 when
    /// none did: a version Ferry wrote and the store holds).
    struct PulledBase {
        /// `nil`: the record is gone from the backend.
        var base: BackendState.Base?
        var counter: UInt64
    }

    /// Changes of the stand-in pulled from the backend, in order.
    var pulled: [Change] = []
    /// The stand-in's hash after each of them.
    var pulledHashes: [SHA256Digest] = []
    /// Per collection, by backend id: the bases the pull found.
    var pulledBases: [String: [String: PulledBase]] = [:]
    /// Per collection, what the pull moved on to (saved with the pulled changes).
    var watermarks: [String: String?] = [:]
    var listedAt: [String: String?] = [:]
    var fieldKinds: [String: [String: PocketBaseFieldKind]] = [:]
    var knownCounts: [String: Int] = [:]
    /// Records listed holding a version Ferry wrote whose fields differ from the store's, with
    /// how; and the records listed that agree (or hold another client's version).
    var differing: [RecordKey: String] = [:]
    var agreeing: Set<RecordKey> = []
    /// Changes of this store (or others it had) that the backend now holds, in the order pushed.
    var pushed: [Change] = []
    var pushedHashes: [SHA256Digest] = []
    /// Per collection, by backend id: the bases of the records written.
    var pushedBases: [String: [String: BackendState.Base]] = [:]
    /// Per collection: records created.
    var created: [String: Int] = [:]
    /// Collections listed whole this exchange (their ``BackendState/latestWritten`` starts over
    /// from what this exchange wrote).
    var checkedWhole = Set<String>()
    /// Collections whose listing brought a version of Ferry's older than the one Ferry saw there.
    var heldOlder = Set<String>()
    /// Per collection: the `updated` of the newest record written.
    var latestWritten: [String: String] = [:]
    /// Whether the backend lost records or edits it held (restored from a backup): the
    /// checkpoint's mark no longer holds, and the stand-in holds none of the store's changes,
    /// so the engine offers them all again and those the backend lacks are written again.
    private(set) var isRepairing = false
    /// The frontier the stand-in starts this exchange from (its saved one, with the stand-in
    /// replica's chain as far as the store holds it).
    private(set) var startKnowledge = VersionVector()
    private(set) var startDigests: [ReplicaID: SHA256Digest] = [:]
    /// The stand-in's frontier with what was pulled and pushed.
    private(set) var knowledge = VersionVector()
    private(set) var digests: [ReplicaID: SHA256Digest] = [:]
    /// Whether it was saved.
    var isSaved = false

    init() {}

    /// Starts from the saved stand-in; the stand-in replica's chain continues where the store
    /// holds it (a sync stopped after the store took its changes and before they were saved
    /// here left them there).
    init(saved: BackendState.StandIn, proxy: ReplicaID, local: ReplicaFrontier) {
        var knowledge = saved.frontier.knowledge
        var digests = saved.frontier.digests
        if local.knowledge[proxy] > knowledge[proxy] {
            knowledge[proxy] = local.knowledge[proxy]
            digests[proxy] = local.digests[proxy]
        }
        startKnowledge = knowledge
        startDigests = digests
        self.knowledge = knowledge
        self.digests = digests
    }

    /// Forgets every change the stand-in held but its own replica's (``isRepairing``).
    mutating func forgetHeld(except proxy: ReplicaID) {
        isRepairing = true
        startKnowledge = VersionVector()
        startDigests = [:]
        startKnowledge[proxy] = knowledge[proxy]
        startDigests[proxy] = digests[proxy]
        knowledge = startKnowledge
        digests = startDigests
    }

    var frontier: ReplicaFrontier { ReplicaFrontier(knowledge: knowledge, digests: digests) }
    var startFrontier: ReplicaFrontier { ReplicaFrontier(knowledge: startKnowledge, digests: startDigests) }

    var latestPulled: HybridTimestamp { pulled.map(\.timestamp).max() ?? .zero }

    /// Adds a pulled change after `previous` (the stand-in's hash before it).
    mutating func addPulled(_ change: Change, previous: SHA256Digest) {
        pulled.append(change)
        pulledHashes.append(BackendState.StandIn.hash(after: pulledHashes.last ?? previous, change))
        advance(past: change)
    }

    /// Adds a pushed change the backend now holds, after `previous` (the stand-in's hash
    /// before this exchange).
    mutating func addPushed(_ change: Change, previous: SHA256Digest) {
        pushed.append(change)
        pushedHashes.append(BackendState.StandIn.hash(after: pushedHashes.last ?? pulledHashes.last ?? previous, change))
        advance(past: change)
    }

    /// The next counter and parent digest of the stand-in replica's chain.
    func next(of proxy: ReplicaID) -> (counter: UInt64, parent: SHA256Digest) {
        (knowledge[proxy] + 1, digests[proxy] ?? .zero)
    }

    private mutating func advance(past change: Change) {
        if change.counter > knowledge[change.origin] {
            knowledge[change.origin] = change.counter
            digests[change.origin] = change.digest
        }
    }
}
