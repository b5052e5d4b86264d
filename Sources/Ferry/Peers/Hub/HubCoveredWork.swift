/// What `ferry hub compact` checks of the changes a new snapshot covers before it signs the
/// state they make: each change's parent link to the change before it (when both were read),
/// and each origin's signature on the last of its changes, as a sync checks a pull
/// (``SealCheck``). A snapshot signed by a member is what joining replicas take on its word, so
/// it never vouches for work its origin did not sign.
///
/// ```swift
/// var work = HubCoveredWork()
/// work.note(segmentChanges, at: key)
/// try work.check(keys: book, location: hub)
/// ```
struct HubCoveredWork {
    /// What was read of one change: its digest, its parent digest (`nil` for a change without
    /// a chain) and the object it was read from.
    private struct Link {
        var digest: SHA256Digest
        var parent: SHA256Digest?
        var key: String
    }

    /// Every change read, by origin and counter (one table for the digests and the parent
    /// links: a 10k-record compaction noted each change in two nested tables, and sorted them
    /// all to check them).
    private var links: [ReplicaID: [UInt64: Link]] = [:]
    /// The last change read of each origin that has a chain (the highest counter; the first
    /// read of equal ones).
    private var last: [ReplicaID: Change] = [:]

    /// Notes `changes`, read from the hub object `key`, in order: a change read again (the same
    /// origin and counter) replaces the digest read before, and its parent link when it has one.
    mutating func note(_ changes: [Change], at key: String) {
        var index = changes.startIndex
        while index < changes.endIndex {
            // A run of one origin's changes: its table is looked up once.
            let origin = changes[index].origin
            var newest: Int?
            var table = links.removeValue(forKey: origin) ?? [:]
            while index < changes.endIndex, changes[index].origin == origin {
                let change = changes[index]
                if let chain = change.chain {
                    table[change.counter] = Link(digest: change.digest, parent: chain.parent, key: key)
                    if change.counter > newest.map({ changes[$0].counter }) ?? 0 { newest = index }
                } else {
                    table[change.counter, default: Link(digest: change.digest, parent: nil, key: key)].digest = change.digest
                }
                index += 1
            }
            links[origin] = table
            if let newest, changes[newest].counter > last[origin]?.counter ?? 0 { last[origin] = changes[newest] }
        }
    }

    /// The digest of the change of `origin` with `counter`, when it was read.
    func digest(of origin: ReplicaID, counter: UInt64) -> SHA256Digest? {
        links[origin]?[counter]?.digest
    }

    /// Checks the parent links and signatures of what was noted.
    /// - Parameters:
    ///   - keys: the keys held for replicas whose ids are not derived from their keys.
    /// - Throws: ``HubCoveredWorkError`` naming the object and the change: of several broken
    ///   links, the one of the first origin and counter in order.
    func check(keys: ReplicaKeyBook, location: String) throws(HubCoveredWorkError) {
        var first: (origin: ReplicaID, counter: UInt64, error: HubCoveredWorkError)?
        func found(_ origin: ReplicaID, _ counter: UInt64, _ error: @autoclosure () -> HubCoveredWorkError) {
            if let known = first, (known.origin, known.counter) < (origin, counter) { return }
            first = (origin, counter, error())
        }
        for (origin, table) in links {
            for (counter, link) in table {
                guard let parent = link.parent else { continue }
                if parent == .zero {
                    // Only a first change has no parent, or one of a replica whose journal
                    // began before changes had digests (its id is not made from a key).
                    if counter > 1 && origin.isKeyDerived {
                        found(origin, counter, HubCoveredWorkError("\(link.key): change \(counter) of replica \(origin.short) names no parent, and only a first change may"))
                    }
                    continue
                }
                guard counter > 1, let before = table[counter - 1]?.digest else { continue }
                if before != parent {
                    found(origin, counter, HubCoveredWorkError(
                        "\(link.key): change \(counter) of replica \(origin.short) does not follow change \(counter - 1) as read (its parent differs): "
                            + "one of them is not its replica's work; run 'ferry verify \(location)'"))
                }
            }
        }
        if let first { throw first.error }
        var verified = Set<SHA256Digest>()
        let lastChanges = last.sorted { $0.key < $1.key }.map(\.value)
        do { _ = try SealCheck.check(lastChanges, book: keys, source: location, verified: &verified) } catch {
            guard case .unsignedWork(_, let origin, let counter, let reason) = error else { throw HubCoveredWorkError(error.description) }
            let key = links[origin]?[counter]?.key ?? "a segment"
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
