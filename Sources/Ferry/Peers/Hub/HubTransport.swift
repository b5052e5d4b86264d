import Foundation

/// Syncs a store with a hub: objects in a folder or under an S3 prefix that any number of
/// replicas share without a server or a lock (see docs/FORMAT.md, "Hubs").
///
/// Each replica writes only its own objects: immutable segments of the changes it brings, and
/// one head listing them. The hub's frontier is the union of what the heads list, and its mark
/// (``HubMark``) is that frontier: it moves exactly when the hub gains a change, so "up to
/// date" is decided from the heads alone, and a hub that went back in time is told by a mark it
/// no longer holds.
///
/// ```swift
/// let hub = HubTransport(storage: FolderHubStorage(root: "/Users/me/Dropbox/notes-hub"))
/// let report = try await store.sync(with: hub)
/// ```
///
/// One exchange at a time: the engine calls a transport from one task.
public final class HubTransport: ReplicaAwarePeer, SnapshotSource, RequestCounting, @unchecked Sendable {
    /// Where the hub's objects are.
    public let storage: any HubStorage
    private let clock: any WallClock

    /// The syncing store, from ``prepare(for:)``.
    private var syncing: (any SyncReplica)?
    /// The syncing store as the signer of this replica's head and the holder of other
    /// replicas' keys; `nil` for a replica without a key (its head is written unsigned).
    private var signer: (any ObjectSigner)?
    /// This replica's head on the hub was rewritten by someone without its key: it is written
    /// anew at the end of this sync.
    private var ownHeadRefused = false
    /// Segments of other replicas their heads list and this replica found missing from the hub
    /// (what its head reports, so their owners republish them).
    private var missing: [ReplicaID: Set<UInt64>] = [:]
    /// This replica's segments that other replicas report missing: republished at the end of
    /// this sync.
    private var reportedMissing: [UInt64: [ReplicaID]] = [:]
    private var localReplica: ReplicaID?
    private var localName: String?
    private var cacheMemory: PeerMemory?
    private var cache = HubCache()

    private var hubID: ReplicaID?
    /// Every head the hub shows, this store's own included.
    private var heads: [ReplicaID: HubHead] = [:]
    private var own: HubHead?
    private var hubFrontier = ReplicaFrontier(knowledge: VersionVector(), digests: [:])
    private var total: UInt64 = 0
    private var reading: HubReading?
    /// The position the last page of ``reading`` ended at: a request from elsewhere reads again
    /// from the start.
    private var readingThrough: UInt64?
    /// What the local store holds, as far as this exchange saw (for the head's `read`).
    private var localKnowledge: VersionVector?
    private var collectedNotes: [String] = []
    /// What the hub lost of this replica's last mark, when it went back in time or is a copy.
    private var lostHistory: String?
    /// Changes pushed since the hub was found to have lost some: republished.
    private var republished = 0
    /// The snapshots the listing shows, by id.
    private var snapshotIDs: [SHA256Digest] = []
    /// The snapshot offered to the store, and the next of its parts to read.
    private var offered: HubSnapshot?
    private var nextPart = 0
    private var partBuffer: [Change] = []
    private var partOffset = 0
    /// Segments read while deciding whether a snapshot is needed, for the pull that follows.
    private var prefetched: [String: [UInt8]] = [:]
    /// The hub's members, as accepted (see ``HubMembership``).
    private var membership = HubMembership(cachePath: nil)
    /// Admit a replica that is not a member yet, adding it to the members (`--trust-new`).
    public var trustNew = false
    /// Snapshots proven this exchange (``HubSnapshotProof``), with what they rest on.
    private var proven: [SHA256Digest: HubSnapshotProof.Outcome] = [:]
    /// The last snapshot proven, and its first parts as the proof decoded them, for the join
    /// that follows (each handed out once, then `nil`).
    private var keptPartsSnapshot: SHA256Digest?
    private var keptParts: [[Change]?] = []
    /// How much of a snapshot the proof that comes before a join keeps, decoded, for the join:
    /// its first parts, up to this many bytes of changes (``Change/estimatedPageBytes``); the
    /// rest is read and decoded again. 8 MiB by default, about 15k small records: a join of
    /// 100k such records peaks about 10 MiB higher for it.
    public var snapshotBytesKeptForJoin = 8 << 20

    /// A transport to the hub kept in `storage`.
    /// - Parameter clock: the time written into this replica's head.
    public init(storage: any HubStorage, clock: any WallClock = SystemClock()) {
        let sealed = storage as? SealedHubStorage ?? SealedHubStorage(base: storage)
        self.storage = sealed
        self.sealed = sealed
        self.clock = clock
    }

    /// The storage as an encrypted hub is read and written (passing through on a plain hub).
    private let sealed: SealedHubStorage

    /// The hub's passphrase, for a store that is not a member (from a prompt or
    /// `FERRY_HUB_PASSPHRASE`, never from argv): it unwraps an encrypted hub's keys.
    public var passphrase: String? {
        get { sealed.access.passphrase }
        set { sealed.access.passphrase = newValue }
    }

    /// Asks for the passphrase (a terminal prompt) when nothing else opens an encrypted hub's keys.
    public var askPassphrase: (@Sendable () -> String?)? {
        get { sealed.access.askPassphrase }
        set { sealed.access.askPassphrase = newValue }
    }

    /// The hub's recovery key, which unwraps an encrypted hub's keys too.
    public var recoveryKey: HubRecoveryKey? {
        get { sealed.access.recoveryKey }
        set { sealed.access.recoveryKey = newValue }
    }

    /// A transport to a hub folder.
    public convenience init(folder: String) {
        self.init(storage: FolderHubStorage(root: folder))
    }

