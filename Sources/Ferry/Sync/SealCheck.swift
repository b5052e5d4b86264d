/// Checks that received changes are their origins' signed work, before any is applied.
///
/// A replica signs the last change of each batch it writes (see ``ChangeSeal``), and each
/// change names its parent's digest, so the signature on an origin's last change among those
/// received vouches for all of them once their chain is checked (``ReplicaFrontier``). The
/// check needs one signature an origin, whatever the number of changes.
///
/// An origin must sign when its id is derived from a key (``ReplicaID/isKeyDerived``), when the
/// receiver holds a key for it (``ReplicaKeyBook``), or when any of its received changes is
/// signed. An origin that never signed (made before changes were signed) is taken as before;
/// `ferry verify` says its work cannot be proven.
enum SealCheck {
    /// Checks `changes` (new to the receiver, in order, chains checked) and returns the keys
    /// learned: those of replicas with ids not derived from keys, signing for the first time.
    /// - Parameter verified: digests of signed changes already checked in this process, which
    ///   are not checked again (the sync engine checks a pull as a whole, then the store checks
    ///   each page it applies); the ones checked now are added.
    /// - Throws: ``SyncError/unsignedWork(source:origin:counter:reason:)`` naming the replica
    ///   and the change.
    static func check(
        _ changes: some Collection<Change>, book: ReplicaKeyBook, source: String, verified: inout Set<SHA256Digest>
    ) throws(SyncError) -> [ReplicaID: ReplicaPublicKey] {
        var last: [ReplicaID: Change] = [:]
        var signing = Set<ReplicaID>()
        for change in changes {
            last[change.origin] = change
            if change.chain?.seal != nil { signing.insert(change.origin) }
        }
        var learned: [ReplicaID: ReplicaPublicKey] = [:]
        for (origin, change) in last.sorted(by: { $0.key < $1.key }) {
            let held = book[origin]
            guard origin.isKeyDerived || held != nil || signing.contains(origin) else { continue }
            func refuse(_ reason: String) -> SyncError {
                .unsignedWork(source: source, origin: origin, counter: change.counter, reason: reason)
            }
            guard let seal = change.chain?.seal else {
                throw refuse("change \(change.counter), the last of them, carries no signature")
            }
            if origin.isKeyDerived {
                guard origin.isDerived(from: seal.signer) else {
                    throw refuse("change \(change.counter) is signed by key \(seal.signer.short)…, not the key its replica id is made from")
                }
            } else if let held {
                guard held == seal.signer else {
                    throw refuse("change \(change.counter) is signed by key \(seal.signer.short)…, not by \(held.short)…, the key held for that replica")
                }
            } else {
                learned[origin] = seal.signer
            }
            let digest = change.digest
            if verified.contains(digest) { continue }
            guard seal.isValid(for: digest) else { throw refuse("the signature of change \(change.counter) does not check") }
            if verified.count >= 100_000 { verified.removeAll(keepingCapacity: true) }
            verified.insert(digest)
        }
        return learned
    }

    /// The error for `change`, a change of the receiver's own replica that it does not hold:
    /// a copied store folder when the receiver's own key signed it (a copy carries the key),
    /// else someone else's work under the receiver's identity.
    /// - Parameters:
    ///   - changes: the changes it came with (a copy's own changes end with a signed one).
    ///   - ownKey: the receiver's public key; `nil` when it has none yet.
    static func ownReplicaRefusal(
        _ change: Change, among changes: some Collection<Change>, ownKey: ReplicaPublicKey?, store: String, source: String
    ) -> SyncError {
        let seals = changes.filter { $0.origin == change.origin && $0.counter >= change.counter }.compactMap { other in
            other.chain?.seal.map { (other, $0) }
        }
        if let ownKey, seals.contains(where: { $0.1.signer == ownKey && $0.1.isValid(for: $0.0.digest) }) {
            return .divergedReplica(origin: change.origin, counter: change.counter, local: store, peer: source, copy: store)
        }
        let reason: String
        if let (signed, seal) = seals.last {
            reason = seal.signer == ownKey
                ? "signed with a signature that does not check (change \(signed.counter))"
                : "signed by another key (\(seal.signer.short)…)"
        } else {
            reason = "not signed"
        }
        return .impersonated(store: store, source: source, counter: change.counter, reason: reason)
    }
}
