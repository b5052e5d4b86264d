/// Creating and inspecting hubs (`ferry hub init`, `ferry hub status`); syncing with one is
/// ``HubTransport``'s job.
///
/// ```swift
/// let storage = FolderHubStorage(root: "/Users/me/Dropbox/notes-hub")
/// let descriptor = try await Hub.create(in: storage)
/// let status = try await Hub.status(of: storage)
/// ```
public enum Hub {
    /// Makes `storage` a new, empty hub. A folder that does not exist yet is created. The first
    /// replica that writes to it records itself as its first member, and a member admits the
    /// others; with `openToAnyWriter` (`ferry hub init --open`) any replica that can write to
    /// the location may write to the hub, until a member list is started.
    /// - Throws: ``HubError/alreadyExists(location:)`` when it is a hub already,
    ///   ``HubError/notEmpty(location:example:)`` when it holds anything else.
    @discardableResult
    public static func create(in storage: any HubStorage, openToAnyWriter: Bool = false, clock: any WallClock = SystemClock()) async throws(HubError) -> HubDescriptor {
        try await create(in: storage, founder: nil, openToAnyWriter: openToAnyWriter, clock: clock)
    }

    /// Makes `storage` a new, empty hub; with a `founder`, that store is recorded as the hub's
    /// first member (its key), so the hub admits no other writer until a member adds it.
    /// - Throws: as ``create(in:openToAnyWriter:clock:)``; ``HubError/locked(location:reason:)``
    ///   when the founder's signing key cannot be read.
    @discardableResult
    public static func create(
        in storage: any HubStorage, founder: Store?, openToAnyWriter: Bool = false, clock: any WallClock = SystemClock()
    ) async throws(HubError) -> HubDescriptor {
        let base = (storage as? SealedHubStorage)?.base ?? storage
        try await requireEmpty(base)
        let descriptor = HubDescriptor(created: clock.milliseconds(), isOpenToAnyWriter: openToAnyWriter && founder == nil)
        if let founder {
            let signer: ReplicaSigningKey
            do { signer = try founder.signingKey() } catch { throw .locked(location: base.location, reason: "the store's signing key cannot be read (\(error))") }
            try await recordFounder(founder, signer: signer, hub: descriptor.id, in: base, clock: clock)
        }
        try await putDescriptor(descriptor, in: base)
        return descriptor
    }

    /// Gives the hub at `storage` a new id: for a copy of a hub (a folder copied with `cp -r`, a
    /// prefix copied with `aws s3 sync`) that is to be used beside the original. Its heads,
    /// segments and snapshots stay; replicas that synced it under the old id exchange every
    /// change with it once, as with a hub they never met. Only `hub.json` is rewritten (the one
    /// time it is).
    /// - Returns: the old and the new descriptor.
    /// - Throws: ``HubError/noHub(location:)`` when there is no hub there.
    @discardableResult
    public static func reidentify(_ storage: any HubStorage) async throws(HubError) -> (old: HubDescriptor, new: HubDescriptor) {
        guard let bytes = try await storage.get(HubDescriptor.key, limit: HubDescriptor.maximumByteCount)?.bytes else { throw .noHub(location: storage.location) }
        let old = try HubDescriptor(bytes: bytes, location: storage.location)
        var new = old
        new.id = .generate()
        _ = try await storage.put(HubDescriptor.key, new.bytes, createOnly: false)
        return (old, new)
    }

    /// Reads every head of the hub (and lists its objects) to describe it.
    public static func status(of storage: any HubStorage, clock: any WallClock = SystemClock()) async throws(HubError) -> HubStatus {
        let objects = try await storage.list(prefix: "")
        guard objects.contains(where: { $0.key == HubDescriptor.key }),
            let descriptorBytes = try await storage.get(HubDescriptor.key, limit: HubDescriptor.maximumByteCount)?.bytes
        else { throw .noHub(location: storage.location) }
        let descriptor = try HubDescriptor(bytes: descriptorBytes, location: storage.location)
        var status = HubStatus(descriptor: descriptor, location: storage.location)
        var present = Set<String>()
        for object in objects {
            status.byteCount += object.size
            present.insert(object.key)
        }
        var snapshots: [HubSnapshot] = []
        for object in objects {
            guard let id = HubSnapshot.id(ofManifestKey: object.key), let bytes = try await storage.get(object.key, limit: HubSnapshot.maximumManifestByteCount)?.bytes else { continue }
            do {
                let snapshot = try HubSnapshot(manifest: bytes, id: id, location: storage.location)
                snapshots.append(snapshot)
                status.snapshots.append(
                    HubStatus.Snapshot(
                        id: id, records: snapshot.recordCount, liveRecords: snapshot.liveCount, versions: snapshot.changeCount,
                        coveredSegments: snapshot.coveredSegments, bytes: snapshot.parts.reduce(0) { $0 + $1.byteCount }))
            } catch {
                status.unreadable.append("\(object.key): \(error)")
            }
        }
        var heads: [HubHead] = []
        for object in objects where object.key.hasPrefix("heads/") && object.key.hasSuffix(".json") {
            let name = String(object.key.dropFirst("heads/".count).dropLast(".json".count))
            guard let replica = ReplicaID(name), HubHead.key(of: replica) == object.key else {
                status.ignored.append(object.key)
                continue
            }
            guard let bytes = try await storage.get(object.key, limit: HubHead.maximumByteCount)?.bytes else { continue }
            let head: HubHead
            do { head = try HubHead(bytes: bytes, key: object.key, expected: replica, location: storage.location) } catch {
                status.unreadable.append("\(object.key): \(error)")
                continue
            }
            if case .forged(let reason) = SignedObject.standing(of: head.signature, for: replica, held: nil) {
                status.rewritten.append("\(object.key): rewritten by someone without replica \(replica.short)'s key (\(reason)); ignored")
                continue
            }
            heads.append(head)
        }
        let newest = heads.map(\.updated).max() ?? 0
        for head in heads.sorted(by: { $0.updated > $1.updated }) {
            // What it has not read: the changes of others' segments past its `read` count.
            var unread = 0
            for other in heads where other.replica != head.replica {
                unread += other.segments.dropFirst(Int(head.read[other.replica] ?? 0)).reduce(0) { $0 + $1.changeCount }
            }
            let covered = snapshots.map { $0.covers[head.replica] ?? 0 }.max() ?? 0
            let republished = head.republished
            let absent = head.segments.filter { !present.contains(storage.storedKey(for: head.key(of: $0))) && !republished.contains($0.number) }
            let collected = absent.filter { $0.number <= covered }.count
            status.replicas.append(
                HubStatus.Replica(
                    replica: head.replica, name: head.name, lastSeen: head.updated, behindNewest: newest - head.updated,
                    segments: head.segments.count, missingSegments: absent.count - collected, collectedSegments: collected,
                    changes: head.segments.reduce(0) { $0 + $1.changeCount },
                    segmentBytes: head.segments.reduce(Int64(0)) { $0 + $1.byteCount }, records: head.recordCount, unreadChanges: unread,
                    isSigned: head.signature != .unsigned))
        }
        status.segmentCount = objects.filter { $0.key.hasPrefix("segments/") && $0.key.hasSuffix(".seg") }.count
        status.snapshotCount = status.snapshots.count
        status.requests = storage.requestCount
        return status
    }
}