    public var peerDescription: String { storage.location }
    public var joinSource: (id: ReplicaID, location: String)? { hubID.map { ($0, storage.location) } }
    public var notes: [String] {
        var notes = storage.notices + collectedNotes + membership.notes
        if let lostHistory {
            notes.append("\(lostHistory); republished \(republished) change\(republished == 1 ? "" : "s") this replica holds")
        }
        return notes
    }
    public var requestCount: Int { storage.requestCount }

    public func prepare(for replica: any SyncReplica) {
        syncing = replica
        signer = replica as? any ObjectSigner
        localReplica = replica.replicaID
        localName = replica.replicaName
        cacheMemory = replica.cacheLayout.map { HubCache.memory(for: storage.location, in: $0) }
        membership = HubMembership(cachePath: cacheMemory.map { $0.folder + "/hub-members.json" })
        let key = try? signer?.signingKey()
        sealed.access.signer = key.map { (replica.replicaID, $0) }
        sealed.access.layout = replica.cacheLayout
    }

    /// Where the hub stands now (a hub whose descriptor names no id goes by the syncing
    /// replica's, as its ``PeerInfo`` does).
    private func mark(as localReplica: ReplicaID) -> PeerMark {
        PeerMark(HubMark(hub: hubID ?? localReplica, location: storage.location, frontier: hubFrontier))
    }

    private func hub<T>(_ operation: () async throws(HubError) -> T) async throws(SyncError) -> T {
        do { return try await operation() } catch { throw .hub(error) }
    }

    public func open() async throws(SyncError) -> PeerInfo {
        guard let localReplica else { throw .transport("\(storage.location): the hub transport was opened without a store") }
        if let cacheMemory {
            // A cache file gone or unreadable is written again at the next save, whatever it held.
            if let loaded = HubCache.load(from: cacheMemory.hubCache, location: storage.location) { cache = loaded } else { cache.bytesOnDisk = nil }
        }
        collectedNotes = []
        lostHistory = nil
        republished = 0
        reading = nil
        readingThrough = nil
        localKnowledge = nil
        snapshotIDs = []
        offered = nil
        prefetched = [:]
        proven = [:]
        keptPartsSnapshot = nil
        keptParts = []
        ownHeadRefused = false
        // One listing: the descriptor and every head (both keys start with "h"; segments and
        // snapshots do not), with tags that say which changed since the last sync.
        let objects = try await hub { () async throws(HubError) in try await storage.list(prefix: "h") }
        let (descriptorObject, headObjects) = sortListing(objects)
        guard let descriptorObject else { throw .hub(.noHub(location: storage.location)) }
        cache.snapshots = cache.snapshots.filter { snapshotIDs.contains($0.key) }
        try await readDescriptor(descriptorObject)
        try await readHeads(headObjects, localReplica: localReplica)
        try await hub { () async throws(HubError) in try await membership.refresh(listed: objects, storage: storage, hub: cache.membersHub ?? hubID ?? localReplica) }
        own = heads[localReplica] ?? HubHead(replica: localReplica, name: localName, updated: clock.milliseconds())
        takeMissingReports(localReplica: localReplica)
        recomputeFrontier()
        saveCache()
        let latest = heads.values.map(\.latestModification).max() ?? .zero
        return PeerInfo(
            replica: hubID ?? localReplica, name: "hub", format: StoreManifest.currentFormat, mark: mark(as: localReplica), isEmpty: total == 0,
            latestModification: latest, changeCount: Int(clamping: total), names: namesInHeads())
    }

    /// The names the heads give: each replica's own (which wins), then those it passed on.
    private func namesInHeads() -> [ReplicaID: String] {
        var names: [ReplicaID: String] = [:]
        for head in heads.values.sorted(by: { $0.replica < $1.replica }) {
            names.merge(head.names) { first, _ in first }
        }
        for head in heads.values { if let name = head.name { names[head.replica] = name } }
        return names
    }

    /// Whether `head`, this replica's own head as the hub shows it, is one this store wrote
    /// (maybe long ago): every change of the replica's own that it lists is one the store holds.
    private func isOlderOwnHead(_ head: HubHead, replica: ReplicaID) -> Bool {
        guard let frontier = try? syncing?.currentFrontier() else { return false }
        let held = frontier.knowledge[replica]
        for segment in head.segments {
            guard let range = segment.origins[replica] else { continue }
            if range.last > held || (range.last == held && frontier.digests[replica] != range.lastDigest) { return false }
        }
        return true
    }

    /// Sorts the listing of `h…` keys: the descriptor, each replica's head, and the snapshots
    /// (into ``snapshotIDs``); anything else is noted as ignored.
    private func sortListing(_ objects: [HubObject]) -> (descriptor: HubObject?, heads: [ReplicaID: HubObject]) {
        var descriptorObject: HubObject?
        var headObjects: [ReplicaID: HubObject] = [:]
        var ignored: [String] = []
        for object in objects {
            if let id = HubSnapshot.id(ofManifestKey: object.key) {
                snapshotIDs.append(id)
            } else if object.key == HubDescriptor.key {
                descriptorObject = object
            } else if object.key.hasPrefix("heads/") {
                let name = object.key.dropFirst("heads/".count)
                if name.hasSuffix(".json"), let replica = ReplicaID(String(name.dropLast(5))), HubHead.key(of: replica) == object.key {
                    headObjects[replica] = object
                } else {
                    ignored.append(object.key)  // a conflicted copy, a placeholder, a stray file
                }
            }
        }
        if !ignored.isEmpty {
            collectedNotes.append(
                "ignored \(ignored.count) file\(ignored.count == 1 ? "" : "s") that Ferry did not write (\(ignored.prefix(3).joined(separator: ", ")))")
        }
        return (descriptorObject, headObjects)
    }

