/// What a snapshot's versions must satisfy, checked as they are read (one part at a time) and
/// finished once all are read: a pure value, fed by whoever reads the parts (a joining replica,
/// `hub compact` building on the snapshot, `ferry verify <hub>`).
///
/// - each version matches its digest, lies within the frontier, and (when no signed statement
///   covers the snapshot) its seal, when it carries one, is its origin's valid signature;
/// - where the snapshot holds two consecutive versions of one origin (counters n and n + 1),
///   the later one's parent is the earlier one's digest, and the frontier's digest is the one
///   the snapshot holds for that counter;
/// - the versions, in order, give the manifest's signed ``HubSnapshot/stateDigest``.
///
/// ```swift
/// var check = HubSnapshotCheck(snapshot: snapshot, checkingSeals: false)
/// for change in part { check.add(change, at: key) }
/// let problems = check.finish()    // empty when the snapshot is what its manifest states
/// ```
struct HubSnapshotCheck {
    let snapshot: HubSnapshot
    private var hasher = SHA256()
    private var count = 0
    /// Each origin's versions held: counter -> (digest, parent).
    private var chains: [ReplicaID: [UInt64: (digest: SHA256Digest, parent: SHA256Digest)]] = [:]
    /// One line per problem, naming the object and the version.
    private(set) var problems: [String] = []

    /// Whether each version's seal is checked. A snapshot whose manifest a trusted writer
    /// signed over its state digest needs no such check: the statement covers every version's
    /// digest (and a store written one put at a time seals every version: 100k checks of
    /// about 150 µs each would be most of a join).
    let checkingSeals: Bool

    init(snapshot: HubSnapshot, checkingSeals: Bool) {
        self.snapshot = snapshot
        self.checkingSeals = checkingSeals
    }

    /// Checks one version, read from the part at `key`.
    mutating func add(_ change: Change, at key: String) {
        count += 1
        let chain = change.chainOrLegacy
        hasher.update(chain.digest.bytes)
        let name = "\(key): version \(change.identity) of \(change.key)"
        guard chain.matches(change) else {
            problems.append("\(name) does not match its digest (altered)")
            return
        }
        if change.counter > snapshot.frontier.knowledge[change.origin] {
            problems.append("\(name) lies past the snapshot's frontier")
        }
        if checkingSeals, let seal = chain.seal {
            if change.origin.isKeyDerived && !change.origin.isDerived(from: seal.signer) {
                problems.append("\(name) is signed by key \(seal.signer.short)…, not the key its replica id is made from")
            } else if !seal.isValid(for: chain.digest) {
                problems.append("\(name): its signature does not check")
            }
        }
        chains[change.origin, default: [:]][change.counter] = (chain.digest, chain.parent)
    }

    /// The problems found once every version was read (those of ``add(_:at:)`` included).
    mutating func finish() -> [String] {
        let manifest = HubSnapshot.manifestKey(snapshot.id)
        if count != snapshot.changeCount {
            problems.append("\(manifest): says \(snapshot.changeCount) versions, its parts hold \(count)")
        }
        for (origin, versions) in chains.sorted(by: { $0.key < $1.key }) {
            for (counter, version) in versions.sorted(by: { $0.key < $1.key }) {
                guard counter > 1, version.parent != .zero, let before = versions[counter - 1] else { continue }
                if version.parent != before.digest {
                    problems.append(
                        "\(manifest): version \(counter) of replica \(origin.short) does not follow version \(counter - 1), which the snapshot also holds (altered)")
                }
            }
            let frontier = snapshot.frontier.knowledge[origin]
            if let held = versions[frontier], held.digest != snapshot.frontier.digests[origin] {
                problems.append("\(manifest): its frontier names change \(frontier) of replica \(origin.short) with another digest than the version it holds")
            }
        }
        if let stated = snapshot.stateDigest {
            let state = hasher.finalize()
            if state != stated {
                problems.append("\(manifest): its versions do not give the state digest its manifest states (altered after it was written)")
            }
        }
        return problems
    }
}
