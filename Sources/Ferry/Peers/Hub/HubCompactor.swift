/// `ferry hub compact`: folds the segments every replica wrote into one snapshot of the state,
/// then deletes the segments that the snapshot covers and that every replica seen within the
/// retention window has read. A replica away for longer finds its missing changes collected;
/// its next sync says so and re-joins it from the snapshot (see ``SnapshotOffer``).
///
/// The snapshot's manifest is the compacting replica's signed statement of the state (its
/// ``HubSnapshot/stateDigest``), when it compacts as a store (``sign(as:)``): replicas join only
/// from a snapshot they can tie to such a statement. A base snapshot it builds on is proven
/// first (``HubSnapshotProof``), so a forged one is never signed anew.
///
/// It never rewrites an object: the snapshot is new objects (written create-only, the manifest
/// last); deleting is the only change to anything that exists. Before deleting, it has read
/// every head (a head it cannot read stops it: it could not know what that replica has read).
///
/// ```swift
/// let report = try await HubCompactor(storage: FolderHubStorage(root: path)).compact()
/// print(report.deletedSegments, "segments collected")
/// ```
public struct HubCompactor: Sendable {
    public let storage: any HubStorage
    /// Replicas that synced within this many milliseconds must have read a segment before it
    /// is deleted; those seen earlier do not hold compaction back. Default: 30 days.
    public var retentionMilliseconds: UInt64 = 30 * 86_400_000
    /// Say what would be done, write and delete nothing.
    public var dryRun = false
    public var clock: any WallClock
    /// Versions per snapshot part (one part is read into memory at a time).
    public var partChangeLimit = HubSnapshot.partChangeLimit
    /// The key that signs the snapshot: the compacting store's (``sign(as:)``); `nil` writes an
    /// unsigned snapshot, which joining replicas cannot prove.
    package var signingKey: ReplicaSigningKey?
    /// The keys the compacting store holds for other replicas (``ReplicaKeyBook``), against
    /// which heads and changes are checked as a sync checks them.
    package var keyBook = ReplicaKeyBook()

    public init(storage: any HubStorage, retentionMilliseconds: UInt64 = 30 * 86_400_000, dryRun: Bool = false, clock: any WallClock = SystemClock()) {
        self.storage = storage
        self.retentionMilliseconds = retentionMilliseconds
        self.dryRun = dryRun
        self.clock = clock
    }

    /// What a compaction did (or would do).
    public struct Report: Sendable {
        /// The snapshot in force afterwards, and whether this run wrote it.
        public var snapshot: SHA256Digest?
        public var wroteSnapshot = false
        public var records = 0
        public var versions = 0
        /// Segments the snapshot covers.
        public var coveredSegments: UInt64 = 0
        public var deletedSegments = 0
        public var deletedBytes: Int64 = 0
        public var deletedSnapshots = 0
        /// Replicas seen within the window that have not read some covered segments yet (they
        /// keep them), with how many.
        public var waitingFor: [(replica: ReplicaID, name: String?, segments: Int)] = []
        /// Replicas last seen before the window: they will re-join from the snapshot.
        public var away: [(replica: ReplicaID, name: String?, lastSeen: UInt64)] = []
        public var notes: [String] = []
        public var dryRun = false
        public var requests = 0

        public var jsonValue: JSONValue {
            [
                "snapshot": snapshot.map { .string($0.hex) } ?? .null, "wroteSnapshot": .bool(wroteSnapshot),
                "records": .integer(Int64(records)), "versions": .integer(Int64(versions)),
                "coveredSegments": .integer(Int64(coveredSegments)), "deletedSegments": .integer(Int64(deletedSegments)),
                "deletedBytes": .integer(deletedBytes), "deletedSnapshots": .integer(Int64(deletedSnapshots)),
                "waitingFor": .array(waitingFor.map { item in
                    ["replica": .string(item.replica.rawValue), "name": item.name.map { .string($0) } ?? .null, "segments": .integer(Int64(item.segments))]
                }),
                "away": .array(away.map { item in
                    [
                        "replica": .string(item.replica.rawValue), "name": item.name.map { .string($0) } ?? .null,
                        "lastSeen": .string(ISO8601Milliseconds.format(milliseconds: item.lastSeen)),
                    ]
                }),
                "notes": .array(notes.map { .string($0) }), "dryRun": .bool(dryRun), "requests": .integer(Int64(requests)),
            ]
        }
    }