    /// The hub's id: from the cache while the descriptor's tag is the one cached, else read.
    private func readDescriptor(_ descriptorObject: HubObject) async throws(SyncError) {
        if let id = cache.hub, cache.descriptorTag == descriptorObject.tag {
            hubID = id
            return
        }
        guard let fetched = try await hub({ () async throws(HubError) in try await storage.get(HubDescriptor.key, limit: HubDescriptor.maximumByteCount) }) else {
            throw .hub(.noHub(location: storage.location))
        }
        let descriptor = try await hub { () throws(HubError) in try HubDescriptor(bytes: fetched.bytes, location: storage.location) }
        if descriptor.isEncrypted && !sealed.isEncrypted {
            throw .hub(.locked(location: storage.location, reason: "this hub is encrypted, but its keys (hub-keys/) are missing"))
        }
        if let keyring = sealed.keyring, keyring.hub != descriptor.membersHub {
            throw .hub(.locked(location: storage.location, reason: "the hub's keys (hub-keys/) belong to another hub (\(keyring.hub.short)); copied in?"))
        }
        if cache.hub != descriptor.id { cache = HubCache() }  // another hub at this location now
        cache.hub = descriptor.id
        cache.descriptorTag = fetched.tag
        cache.openToAnyWriter = descriptor.isOpenToAnyWriter
        cache.membersHub = descriptor.membersHub
        hubID = descriptor.id
    }

