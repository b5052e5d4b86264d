/// What `ferry hub compact` checks of the changes a new snapshot covers before it signs the
/// state they make: each change's parent link to the change before it (when both were read),
/// and each origin's signature on the last of its changes, as a sync checks a pull
/// (``SealCheck``). A snapshot signed by a member is what joining replicas take on its word, so
/// it never vouches for work its origin did not sign.
///
/// ```swift
/// var work = HubCoveredWork()
/// for change in segmentChanges { work.note(change, at: key) }
/// try work.check(seen: digestsByOrigin, keys: book, location: hub)
/// ```
struct HubCoveredWork {
    /// Each read change's parent digest and the object it was read from, by origin and counter.
    private var parents: [ReplicaID: [UInt64: (parent: SHA256Digest, key: String)]] = [:]
    /// The last change read of each origin (the highest counter).
    private var last: [ReplicaID: Change] = [:]

    /// Notes `change`, read from the hub object `key`.
    mutating func note(_ change: Change, at key: String) {
        guard let chain = change.chain else { return }
        parents[change.origin, default: [:]][change.counter] = (chain.parent, key)
        if change.counter > last[change.origin]?.counter ?? 0 { last[change.origin] = change }
    }

    /// Checks the parent links and signatures of what was noted.
    /// - Parameters:
    ///   - seen: the digest of every change read, by origin and counter.
    ///   - keys: the keys held for replicas whose ids are not derived from their keys.
    /// - Throws: ``HubCoveredWorkError`` naming the object and the change.
    func check(seen: [ReplicaID: [UInt64: SHA256Digest]], keys: ReplicaKeyBook, location: String) throws(HubCoveredWorkError) {
        for (origin, links) in parents.sorted(by: { $0.key < $1.key }) {
            for (counter, link) in links.sorted(by: { $0.key < $1.key }) {
                if link.parent == .zero {
                    // Only a first change has no parent, or one of a replica whose journal
                    // began before changes had digests (its id is not made from a key).
                    if counter > 1 && origin.isKeyDerived {
                        throw HubCoveredWorkError("\(link.key): change \(counter) of replica \(origin.short) names no parent, and only a first change may")
                    }
                    continue
                }
                guard counter > 1, let before = seen[origin]?[counter - 1] else { continue }
                if before != link.parent {
                    throw HubCoveredWorkError(
                        "\(link.key): change \(counter) of replica \(origin.short) does not follow change \(counter - 1) as read (its parent differs): "
                            + "one of them is not its replica's work; run 'ferry verify \(location)'")
                }
            }
        }
        var verified = Set<SHA256Digest>()
        let lastChanges = last.sorted { $0.key < $1.key }.map(\.value)
        do { _ = try SealCheck.check(lastChanges, book: keys, source: location, verified: &verified) } catch {
            guard case .unsignedWork(_, let origin, let counter, let reason) = error else { throw HubCoveredWorkError(error.description) }
            let key = parents[origin]?[counter]?.key ?? "a segment"
            throw HubCoveredWorkError(
                "\(key): the changes of replica \(origin) through \(counter) are not its signed work (\(reason)); "
                    + "someone without its key published them, and a snapshot would vouch for them")
        }
    }
}

/// Why the changes a snapshot would cover cannot be vouched for: one line.
struct HubCoveredWorkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
