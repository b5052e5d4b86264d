/// What a snapshot's versions must satisfy, checked as they are read (a page or a part at a
/// time) and finished once all are read: a pure value, fed by whoever reads them (a replica
/// joining from a hub's snapshot or a store's state, `hub compact` building on a snapshot,
/// `ferry verify <hub>`).
///
/// - each version matches its digest, lies within the frontier, and (when no signed statement
///   covers the snapshot) its seal, when it carries one, is its origin's valid signature;
/// - where the snapshot holds two consecutive versions of one origin (counters n and n + 1),
///   the later one's parent is the earlier one's digest, and the frontier's digest is the one
///   the snapshot holds for that counter;
/// - the versions, in order, give the stated state digest (``HubSnapshot/stateDigest(of:)``).
///
/// ```swift
/// var check = SnapshotCheck(snapshot: snapshot, checkingSeals: false)
/// for change in part { check.add(change, at: key) }
/// let problems = check.finish()    // empty when the snapshot is what its manifest states
/// ```
struct SnapshotCheck {
    /// What names the snapshot in problems: a hub snapshot's manifest key, a store's state.
    let name: String
    /// The frontier the versions stand for.
    let frontier: ReplicaFrontier
    /// How many versions the snapshot says it holds.
    let changeCount: Int
    /// The state digest stated, compared by ``finish()``; `nil` when none is (then the digest
    /// of what was read is still ``stateDigest``).
    let statedDigest: SHA256Digest?
    private var hasher = SHA256()
    private var count = 0
    /// Each origin's versions held: counter -> (digest, parent).
    private var chains: [ReplicaID: [UInt64: (digest: SHA256Digest, parent: SHA256Digest)]] = [:]
    /// One line per problem, naming the object and the version.
    private(set) var problems: [String] = []
    /// The digest of the versions read, in order, once ``finish()`` was called.
    private(set) var stateDigest: SHA256Digest?

    /// Whether each version's seal is checked. A snapshot whose writer signed its state digest
    /// needs no such check: the statement covers every version's digest (and a store written
    /// one put at a time seals every version: 100k checks of about 150 µs each would be most of
    /// a join).
    let checkingSeals: Bool

    init(name: String, frontier: ReplicaFrontier, changeCount: Int, statedDigest: SHA256Digest?, checkingSeals: Bool) {
        self.name = name
        self.frontier = frontier
        self.changeCount = changeCount
        self.statedDigest = statedDigest
        self.checkingSeals = checkingSeals
    }

    /// The check of a hub snapshot, named by its manifest's key.
    init(snapshot: HubSnapshot, checkingSeals: Bool) {
        self.init(
            name: HubSnapshot.manifestKey(snapshot.id), frontier: snapshot.frontier, changeCount: snapshot.changeCount,
            statedDigest: snapshot.stateDigest, checkingSeals: checkingSeals)
    }

    /// Checks one version, read from `place` (a part's key, a peer).
    mutating func add(_ change: Change, at place: String) {
        add(change, at: place, matching: nil)
    }

    /// Checks a page of versions, in order, as ``add(_:at:)`` one at a time would: each
    /// version's digest is computed first, on every core (the canonical form and its SHA-256
    /// were a third of a join's proof, on one core).
    mutating func add(_ changes: [Change], at place: String) {
        let matching = ParallelWork.map(count: changes.count, minimumChunk: 256) { index in
            changes[index].chainOrLegacy.matches(changes[index])
        }
        for (change, matches) in zip(changes, matching) { add(change, at: place, matching: matches) }
    }

    /// Checks one version; `matching`: whether it matches its digest, when already computed.
    private mutating func add(_ change: Change, at place: String, matching: Bool?) {
        count += 1
        let chain = change.chainOrLegacy
        hasher.update(chain.digest.bytes)
        let version = "\(place): version \(change.identity) of \(change.key)"
        guard matching ?? chain.matches(change) else {
            problems.append("\(version) does not match its digest (altered)")
            return
        }
        if change.counter > frontier.knowledge[change.origin] {
            problems.append("\(version) lies past the snapshot's frontier")
        }
        if checkingSeals, let seal = chain.seal {
            if change.origin.isKeyDerived && !change.origin.isDerived(from: seal.signer) {
                problems.append("\(version) is signed by key \(seal.signer.short)…, not the key its replica id is made from")
            } else if !seal.isValid(for: chain.digest) {
                problems.append("\(version): its signature does not check")
            }
        }
        chains[change.origin, default: [:]][change.counter] = (chain.digest, chain.parent)
    }

    /// The problems found once every version was read (those of ``add(_:at:)`` included).
    mutating func finish() -> [String] {
        if count != changeCount {
            problems.append("\(name): says \(changeCount) versions, \(count) were read")
        }
        for (origin, versions) in chains.sorted(by: { $0.key < $1.key }) {
            for (counter, version) in versions.sorted(by: { $0.key < $1.key }) {
                guard counter > 1, version.parent != .zero, let before = versions[counter - 1] else { continue }
                if version.parent != before.digest {
                    problems.append(
                        "\(name): version \(counter) of replica \(origin.short) does not follow version \(counter - 1), which the snapshot also holds (altered)")
                }
            }
            let last = frontier.knowledge[origin]
            if let held = versions[last], held.digest != frontier.digests[origin] {
                problems.append("\(name): its frontier names change \(last) of replica \(origin.short) with another digest than the version it holds")
            }
        }
        let state = hasher.finalize()
        stateDigest = state
        if let statedDigest, state != statedDigest {
            problems.append("\(name): its versions do not give the state digest it states (altered after it was stated)")
        }
        return problems
    }
}