    /// Every replica's head: from the cache while its tag is the one cached, else read; a head
    /// that cannot be read keeps its last good copy, and this replica's own must be one it wrote.
    private func readHeads(_ headObjects: [ReplicaID: HubObject], localReplica: ReplicaID) async throws(SyncError) {
        heads = [:]
        own = nil
        for (replica, object) in headObjects.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if let cached = cache.heads[replica], cached.tag == object.tag {
                heads[replica] = cached.head
                continue
            }
            let key = HubHead.key(of: replica)
            let fetched = try await hub { () async throws(HubError) in try await storage.get(key, limit: HubHead.maximumByteCount) }
            guard let fetched else {
                if let cached = cache.heads[replica] { heads[replica] = cached.head }
                continue
            }
            do {
                let head = try HubHead(bytes: fetched.bytes, key: key, expected: replica, location: storage.location)
                guard try accepts(head, key: key, localReplica: localReplica) else {
                    if let cached = cache.heads[replica] { heads[replica] = cached.head }
                    continue
                }
                if replica == localReplica, let last = cache.heads[replica]?.head, !cache.ownHeadHashes.contains(SHA256.hash(fetched.bytes)) {
                    // An older head of this store's (a hub restored from a backup) lists only
                    // changes of this replica that the store holds; a copy of the store that wrote
                    // lists one it does not (past its counter, or another at its counter).
                    guard isOlderOwnHead(head, replica: replica) else {
                        throw SyncError.hub(.foreignHeadWrite(location: storage.location, replica: replica))
                    }
                    collectedNotes.append(
                        "this replica's head on the hub is an older one it wrote (\(head.segments.count) segments; it wrote "
                            + "\(last.segments.count) by its last sync): the hub went back in time (restored from a backup?)")
                }
                heads[replica] = head
                cache.heads[replica] = (fetched.tag, head)
            } catch let error as SyncError {
                throw error
            } catch let error as HubError {
                if case .unsupportedFormat = error { throw SyncError.hub(error) }
                // Half written by a copying tool, or damaged: the last good copy, or nothing yet.
                if let cached = cache.heads[replica] {
                    heads[replica] = cached.head
                    collectedNotes.append("\(key) could not be read (\(error)); used the copy read at the last sync")
                } else {
                    collectedNotes.append("\(key) could not be read (\(error)); its changes are left for the next sync")
                }
            } catch {
                collectedNotes.append("\(key) could not be read (\(error))")
            }
        }
        for replica in cache.heads.keys where headObjects[replica] == nil {
            cache.heads[replica] = nil
            if replica == localReplica {
                collectedNotes.append("this replica's head was missing from the hub; it is written anew")
            }
        }
    }

    /// Whether `head` is its replica's work: signed by the key its id is made from, or by the
    /// key this store holds for it (learned now when it holds none); an unsigned head only from
    /// a replica made before heads were signed. A head rewritten by someone else is a note that
    /// names it, and its claims are not used: the copy read at the last sync stands in for it.
    /// - Throws: ``SyncError/store(_:)`` when the key book cannot be read or a learned key saved.
    private func accepts(_ head: HubHead, key: String, localReplica: ReplicaID) throws(SyncError) -> Bool {
        let replica = head.replica
        var held: ReplicaPublicKey?
        do { held = try signer?.keyBook()[replica] } catch { throw .store(error) }
        if held == nil, case .valid(let known)? = cache.heads[replica]?.head.signature { held = known }
        switch SignedObject.standing(of: head.signature, for: replica, held: held) {
        case .owner(let key, let learned):
            if learned, let signer {
                do { try signer.holdKey(key, for: replica) } catch { throw .store(error) }
            }
            return true
        case .unprovable:
            return true
        case .forged(let reason):
            let stands: String
            if replica == localReplica {
                ownHeadRefused = true
                stands = "this replica writes its own anew"
            } else if cache.heads[replica] != nil {
                stands = "the copy read at the last sync is used"
            } else {
                stands = "the changes of replica \(replica.short) on the hub cannot be read until it syncs again"
            }
            collectedNotes.append(
                "\(key) was rewritten by someone without replica \(replica.short)'s key (\(reason)); it was ignored, and \(stands)")
            return false
        }
    }

    /// Reads what the other heads report missing: this replica's segments to republish, and
    /// what this replica itself reported that still stands (listed, not republished yet).
    private func takeMissingReports(localReplica: ReplicaID) {
        reportedMissing = [:]
        missing = [:]
        for (replica, numbers) in own?.missing ?? [:] {
            guard let head = heads[replica] else { continue }
            let listed = Set(head.segments.map(\.number)).subtracting(head.republished)
            let standing = Set(numbers).intersection(listed)
            if !standing.isEmpty { missing[replica] = standing }
        }
        var awaited = Set<String>()
        for head in heads.values {
            let republished = head.republished
            for segment in head.segments where !republished.contains(segment.number) { awaited.insert(head.key(of: segment)) }
        }
        cache.absentSince = cache.absentSince.filter { awaited.contains($0.key) }
        guard let own else { return }
        let listed = Set(own.segments.map(\.number)).subtracting(own.republished)
        for (replica, head) in heads where replica != localReplica {
            for number in head.missing[localReplica] ?? [] where listed.contains(number) {
                reportedMissing[number, default: []].append(replica)
            }
        }
    }

    /// The union of what the heads list: for each origin, its highest counter and that change's digest.
    private func recomputeFrontier() {
        var counters: [ReplicaID: UInt64] = [:]
        var digests: [ReplicaID: SHA256Digest] = [:]
        for head in heads.values {
            for segment in head.segments {
                for (origin, range) in segment.origins where range.last > counters[origin, default: 0] {
                    counters[origin] = range.last
                    digests[origin] = range.lastDigest
                }
            }
        }
        hubFrontier = ReplicaFrontier(knowledge: VersionVector(counters), digests: digests)
        total = counters.values.reduce(0, +)
    }

    /// Saves the cache. A plain save that fails is only noted: the cache on disk stays the last
    /// one saved, and the next sync reads again the heads whose tags it does not match (the
    /// own head's hash, saved durably before it was written, still proves it is this store's).
    private func saveCache() {
        guard let cacheMemory else { return }
        do { try cache.save(to: cacheMemory, location: storage.location, durable: false) } catch {
            collectedNotes.append("the hub cache could not be saved (\(error)); the next sync reads the heads again")
        }
    }

    /// Saves the cache durably before this store writes its own head: without the head's hash
    /// on disk, the next sync would take that head for a copy's and refuse the hub, so the
    /// head is not written when it cannot be saved.
    /// - Throws: ``SyncError/store(_:)`` with the I/O error.
    private func saveCacheDurably() throws(SyncError) {
        guard let cacheMemory else { return }
        do { try cache.save(to: cacheMemory, location: storage.location, durable: true) } catch {
            throw .store(.io(error))
        }
    }

    /// How long a replica's head may go unwritten while it syncs with nothing to exchange: past
    /// this, a sync rewrites it, so `hub compact` sees the replica as present (one request a day).
    static let headRefreshMilliseconds: UInt64 = 86_400_000

    /// How long a segment a head lists may be absent before it is taken as missing (deleted)
    /// rather than late: a cloud drive may show a head before the segment it names.
    static let lateArrivalMilliseconds: UInt64 = 3_600_000

    public func exchangeSucceeded() async throws(SyncError) {
        guard var head = own else { return }
        if !reportedMissing.isEmpty { head = try await republish(into: head) }
        let reportChanged = head.missing != missingReport
        let stale = clock.milliseconds() > head.updated + Self.headRefreshMilliseconds
        guard ownHeadRefused || reportChanged || head != own || (heads[head.replica] != nil && stale) else { return }
        do { try await writeOwnHead(head) } catch {
            collectedNotes.append("could not write this replica's head (\(error)); the next sync tries again")
        }
    }

    /// What this replica's head reports missing.
    private var missingReport: [ReplicaID: [UInt64]] { missing.filter { !$0.value.isEmpty }.mapValues { $0.sorted() } }

    /// Writes again, as new segments, this replica's segments that other replicas report
    /// missing, with the same changes read from the store's journal.
    private func republish(into head: HubHead) async throws(SyncError) -> HubHead {
        guard let localReplica, let syncing else { return head }
        var head = head
        for (number, reporters) in reportedMissing.sorted(by: { $0.key < $1.key }) {
            guard let lost = head.segments.first(where: { $0.number == number }) else { continue }
            let changes: [Change]
            do { changes = try Self.changes(in: lost, from: syncing) } catch { throw .store(error) }
            let name = HubHead.segmentKey(replica: localReplica, number: number, hash: lost.hash)
            guard changes.count == lost.changeCount else {
                collectedNotes.append("\(name) is missing from the hub, and this store no longer holds all of its changes to write them again")
                continue
            }
            var encoded = HubSegment.encode(changes, replica: localReplica, number: UInt64(head.segments.count + 1), previous: head.segments.last?.hash ?? .zero)
            encoded.segment.republishes = number
            do {
                _ = try await storage.put(head.key(of: encoded.segment), encoded.bytes, createOnly: true)
            } catch {
                guard case .alreadyExists = error else { throw .hub(error) }
            }
            head.segments.append(encoded.segment)
            let by = reporters.map(\.short).sorted().joined(separator: ", ")
            collectedNotes.append(
                "\(name) was deleted from the hub (reported missing by replica \(by)); its \(changes.count) change\(changes.count == 1 ? "" : "s") "
                    + "were written again as segment \(encoded.segment.number)")
        }
        reportedMissing = [:]
        return head
    }

    /// The changes `segment` carried, read again from the store's journal.
    private static func changes(in segment: HubHead.Segment, from store: any SyncReplica) throws(StoreError) -> [Change] {
        var counters = try store.currentFrontier().knowledge.counters
        for (origin, range) in segment.origins { counters[origin] = range.first - 1 }
        let excluding = VersionVector(counters)
        var found: [Change] = []
        var position: UInt64 = 0
        while true {
            let batch = try store.changes(after: position, excluding: excluding, limit: 4096)
            found += batch.changes.filter { change in segment.origins[change.origin].map { change.counter <= $0.last } ?? false }
            guard batch.through > position, batch.through < batch.head else { break }
            position = batch.through
        }
        return found
    }

    public func close() async {
        saveCache()
        reading = nil
        readingThrough = nil
    }


    public func frontier() async throws(SyncError) -> ReplicaFrontier { hubFrontier }

    public func liveRecordCount() async throws(SyncError) -> Int {
        heads.values.map(\.recordCount).max() ?? 0
    }

    /// Reads from the start (the store's knowledge says what it lacks) when the hub still holds
    /// everything `mark` says it held. A hub that holds less went back in time (the same
    /// location) or is a copy (another location with the same id): `nil`, so the engine
    /// exchanges every change and this replica republishes what the hub lost, and a note says
    /// which it was.
    public func resume(from mark: PeerMark) async throws(SyncError) -> UInt64? {
        guard let localReplica, let saved = mark.decode(HubMark.self) else { return nil }
        let id = hubID ?? localReplica
        if saved.isHeld(by: hubFrontier, hub: id) { return 0 }
        guard saved.hub == id else { return nil }
        let lacking = saved.changesLacking(in: hubFrontier)
        let what = "it lacks \(lacking) change\(lacking == 1 ? "" : "s") this replica saw in it"
        if saved.location == storage.location {
            lostHistory = "the hub at \(storage.location) went back in time (restored from a backup?): \(what)"
        } else {
            lostHistory =
                "the hub at \(storage.location) has the id of the hub at \(saved.location), which this replica synced last, "
                + "but not its history: it is a copy (cp -r, aws s3 sync?); \(what). If both are to be used, give the copy "
                + "an id of its own: ferry hub reidentify \(storage.location)"
        }
        return nil
    }

    /// The changes the store lacks, read segment by segment from the heads that list them. The
    /// hub has no single order, so `knowledge` says what to send; `position` only tells a next
    /// page (after the position the last one ended at) from a request to read the same changes
    /// again from the start (a pull that could not keep what it checked), which plans a new
    /// reading. Reusing the finished one answered that with no changes, and every such pull
    /// failed.
    public func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch {
        if reading?.basis != knowledge || position != readingThrough {
            var planned: [(replica: ReplicaID, segment: HubHead.Segment)] = []
            for (replica, head) in heads {
                let republished = head.republished
                for segment in head.segments where !republished.contains(segment.number) && segment.hasChanges(beyond: knowledge) {
                    if try await admits(segment, of: replica, head: head) { planned.append((replica, segment)) }
                }
            }
            // Roughly in the order they were written: a change waits less for the one before it.
            planned.sort { ($0.segment.number, $0.replica.rawValue) < ($1.segment.number, $1.replica.rawValue) }
            reading = HubReading(basis: knowledge, plan: planned)
        }
        guard var reading else { return ChangeBatch(changes: [], through: total, head: total) }
        var batch: [Change] = []
        while batch.count < max(1, limit), let (replica, segment) = reading.nextSegment() {
            let key = HubHead.segmentKey(replica: replica, number: segment.number, hash: segment.hash)
            let name = "segment \(segment.number) of replica \(replica.short)"
            let bytes: [UInt8]
            if let early = prefetched.removeValue(forKey: key) {
                bytes = early
            } else if let fetched = try await hub({ () async throws(HubError) in try await storage.get(key, limit: HubSegment.maximumByteCount) }) {
                bytes = fetched.bytes
            } else {
                noteAbsent(key, name: name, of: replica, segment: segment)
                reading.leftOut = true
                continue
            }
            cache.absentSince[key] = nil
            missing[replica]?.remove(segment.number)
            let decoded: [Change]
            do {
                decoded = try HubSegment.decode(bytes, expected: segment, replica: replica, key: key, location: storage.location).changes
            } catch .incomplete {
                collectedNotes.append("\(name) does not match its hash yet (incomplete or altered); its changes are left for the next sync")
                reading.leftOut = true
                continue
            } catch {
                // It matches its hash, so it holds exactly what its writer wrote: waiting will
                // not make it readable, and a note with exit 0 let its changes go missing
                // unnoticed on every sync (as a record over 16 MiB once made them).
                throw .hub(error)
            }
            try refuseOwnReplicaChanges(in: decoded, known: reading.basis, key: key)
            for change in decoded { reading.offer(change, into: &batch) }
        }
        let reached = reading.reached
        let through = reached.sortedCounters.reduce(UInt64(0)) { $0 + min($1.1, hubFrontier.knowledge[$1.0]) }
        let finished = reading.isFinished
        if finished, reading.waiting > 0 {
            collectedNotes.append(
                "\(reading.waiting) change\(reading.waiting == 1 ? "" : "s") wait for earlier ones that have not arrived; left for the next sync")
        }
        localKnowledge = reached
        self.reading = reading
        readingThrough = through
        return ChangeBatch(
            changes: batch, through: through, head: finished ? through : max(total, through + 1),
            isPartial: finished && (reading.leftOut || reading.waiting > 0))
    }

    /// Notes a segment a head lists that the hub does not hold: late (a cloud drive copies it
    /// still) until ``lateArrivalMilliseconds`` after its head was written or this store first
    /// found it absent, then missing: named, and reported in this replica's head so its owner
    /// writes it again.
    private func noteAbsent(_ key: String, name: String, of replica: ReplicaID, segment: HubHead.Segment) {
        let now = clock.milliseconds()
        let since = cache.absentSince[key] ?? now
        cache.absentSince[key] = since
        let written = heads[replica]?.updated ?? now
        guard now >= min(since, written) + Self.lateArrivalMilliseconds else {
            collectedNotes.append("\(name) has not arrived yet; its changes are left for the next sync")
            return
        }
        missing[replica, default: []].insert(segment.number)
        collectedNotes.append(
            "\(key), listed by replica \(replica.short)'s head, is missing from the hub (deleted by someone?); its changes are left out, "
                + "and this replica's head asks replica \(replica.short) to write them again at its next sync")
    }

    /// Refuses a change of this store's own replica that the store does not hold: it never
    /// made it, so it is a copy's work or someone else's under its identity, named with the
    /// hub object that carries it.
    private func refuseOwnReplicaChanges(in changes: [Change], known: VersionVector, key: String) throws(SyncError) {
        guard let localReplica, let syncing,
            let foreign = changes.first(where: { $0.origin == localReplica && $0.counter > known[localReplica] })
        else { return }
        throw SealCheck.ownReplicaRefusal(
            foreign, among: changes, ownKey: syncing.ownPublicKey(), store: syncing.location, source: "\(storage.location): \(key)")
    }

    // MARK: Snapshots

    /// The newest snapshot, when the store needs it: the store holds nothing of what it covers
    /// (a join), or a segment it lacks was collected while it was away, or it is finishing a
    /// join from this hub. Otherwise the segments are cheaper: `nil`.
    public func snapshotOffer(for knowledge: VersionVector, pending: SnapshotJoins.Join?) async throws(SyncError) -> SnapshotOffer? {
        guard let hubID, let localReplica else { return nil }
        var usable: [HubSnapshot] = []
        for id in snapshotIDs {
            if let known = cache.snapshots[id] {
                usable.append(known)
                continue
            }
            let key = HubSnapshot.manifestKey(id)
            guard let fetched = try await hub({ () async throws(HubError) in try await storage.get(key, limit: HubSnapshot.maximumManifestByteCount) }) else { continue }
            do {
                let snapshot = try HubSnapshot(manifest: fetched.bytes, id: id, location: storage.location)
                guard snapshot.hub == hubID else {
                    collectedNotes.append("\(key) belongs to another hub; ignored")
                    continue
                }
                cache.snapshots[id] = snapshot
                usable.append(snapshot)
            } catch {
                collectedNotes.append("\(key) could not be read (\(error)); ignored")
            }
        }
        guard let newest = usable.max(by: { ($0.coveredSegments, $0.id.hex) < ($1.coveredSegments, $1.id.hex) }) else {
            if let pending, pending.source == hubID {
                // Someone removed every snapshot by hand: the join cannot be finished from here.
                throw .transport(
                    "\(storage.location): the snapshot this store was joining from (\(pending.snapshot.hex.prefix(12))) is no longer in "
                        + "the hub, and no newer one is; run 'ferry hub compact \(storage.location)' to write one, then sync again")
            }
            return nil
        }
        // Offered only once its first part is here: a cloud drive may show the manifest first.
        func offer(_ reason: SnapshotOffer.Reason) async throws(SyncError) -> SnapshotOffer? {
            let outcome: HubSnapshotProof.Outcome
            do { outcome = try await prove(newest) } catch {
                // A snapshot proven wrong is refused; one not fully arrived is passed over, as below.
                if case .hub(.snapshotRefused) = error { throw error }
                guard reason != .resume else { throw error }
                collectedNotes.append("snapshot \(newest.id.hex.prefix(12)) has not fully arrived (\(error)); its segments are read instead")
                return nil
            }
            offered = newest
            nextPart = 0
            partBuffer = []
            partOffset = 0
            do {
                _ = try await readNextPart(of: newest)
            } catch {
                offered = nil
                guard reason != .resume else { throw error }
                collectedNotes.append("snapshot \(newest.id.hex.prefix(12)) has not fully arrived (\(error)); its segments are read instead")
                return nil
            }
            return SnapshotOffer(
                id: newest.id, frontier: newest.frontier, recordCount: newest.recordCount, changeCount: newest.changeCount, reason: reason,
                statement: outcome == .unsigned ? nil : newest.manifestJSON)
        }
        if let pending, pending.source == hubID { return try await offer(.resume) }
        let covered = newest.frontier.knowledge.sortedCounters
        guard covered.contains(where: { knowledge[$0.0] < $0.1 }) else { return nil }  // it has all of it
        if !covered.contains(where: { knowledge[$0.0] > 0 }) { return try await offer(.join) }  // it has none of it
        // Segments are taken in order and collected in order: when the first one the store needs
        // of a replica is here, so are the rest.
        for (replica, head) in heads.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where replica != localReplica {
            guard let first = head.segments.first(where: { $0.hasChanges(beyond: knowledge) }),
                first.number <= newest.covers[replica] ?? 0
            else { continue }
            let key = head.key(of: first)
            if let fetched = try await hub({ () async throws(HubError) in try await storage.get(key, limit: HubSegment.maximumByteCount) }) {
                prefetched[key] = fetched.bytes
            } else {
                let last = heads[localReplica]?.updated
                collectedNotes.append(
                    "changes this replica lacks were collected by 'ferry hub compact' while it was away"
                        + (last.map { " (its last sync: \(ISO8601Milliseconds.format(milliseconds: $0)))" } ?? "")
                        + "; re-joined from snapshot \(newest.id.hex.prefix(12)) (\(newest.recordCount) records); "
                        + "its own changes since are kept and pushed")
                return try await offer(.collected(lastSynced: last))
            }
        }
        return nil
    }

    /// Proves `snapshot` before it is offered, once an exchange: refused unless its signed
    /// statement is a writer's of this hub and its parts give it (see ``HubSnapshotProof``).
    private func prove(_ snapshot: HubSnapshot) async throws(SyncError) -> HubSnapshotProof.Outcome {
        if let outcome = proven[snapshot.id] { return outcome }
        let heads = self.heads
        let members = membership.members
        let (outcome, kept) = try await hub { () async throws(HubError) in
            try await HubSnapshotProof(storage: storage).prove(snapshot, keepingUpTo: snapshotBytesKeptForJoin) { key in
                if let members { return members.member(withKey: key) != nil ? nil : "which is not the key of a member of this hub" }
                return heads[ReplicaID(derivedFrom: key)] != nil ? nil : "which is not the key of any replica that writes to this hub"
            }
        }
        keptPartsSnapshot = snapshot.id
        keptParts = kept.map { Optional($0) }
        if outcome == .unsigned, members != nil {
            // Signatures stripped, or written by no member: the hub's members sign its snapshots.
            throw .hub(.snapshotRefused(location: storage.location, key: HubSnapshot.manifestKey(snapshot.id),
                reason: "it is not signed, and this hub has members, whose snapshots are signed"))
        }
        if outcome == .unsigned {
            collectedNotes.append(
                "snapshot \(snapshot.id.hex.prefix(12)) was written before snapshots were signed: the state taken from it cannot be proven "
                    + "('ferry hub compact' run from a replica's store writes a signed one)")
        }
        proven[snapshot.id] = outcome
        return outcome
    }

    /// Whether `segment` of `replica` may be read (``HubMembership``); with ``trustNew``, a
    /// replica that is not a member is added, its key taken from its signed changes.
    private func admits(_ segment: HubHead.Segment, of replica: ReplicaID, head: HubHead) async throws(SyncError) -> Bool {
        let key = head.key(of: segment)
        do { return try membership.admits(segment.number, of: replica, key: key, location: storage.location) } catch {
            guard trustNew, case .notAMember = error else { throw .hub(error) }
        }
        guard let fetched = try await hub({ () async throws(HubError) in try await storage.get(key, limit: HubSegment.maximumByteCount) }) else {
            throw .hub(.notAMember(location: storage.location, replica: replica, key: key))
        }
        let changes = try await hub { () throws(HubError) in
            try HubSegment.decode(fetched.bytes, expected: segment, replica: replica, key: key, location: storage.location).changes
        }
        prefetched[key] = fetched.bytes
        let seals = changes.filter { $0.origin == replica }.compactMap { change in change.chain?.seal.map { (change, $0) } }
        guard let (sealed, seal) = seals.last, seal.isValid(for: sealed.digest), !replica.isKeyDerived || replica.isDerived(from: seal.signer) else {
            throw .transport("\(storage.location): cannot trust replica \(replica): \(key) carries no valid signature of its own to learn its key from")
        }
        guard let store = syncing as? Store else { throw .transport("\(storage.location): --trust-new needs a store that signs") }
        let signer: ReplicaSigningKey
        do { signer = try store.signingKey() } catch { throw .store(error) }
        try await hub { () async throws(HubError) in
            try await membership.trust(replica, key: seal.signer, by: signer, storage: storage, at: clock.milliseconds())
        }
        return true
    }

    /// The offered snapshot's versions, one part read at a time.
    public func snapshotChanges(limit: Int) async throws(SyncError) -> [Change]? {
        guard let snapshot = offered else { return nil }
        if partOffset >= partBuffer.count {
            guard try await readNextPart(of: snapshot) else {
                offered = nil
                return nil
            }
        }
        let end = min(partBuffer.count, partOffset + max(1, limit))
        defer { partOffset = end }
        return Array(partBuffer[partOffset..<end])
    }

    /// Reads and decodes the snapshot's next part into the buffer; `false` after the last.
    private func readNextPart(of snapshot: HubSnapshot) async throws(SyncError) -> Bool {
        guard nextPart < snapshot.parts.count else { return false }
        if keptPartsSnapshot == snapshot.id, nextPart < keptParts.count, let changes = keptParts[nextPart] {
            // Read and decoded by the proof a moment ago; handed out once (an offer made again
            // reads the part again).
            keptParts[nextPart] = nil
            partBuffer = changes
            partOffset = 0
            nextPart += 1
            return true
        }
        let part = snapshot.parts[nextPart]
        let key = HubSnapshot.partKey(snapshot: snapshot.id, part: part)
        guard let fetched = try await hub({ () async throws(HubError) in try await storage.get(key, limit: HubSnapshot.maximumPartByteCount) }) else {
            throw .hub(.malformed(location: storage.location, key: key,
                reason: "this part of the snapshot has not arrived yet, or a newer compaction replaced it; sync again"))
        }
        partBuffer = try await hub { () throws(HubError) in
            try HubSnapshot.decodePart(fetched.bytes, expected: part, key: key, location: storage.location)
        }
        partOffset = 0
        nextPart += 1
        return true
    }

    /// Writes `changes` as a new segment of this replica, then its head naming it.
    public func push(_ changes: [Change], maximumSkew: UInt64, continuing expected: PeerMark?) async throws(SyncError) -> PushResult {
        guard let localReplica, var head = own else { throw .transport("\(storage.location): the hub is not open") }
        let continues = expected == mark(as: localReplica)
        var result = PushResult()
        guard !changes.isEmpty else {
            result.markAfter = continues ? mark(as: localReplica) : nil
            return result
        }
        let number = UInt64(head.segments.count + 1)
        let encoded = HubSegment.encode(changes, replica: localReplica, number: number, previous: head.segments.last?.hash ?? .zero)
        let key = head.key(of: encoded.segment)
        do {
            _ = try await storage.put(key, encoded.bytes, createOnly: true)
        } catch {
            // Its name is its content's hash: one already there is this very segment, written
            // by a push that stopped before its head.
            guard case .alreadyExists = error else { throw .hub(error) }
        }
        head.segments.append(encoded.segment)
        head.latestModification = max(head.latestModification, encoded.latest)
        try await writeOwnHead(head, publishing: true)
        var frontier = hubFrontier
        for change in changes {
            if frontier.admit(change, ownReplica: hubID ?? localReplica) == .next { result.applied += 1 } else { result.alreadyKnown += 1 }
        }
        if lostHistory != nil { republished += result.applied }
        recomputeFrontier()
        if let known = localKnowledge {
            var counters = known.counters
            for change in changes where change.counter > counters[change.origin] ?? 0 { counters[change.origin] = change.counter }
            localKnowledge = VersionVector(counters)
        }
        result.markAfter = continues ? mark(as: localReplica) : nil
        return result
    }

    /// Writes this replica's head: its hash is noted durably first, so a head this store wrote
    /// is never taken for a copy's after a crash between the two.
    /// `publishing`: the head names a new segment (a replica that is not a member is told).
    private func writeOwnHead(_ newHead: HubHead, publishing: Bool = false) async throws(SyncError) {
        guard let localReplica else { return }
        var head = newHead
        head.updated = max(head.updated, clock.milliseconds())
        head.name = localName
        head.missing = missingReport
        if let signer {
            let key: ReplicaSigningKey
            do { key = try signer.signingKey() } catch { throw .store(error) }
            if !cache.openToAnyWriter || membership.members != nil {
                let otherHeads = heads.keys.filter { $0 != localReplica }.count
                try await hub { () async throws(HubError) in
                    try await membership.foundIfNew(
                        as: localReplica, name: localName, signer: key, publishing: publishing, otherHeads: otherHeads, storage: storage, hub: cache.membersHub ?? hubID ?? localReplica, at: clock.milliseconds())
                }
            }
            head = head.signed(with: key)
        } else {
            head = head.unsigned
        }
        let bytes = head.bytes
        cache.ownHeadHashes.append(SHA256.hash(bytes))
        try saveCacheDurably()
        let tag = try await hub { () async throws(HubError) in try await storage.put(HubHead.key(of: localReplica), bytes, createOnly: false) }
        own = head
        ownHeadRefused = false
        heads[localReplica] = head
        cache.heads[localReplica] = (tag, head)
        saveCache()
    }

    /// Updates this replica's head: when it synced, its record count, and how many segments
    /// of every other replica it has read in full (what `hub compact` may collect).
    public func saveCheckpoint(_ checkpoint: PeerCheckpoint) async throws(SyncError) {
        guard var head = own else { return }
        head.recordCount = checkpoint.recordCount
        head.names = checkpoint.names.filter { $0.key != head.replica }
        if let known = localKnowledge {
            for (replica, other) in heads where replica != localReplica {
                let read = other.segments.prefix { segment in !segment.hasChanges(beyond: known) }.count
                head.read[replica] = max(head.read[replica] ?? 0, UInt64(read))
            }
        }
        try await writeOwnHead(head)
    }
}

