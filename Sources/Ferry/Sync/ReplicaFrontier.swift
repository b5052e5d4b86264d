/// What a store has of each replica's chain of changes: the counter of the latest change and
/// its digest. It decides whether an incoming change is one the store has, the next one of its
/// origin, or one that cannot be accepted.
///
/// A pure value: ``Store/receive(_:from:maximumSkew:)`` asks it about each change of a batch in
/// order, and the sync engine uses it to compare two stores' frontiers before exchanging.
///
/// ```swift
/// var frontier = ReplicaFrontier(knowledge: store.knowledge, digests: [:])
/// switch frontier.admit(change, ownReplica: store.replicaID) { case .next: … default: … }
/// ```
public struct ReplicaFrontier: Sendable, Hashable {
    /// For each replica, the counter of the latest change held.
    public private(set) var knowledge: VersionVector
    /// For each replica, the digest of that latest change, when known.
    public private(set) var digests: [ReplicaID: SHA256Digest]

    /// What to do with one incoming change.
    public enum Admission: Sendable, Equatable {
        /// The store has this change already (same identity, and at the frontier the same digest).
        case alreadyKnown
        /// The change is the next one of its origin and chains onto the one the store has.
        case next
        /// The change skips counters of its origin; `expected` is the next one the store lacks.
        case gap(expected: UInt64)
        /// The change and the store disagree about the origin's history: same identity with
        /// another digest, a parent the store never had, or a change of the store's own replica
        /// that it never made. One of the stores involved is a copy of another.
        case diverged
    }

    public init(knowledge: VersionVector, digests: [ReplicaID: SHA256Digest]) {
        self.knowledge = knowledge
        self.digests = digests
    }

    /// Classifies `change` and, when it is the origin's next change, moves the frontier past it,
    /// so a batch is checked in order.
    /// - Parameter ownReplica: the receiving store's replica: a change of it that the store
    ///   does not have is never accepted, since only this store makes them.
    public mutating func admit(_ change: Change, ownReplica: ReplicaID) -> Admission {
        let origin = change.origin
        let held = knowledge[origin]
        let heldDigest = digests[origin]
        let digest = change.digest
        if change.counter <= held {
            if change.counter == held, let heldDigest, heldDigest != digest { return .diverged }
            return .alreadyKnown
        }
        // Only this store makes changes of its own replica, and nothing descends from one it did not make.
        if origin == ownReplica || change.version[ownReplica] > knowledge[ownReplica] { return .diverged }
        guard change.counter == held + 1 else { return .gap(expected: held + 1) }
        // An all-zero parent past counter 1 only ever came from a journal started before
        // changes carried digests: never from a replica whose id is derived from its key.
        if let chain = change.chain, !chain.isLegacy(counter: change.counter) || origin.isKeyDerived {
            let expectedParent = held == 0 ? SHA256Digest.zero : heldDigest
            if let expectedParent, chain.parent != expectedParent { return .diverged }
        }
        knowledge[origin] = change.counter
        digests[origin] = digest
        return .next
    }

    /// The first replica whose latest change the two frontiers both hold at the same counter but
    /// with different digests: evidence of a copied store that no exchange of changes would show,
    /// since each side believes the other has that change.
    public func firstDivergence(from other: ReplicaFrontier) -> (origin: ReplicaID, counter: UInt64)? {
        divergences(from: other).first
    }

    /// Every replica whose latest change both frontiers hold at the same counter with different digests.
    public func divergences(from other: ReplicaFrontier) -> [(origin: ReplicaID, counter: UInt64)] {
        knowledge.sortedCounters.compactMap { origin, counter in
            guard counter > 0, other.knowledge[origin] == counter, let mine = digests[origin], let theirs = other.digests[origin],
                mine != theirs
            else { return nil }
            return (origin, counter)
        }
    }
}
