/// Ties a hub snapshot to its writer's signed statement before anyone relies on it: the
/// manifest's signature checks and is by a key the reader trusts, and every part, read whole,
/// gives what the manifest states (``SnapshotCheck``).
///
/// A joining replica proves the snapshot before it journals any of it, `hub compact` before it
/// builds on it, and `ferry verify <hub>` reports what it finds.
///
/// ```swift
/// let proof = HubSnapshotProof(storage: storage)
/// switch try await proof.prove(snapshot, trusting: { members.contains($0) }) {
/// case .signed(let key): print("stated by", key.short)
/// case .unsigned: print("written before snapshots were signed: its state cannot be proven")
/// }
/// ```
public struct HubSnapshotProof: Sendable {
    let storage: any HubStorage

    /// What a proven snapshot rests on.
    enum Outcome: Sendable, Equatable {
        /// Its writer's signed statement, by this key.
        case signed(ReplicaPublicKey)
        /// Nothing: written before snapshots were signed; its parts agree with one another.
        case unsigned
    }

    /// Proves `snapshot`, reading every part.
    /// - Parameter trusted: whether a key may state a snapshot of this hub (a member's), and
    ///   if not, why (one line).
    /// - Throws: ``HubError/snapshotRefused(location:key:reason:)`` naming the first problem;
    ///   storage errors as they come.
    func prove(_ snapshot: HubSnapshot, trusted: (ReplicaPublicKey) -> String?) async throws(HubError) -> Outcome {
        try await prove(snapshot, keepingUpTo: 0, trusted: trusted).outcome
    }

    /// Proves `snapshot`, reading every part, and hands back its first parts' changes, decoded,
    /// while they take at most `budget` bytes (``Change/estimatedPageBytes``): a reader that goes
    /// on to take them (a join) then neither reads nor decodes those parts again.
    func prove(
        _ snapshot: HubSnapshot, keepingUpTo budget: Int, trusted: (ReplicaPublicKey) -> String?
    ) async throws(HubError) -> (outcome: Outcome, keptParts: [[Change]]) {
        let key = HubSnapshot.manifestKey(snapshot.id)
        func refuse(_ reason: String) -> HubError { .snapshotRefused(location: storage.location, key: key, reason: reason) }
        let outcome = try statement(of: snapshot, trusted: trusted, refuse: refuse)
        var check = SnapshotCheck(snapshot: snapshot, checkingSeals: outcome == .unsigned)
        var kept: [[Change]] = []
        var keptBytes = 0
        var keeping = budget > 0
        for part in snapshot.parts {
            let partKey = HubSnapshot.partKey(snapshot: snapshot.id, part: part)
            guard let fetched = try await storage.get(partKey, limit: HubSnapshot.maximumPartByteCount) else {
                throw .malformed(location: storage.location, key: partKey,
                    reason: "this part of the snapshot has not arrived yet, or a newer compaction replaced it; sync again")
            }
            let changes = try HubSnapshot.decodePart(fetched.bytes, expected: part, key: partKey, location: storage.location)
            check.add(changes, at: partKey)
            if keeping {
                keptBytes += changes.reduce(0) { $0 + $1.estimatedPageBytes }
                keeping = keptBytes <= budget
                if keeping { kept.append(changes) }
            }
        }
        let problems = check.finish()
        if let first = problems.first {
            throw refuse(first + (problems.count > 1 ? " (and \(problems.count - 1) more problems)" : ""))
        }
        return (outcome, kept)
    }

    /// What the manifest's signature says, refused when it is not a trusted writer's valid one.
    private func statement(
        of snapshot: HubSnapshot, trusted: (ReplicaPublicKey) -> String?, refuse: (String) -> HubError
    ) throws(HubError) -> Outcome {
        switch snapshot.signatureVerdict {
        case .unsigned:
            return .unsigned
        case .invalid(let reason):
            throw refuse("its manifest is not validly signed: \(reason)")
        case .signed(let key):
            guard snapshot.stateDigest != nil else { throw refuse("its manifest is signed but states no state digest") }
            if let distrust = trusted(key) { throw refuse("its manifest is signed by key \(key.short)…, \(distrust)") }
            return .signed(key)
        }
    }

    /// What `ferry verify <hub>` says of every snapshot of the hub: findings (problems) and
    /// notes (what cannot be proven), one line each. A snapshot is trusted when signed by the
    /// key of a replica that has a head on the hub.
    public static func verifyAll(in storage: any HubStorage) async throws(HubError) -> (findings: [String], notes: [String]) {
        var writers = Set<ReplicaID>()
        var snapshots: [HubSnapshot] = []
        var findings: [String] = []
        for object in try await storage.list(prefix: "h") {
            if object.key.hasPrefix("heads/"), object.key.hasSuffix(".json"),
                let replica = ReplicaID(String(object.key.dropFirst("heads/".count).dropLast(".json".count)))
            {
                writers.insert(replica)
            }
            guard let id = HubSnapshot.id(ofManifestKey: object.key),
                let fetched = try await storage.get(object.key, limit: HubSnapshot.maximumManifestByteCount)
            else { continue }
            do { snapshots.append(try HubSnapshot(manifest: fetched.bytes, id: id, location: storage.location)) } catch {
                findings.append("\(object.key): \(error)")
            }
        }
        let proof = HubSnapshotProof(storage: storage)
        let found = await proof.findings(of: snapshots) { key in
            writers.contains(ReplicaID(derivedFrom: key)) ? nil : "which is not the key of any replica that writes to this hub"
        }
        return (findings + found.findings, found.notes)
    }

    /// Proves each of `snapshots`: findings (problems) and notes (what cannot be proven).
    func findings(of snapshots: [HubSnapshot], trusted: (ReplicaPublicKey) -> String?) async -> (findings: [String], notes: [String]) {
        var findings: [String] = []
        var notes: [String] = []
        for snapshot in snapshots.sorted(by: { $0.id.hex < $1.id.hex }) {
            let key = HubSnapshot.manifestKey(snapshot.id)
            do {
                switch try await prove(snapshot, trusted: trusted) {
                case .unsigned:
                    notes.append("\(key): written before snapshots were signed: a replica joining from it cannot prove its state")
                case .signed(let signer):
                    notes.append("\(key): signed by key \(signer.short)…; its versions give its signed state digest")
                }
            } catch {
                if case .snapshotRefused(_, _, let reason) = error { findings.append("\(key): \(reason)") } else { findings.append("\(error)") }
            }
        }
        return (findings, notes)
    }
}