/// The progress of one pull from a hub: which segments remain, what the store holds so far,
/// and the changes that arrived before the ones they follow.
struct HubReading {
    /// The knowledge the plan was made for.
    let basis: VersionVector
    /// Whether a segment of the plan could not be read (not arrived, or not matching its hash yet).
    var leftOut = false
    private let plan: [(replica: ReplicaID, segment: HubHead.Segment)]
    private var next = 0
    /// The store's counters with what this reading has handed out (kept as a dictionary: it
    /// moves on every change of a pull).
    private var counters: [ReplicaID: UInt64]
    /// The store's knowledge with what this reading has handed out.
    var reached: VersionVector { VersionVector(counters) }
    /// Changes that came before their predecessor, by origin and counter.
    private var early: [ReplicaID: [UInt64: Change]] = [:]

    init(basis: VersionVector, plan: [(replica: ReplicaID, segment: HubHead.Segment)]) {
        self.basis = basis
        self.plan = plan
        self.counters = basis.counters
    }

    var isFinished: Bool { next >= plan.count }

    /// Changes still waiting for an earlier one.
    var waiting: Int { early.values.reduce(0) { $0 + $1.count } }

    mutating func nextSegment() -> (ReplicaID, HubHead.Segment)? {
        guard next < plan.count else { return nil }
        defer { next += 1 }
        return (plan[next].replica, plan[next].segment)
    }

    /// Hands out `change` if it is its origin's next, with any that were waiting for it;
    /// keeps it if it came early; drops it if the store has it.
    mutating func offer(_ change: Change, into batch: inout [Change]) {
        let origin = change.origin
        var held = counters[origin] ?? 0
        guard change.counter > held else { return }
        guard change.counter == held + 1 else {
            early[origin, default: [:]][change.counter] = change
            return
        }
        batch.append(change)
        held += 1
        while let following = early[origin]?.removeValue(forKey: held + 1) {
            batch.append(following)
            held += 1
        }
        if early[origin]?.isEmpty == true { early[origin] = nil }
        counters[origin] = held
    }
}