    /// Signs the snapshots it writes with `store`'s key.
    /// - Throws: ``StoreError`` when the store's key cannot be read.
    public mutating func sign(as store: Store) throws(StoreError) {
        signingKey = try store.signingKey()
        keyBook = try store.keyBook()
    }

    private func refuse(_ reason: String) -> HubError { .cannotCompact(location: storage.location, reason: reason) }

    /// Compacts the hub.
    /// - Throws: ``HubError/cannotCompact(location:reason:)`` before deleting anything when the
    ///   hub cannot be read in full; ``HubError/noHub(location:)`` when there is no hub.
    public func compact() async throws(HubError) -> Report {
        var report = Report()
        report.dryRun = dryRun
        let objects = try await storage.list(prefix: "")
        var present: [String: HubObject] = [:]
        for object in objects { present[object.key] = object }
        guard present[HubDescriptor.key] != nil, let descriptorBytes = try await storage.get(HubDescriptor.key, limit: HubDescriptor.maximumByteCount)?.bytes else {
            throw .noHub(location: storage.location)
        }
        let descriptor = try HubDescriptor(bytes: descriptorBytes, location: storage.location)

        // Every head: what each replica wrote and has read.
        var heads: [ReplicaID: HubHead] = [:]
        for object in objects where object.key.hasPrefix("heads/") && object.key.hasSuffix(".json") {
            let name = String(object.key.dropFirst("heads/".count).dropLast(".json".count))
            guard let replica = ReplicaID(name), HubHead.key(of: replica) == object.key else { continue }  // not Ferry's
            // A listed head that cannot be read now (vanished, or a sealed head not fully
            // arrived) leaves what that replica has read unknown: nothing may go.
            guard let bytes = try await storage.get(object.key, limit: HubHead.maximumByteCount)?.bytes else {
                throw refuse("\(object.key) is listed but could not be read (not fully arrived?), so what that replica has read is unknown")
            }
            do { heads[replica] = try HubHead(bytes: bytes, key: object.key, expected: replica, location: storage.location) } catch {
                throw refuse("\(object.key) cannot be read (\(error)), so what that replica has read is unknown")
            }
        }

        // The newest snapshot whose parts are all here is the base to build on.
        var snapshots: [HubSnapshot] = []
        for object in objects {
            guard let id = HubSnapshot.id(ofManifestKey: object.key), let bytes = try await storage.get(object.key, limit: HubSnapshot.maximumManifestByteCount)?.bytes else { continue }
            do {
                let snapshot = try HubSnapshot(manifest: bytes, id: id, location: storage.location)
                guard snapshot.hub == descriptor.id else {
                    report.notes.append("\(object.key) belongs to another hub; left alone")
                    continue
                }
                guard snapshot.parts.allSatisfy({ present[storage.storedKey(for: HubSnapshot.partKey(snapshot: id, part: $0))] != nil }) else {
                    report.notes.append("\(object.key) lacks some of its parts (not arrived yet, or lost); not used")
                    continue
                }
                snapshots.append(snapshot)
            } catch {
                report.notes.append("\(object.key) cannot be read (\(error)); not used")
            }
        }
        let base = snapshots.max { ($0.coveredSegments, $0.id.hex) < ($1.coveredSegments, $1.id.hex) }
        // On a hub with members, only a member signs a snapshot (an unsigned one would be refused).
        let members = try await HubMembers.read(from: storage, hub: descriptor.membersHub, keys: objects.map(\.key))
        if let members {
            guard let signingKey else { throw refuse("the hub has members: run it from a member's store (--store), whose key signs the snapshot") }
            guard members.member(withKey: signingKey.publicKey) != nil else {
                throw refuse("the hub has members, and the store it runs from is not one (a member adds it with 'ferry hub members add')")
            }
        }
        try checkHeads(heads, members: members)
        let admitted = admittedHeads(heads, members: members, report: &report)
        var baseOutcome: HubSnapshotProof.Outcome?
        if let base {
            do {
                baseOutcome = try await HubSnapshotProof(storage: storage).prove(base) { key in
                    if let members { return members.member(withKey: key) != nil ? nil : "which is not the key of a member of this hub" }
                    return heads[ReplicaID(derivedFrom: key)] != nil || key == signingKey?.publicKey ? nil : "which is not the key of any replica that writes to this hub"
                }
            } catch {
                throw refuse("the snapshot to build on cannot be trusted (\(error))")
            }
        }

        let plan = coverage(heads: admitted, base: base, present: present)
        var snapshot = base
        // An unsigned base (written before snapshots were signed) is written anew, signed.
        let resign = signingKey != nil && baseOutcome == .unsigned
        if resign || plan.covers.filter({ $0.value > 0 }) != (base?.covers ?? [:]) {
            snapshot = try await buildSnapshot(
                hub: descriptor.id, heads: admitted, base: base, plan: plan, present: present, keys: keys(members: members), report: &report)
        }
        guard let snapshot else {
            report.notes.append("nothing to compact: no segment has been written yet")
            report.requests = storage.requestCount
            return report
        }
        report.snapshot = snapshot.id
        report.records = snapshot.recordCount
        report.versions = snapshot.changeCount
        report.coveredSegments = snapshot.coveredSegments

        // Segments every recent replica has read, and older snapshots this one replaces.
        let now = clock.milliseconds()
        let horizon = now > retentionMilliseconds ? now - retentionMilliseconds : 0
        let recent = heads.values.filter { $0.updated >= horizon }
        var waiting: [ReplicaID: Int] = [:]
        for (replica, head) in heads.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let covered = Int(min(snapshot.covers[replica] ?? 0, UInt64(head.segments.count)))
            for segment in head.segments.prefix(covered) {
                let key = head.key(of: segment)
                guard let object = present[storage.storedKey(for: key)] else { continue }  // collected already
                let readers = recent.filter { $0.replica != replica && ($0.read[replica] ?? 0) < segment.number }
                guard readers.isEmpty else {
                    for reader in readers { waiting[reader.replica, default: 0] += 1 }
                    continue
                }
                if !dryRun { try await storage.delete(key) }
                report.deletedSegments += 1
                report.deletedBytes += object.size
            }
        }
        report.waitingFor = waiting.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key, heads[$0.key]?.name, $0.value) }
        report.away = heads.values.filter { $0.updated < horizon }.sorted { $0.updated < $1.updated }.map { ($0.replica, $0.name, $0.updated) }
        for older in snapshots where older.id != snapshot.id && snapshot.covers(atLeast: older) {
            // The manifest first: a reader never finds a snapshot whose parts are gone.
            if !dryRun { try await storage.delete(HubSnapshot.manifestKey(older.id)) }
            for part in older.parts {
                let key = HubSnapshot.partKey(snapshot: older.id, part: part)
                report.deletedBytes += present[storage.storedKey(for: key)]?.size ?? 0
                if !dryRun { try await storage.delete(key) }
            }
            report.deletedSnapshots += 1
        }
        report.requests = storage.requestCount
        return report
    }

    /// Which segments a new snapshot covers, and the frontier they reach.
    struct Coverage {
        var covers: [ReplicaID: UInt64]
        var frontier: ReplicaFrontier
    }

    /// For each replica, the longest run of its segments, after those the base covers, that are
    /// all here, cut back until every origin's changes in them run from 1 without a gap (a
    /// segment not arrived may hold the change the next one follows).
    func coverage(heads: [ReplicaID: HubHead], base: HubSnapshot?, present: [String: HubObject]) -> Coverage {
        let baseCovers = base?.covers ?? [:]
        var covers: [ReplicaID: UInt64] = baseCovers
        for (replica, head) in heads {
            var count = min(baseCovers[replica] ?? 0, UInt64(head.segments.count))
            while count < UInt64(head.segments.count), present[storage.storedKey(for: head.key(of: head.segments[Int(count)]))] != nil { count += 1 }
            covers[replica] = max(count, baseCovers[replica] ?? 0)
        }
        while true {
            // Per origin, the ranges the covered segments carry, joined from 1.
            var ranges: [ReplicaID: [HubHead.OriginRange]] = [:]
            if let base {
                for (origin, counter) in base.frontier.knowledge.sortedCounters {
                    ranges[origin, default: []].append(HubHead.OriginRange(first: 1, last: counter, lastDigest: base.frontier.digests[origin] ?? .zero))
                }
            }
            for (replica, head) in heads {
                let from = Int(min(baseCovers[replica] ?? 0, UInt64(head.segments.count)))
                let to = Int(min(covers[replica] ?? 0, UInt64(head.segments.count)))
                guard from < to else { continue }
                for segment in head.segments[from..<to] {
                    for (origin, range) in segment.origins { ranges[origin, default: []].append(range) }
                }
            }
            var counters: [ReplicaID: UInt64] = [:]
            var digests: [ReplicaID: SHA256Digest] = [:]
            for (origin, list) in ranges {
                var reach: UInt64 = 0
                for range in list.sorted(by: { $0.first < $1.first }) {
                    guard range.first <= reach + 1 else { break }
                    if range.last > reach {
                        reach = range.last
                        digests[origin] = range.lastDigest
                    }
                }
                if reach > 0 { counters[origin] = reach }
            }
            let frontier = ReplicaFrontier(knowledge: VersionVector(counters), digests: digests)
            var cut = false
            for (replica, head) in heads {
                let from = Int(min(baseCovers[replica] ?? 0, UInt64(head.segments.count)))
                let to = Int(min(covers[replica] ?? 0, UInt64(head.segments.count)))
                guard from < to else { continue }
                if let beyond = head.segments[from..<to].firstIndex(where: { segment in
                    segment.origins.contains { $0.value.last > frontier.knowledge[$0.key] }
                }) {
                    covers[replica] = UInt64(beyond)
                    cut = true
                }
            }
            if !cut { return Coverage(covers: covers, frontier: frontier) }
        }
    }

    /// Reads the base snapshot and the newly covered segments, folds them into the state, and
    /// writes the snapshot: parts first, the manifest last.
    private func buildSnapshot(
        hub: ReplicaID, heads: [ReplicaID: HubHead], base: HubSnapshot?, plan: Coverage, present: [String: HubObject],
        keys: ReplicaKeyBook, report: inout Report
    ) async throws(HubError) -> HubSnapshot {
        var state = HubState()
        var work = HubCoveredWork()
        if let base {
            for part in base.parts {
                let key = HubSnapshot.partKey(snapshot: base.id, part: part)
                guard let bytes = try await storage.get(key, limit: HubSnapshot.maximumPartByteCount)?.bytes else { throw refuse("\(key) vanished while it was being read; run again") }
                for change in try HubSnapshot.decodePart(bytes, expected: part, key: key, location: storage.location) {
                    try check(change, at: key)
                    state.incorporate(change)
                }
            }
        }
        for (replica, head) in heads.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let from = Int(min(base?.covers[replica] ?? 0, UInt64(head.segments.count)))
            let to = Int(min(plan.covers[replica] ?? 0, UInt64(head.segments.count)))
            guard from < to else { continue }
            for segment in head.segments[from..<to] {
                let key = head.key(of: segment)
                guard let bytes = try await storage.get(key, limit: HubSegment.maximumByteCount)?.bytes else { throw refuse("\(key) vanished while it was being read; run again") }
                let decoded: [Change]
                do { decoded = try HubSegment.decode(bytes, expected: segment, replica: replica, key: key, location: storage.location).changes } catch {
                    throw refuse("\(key) cannot be read (\(error)); compact again once it has fully arrived, or run 'ferry verify'")
                }
                for change in decoded {
                    try check(change, at: key)
                    state.incorporate(change)
                }
                work.note(decoded, at: key)
            }
        }
        // What the snapshot will vouch for must be its origins' signed work, as a sync checks it.
        do { try work.check(keys: keys, location: storage.location) } catch { throw refuse(error.description) }
        // The frontier is bound to the changes it names: each must be the one read.
        for (origin, counter) in plan.frontier.knowledge.sortedCounters {
            guard let read = work.digest(of: origin, counter: counter) else { continue }  // reached through the base
            if read != plan.frontier.digests[origin] {
                throw refuse("change \(counter) of replica \(origin.short) differs from what its head says (run 'ferry verify')")
            }
        }
        let changes = state.sortedChanges
        let stateDigest = HubSnapshot.stateDigest(of: changes)
        let liveCount = state.liveCount
        let recordCount = state.records.count
        state = HubState()
        // Twice over the versions: once for the parts' hashes (which name the snapshot), once to
        // write them, so one part at a time is in memory.
        let limit = max(1, partChangeLimit)
        let partCount = HubSnapshot.partCount(of: changes.count, limit: limit)
        let parts = partCount == 0 ? [] : (1...partCount).map { HubSnapshot.encodePart($0, of: changes, limit: limit).part }
        var snapshot = HubSnapshot(
            hub: hub, covers: plan.covers.filter { $0.value > 0 }, frontier: plan.frontier, recordCount: recordCount,
            liveCount: liveCount, changeCount: changes.count, parts: parts, stateDigest: stateDigest)
        if let signingKey { snapshot = snapshot.signed(with: signingKey) }
        let id = snapshot.id
        guard !dryRun, present[HubSnapshot.manifestKey(id)] == nil else { return snapshot }
        for number in parts.indices.map({ $0 + 1 }) {
            let (part, bytes) = HubSnapshot.encodePart(number, of: changes, limit: limit)
            // Create-only: a part already there under its hash is this very part.
            do { _ = try await storage.put(HubSnapshot.partKey(snapshot: id, part: part), bytes, createOnly: true) } catch {
                guard case .alreadyExists = error else { throw error }
            }
        }
        do { _ = try await storage.put(HubSnapshot.manifestKey(id), snapshot.manifestBytes, createOnly: true) } catch {
            guard case .alreadyExists = error else { throw error }
        }
        report.wroteSnapshot = true
        return snapshot
    }

    /// A change folded into a snapshot must match its digest: a snapshot never carries an altered one.
    /// Refuses to compact on a head rewritten by someone without its replica's key (its claims
    /// of what was written and read would decide what is kept and deleted): the replica writes
    /// its head anew at its next sync, and compaction can run then.
    private func checkHeads(_ heads: [ReplicaID: HubHead], members: HubMembers?) throws(HubError) {
        for (replica, head) in heads.sorted(by: { $0.key < $1.key }) {
            let held = members?.members[replica]?.key ?? keyBook[replica]
            if case .forged(let reason) = SignedObject.standing(of: head.signature, for: replica, held: held) {
                throw refuse(
                    "\(HubHead.key(of: replica)) was rewritten by someone without replica \(replica.short)'s key (\(reason)), so what it says that "
                        + "replica wrote and read cannot be used; it writes its head anew at its next sync")
            }
        }
    }

    /// The heads whose segments the snapshot may cover: on a hub with members, a member's up to
    /// its removal, and none of a replica that never was a member (its objects are left alone,
    /// with a note).
    private func admittedHeads(_ heads: [ReplicaID: HubHead], members: HubMembers?, report: inout Report) -> [ReplicaID: HubHead] {
        guard let members else { return heads }
        var admitted: [ReplicaID: HubHead] = [:]
        for (replica, head) in heads {
            guard members.members[replica] != nil else {
                if !head.segments.isEmpty {
                    report.notes.append("replica \(replica) is not a member of the hub: its \(head.segments.count) segments are left out of the snapshot and left alone")
                }
                continue
            }
            var kept = head
            kept.segments = head.segments.filter { members.admits(segment: $0.number, of: replica) }
            admitted[replica] = kept
        }
        return admitted
    }

    /// The keys changes are checked against: the members' (on a hub with members) over the
    /// ones the compacting store holds.
    private func keys(members: HubMembers?) -> ReplicaKeyBook {
        var book = keyBook
        for (replica, member) in members?.members ?? [:] { book.hold(member.key, for: replica) }
        return book
    }

    private func check(_ change: Change, at key: String) throws(HubError) {
        guard let chain = change.chain, chain.matches(change) else {
            throw refuse("\(key): change \(change.identity) to \(change.key) does not match its digest (altered); run 'ferry verify'")
        }
    }
}
