/// `ferry hub members add|remove`: a member's store appends a signed entry to the hub's list.
extension HubMembers {
    /// The hub's id, and its members list (`nil` when it has none).
    public static func load(from storage: any HubStorage) async throws(HubError) -> (hub: ReplicaID, members: HubMembers?) {
        guard let bytes = try await storage.get(HubDescriptor.key, limit: HubDescriptor.maximumByteCount)?.bytes else {
            throw .noHub(location: storage.location)
        }
        let hub = try HubDescriptor(bytes: bytes, location: storage.location).membersHub
        return (hub, try await read(from: storage, hub: hub))
    }

    /// Adds or removes `replica`, signed by `store`'s key; on a hub with no members yet, `store`
    /// first records itself. An add with no `key` takes the replica's key from its signed
    /// changes on the hub (a replica whose id is derived from its key must match it); a removal
    /// keeps the replica's segments written so far as its past work.
    /// - Returns: the list as written.
    /// - Throws: ``HubError/membersRefused(location:reason:)`` with one line why.
    public static func change(
        _ action: Action, replica: ReplicaID, key: ReplicaPublicKey?, name: String?, in storage: any HubStorage, as store: Store,
        clock: any WallClock = SystemClock()
    ) async throws(HubError) -> HubMembers {
        func refuse(_ reason: String) -> HubError { .membersRefused(location: storage.location, reason: reason) }
        let signer: ReplicaSigningKey
        do { signer = try store.signingKey() } catch { throw refuse("the store's signing key cannot be read (\(error))") }
        let (hub, read) = try await load(from: storage)
        var members = read ?? HubMembers(hub: hub)
        if members.entries.isEmpty {
            let first = members.entry(.add, replica: store.replicaID, key: signer.publicKey, name: store.replicaName, by: signer, at: clock.milliseconds())
            try members.append(first, location: storage.location)
            try await write(first, to: storage)
            if replica == store.replicaID && action == .add { return members }
        }
        guard members.member(withKey: signer.publicKey) != nil else {
            throw refuse("this store (replica \(store.replicaID)) is not a member of the hub; a member must add it first")
        }
        let entry: Entry
        switch action {
        case .add:
            if let current = members.current[replica] { throw refuse("replica \(replica) is a member already (key \(current.key.short)…)") }
            let found: ReplicaPublicKey
            if let key { found = key } else { found = try await signedKey(of: replica, in: storage) }
            if replica.isKeyDerived && !replica.isDerived(from: found) { throw refuse("key \(found.short)… is not the key of replica \(replica)") }
            entry = members.entry(.add, replica: replica, key: found, name: name, by: signer, at: clock.milliseconds())
        case .remove:
            guard let current = members.current[replica] else { throw refuse("replica \(replica) is not a member") }
            guard members.current.count > 1 else { throw refuse("replica \(replica) is the last member") }
            let segments = try await segmentCount(of: replica, in: storage)
            entry = members.entry(.remove, replica: replica, key: current.key, name: current.name, segments: segments, by: signer, at: clock.milliseconds())
        }
        try members.append(entry, location: storage.location)
        do { try await write(entry, to: storage) } catch {
            guard case .alreadyExists = error else { throw error }
            throw refuse("another member changed the list at the same time; run the command again")
        }
        return members
    }

    /// The key of `replica` as its signed changes on the hub show it: the signer of the last
    /// sealed change of its own, in its newest segment that holds one.
    static func signedKey(of replica: ReplicaID, in storage: any HubStorage) async throws(HubError) -> ReplicaPublicKey {
        let headKey = HubHead.key(of: replica)
        guard let bytes = try await storage.get(headKey, limit: HubHead.maximumByteCount)?.bytes else {
            throw .membersRefused(location: storage.location, reason: "replica \(replica) has no head on the hub to learn its key from; add it by its store's folder")
        }
        let head = try HubHead(bytes: bytes, key: headKey, expected: replica, location: storage.location)
        for segment in head.segments.reversed() {
            let key = head.key(of: segment)
            guard let fetched = try await storage.get(key, limit: HubSegment.maximumByteCount) else { continue }
            let changes = try HubSegment.decode(fetched.bytes, expected: segment, replica: replica, key: key, location: storage.location).changes
            for change in changes.reversed() where change.origin == replica {
                if let seal = change.chain?.seal, seal.isValid(for: change.digest) { return seal.signer }
            }
        }
        throw .membersRefused(location: storage.location, reason: "replica \(replica) has no signed change on the hub to learn its key from; add it by its store's folder")
    }

    /// How many segments `replica`'s head lists (0 without a head).
    static func segmentCount(of replica: ReplicaID, in storage: any HubStorage) async throws(HubError) -> UInt64 {
        let headKey = HubHead.key(of: replica)
        guard let bytes = try await storage.get(headKey, limit: HubHead.maximumByteCount)?.bytes else { return 0 }
        return UInt64(try HubHead(bytes: bytes, key: headKey, expected: replica, location: storage.location).segments.count)
    }
}
