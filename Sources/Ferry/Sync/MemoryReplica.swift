import Foundation

/// A replica held in memory: a journal with the same entries and hash chain as a store's (made
/// by ``JournalEntry/make(sequence:change:previousSequenceOfRecord:previousHash:batch:)``, which
/// knows nothing of files), every record's current versions with the store's rules (the same
/// ``RecordState``), its own edits, and checkpoints. It is both sides of a sync: a peer like a
/// store folder, `ferry serve` or a hub (``SyncTransport``), and the replica a sync runs for
/// (``SyncReplica``), so the engine's plans, pulls, policies, pushes and checkpoints can be
/// exercised with no disk at all: in Ferry's tests, and in an app's own.
///
/// ```swift
/// let laptop = MemoryReplica(name: "laptop")
/// let server = MemoryReplica(name: "server")
/// try laptop.put(["title": "Plan"], entity: note, id: "n1")
/// _ = try await SyncEngine(replica: laptop, transport: server).run()
/// ```
public final class MemoryReplica: SyncTransport, SyncReplica, WriteCheck, @unchecked Sendable {
    /// The replica's id (a store syncing with it keeps its checkpoint under it).
    public let replicaID: ReplicaID
    public let name: String?
    /// Whether it refuses pushes, like a store served with a read-only token.
    public var isReadOnly = false
    public let wallClock: any WallClock

    private let lock = NSLock()
    /// The names of replicas its peers passed on.
    private var heardNames = ReplicaNameBook()
    /// Keys learned for replicas whose ids are not derived from keys.
    private var keys = ReplicaKeyBook()
    private var entries: [JournalEntry] = []
    private var lines: [[UInt8]] = []
    private var knownFrontier = ReplicaFrontier(knowledge: VersionVector(), digests: [:])
    private var states: [RecordKey: RecordState] = [:]
    private var documents: [ChangeIdentity: JSONValue] = [:]
    private var clock: HybridLogicalClock
    private var savedCheckpoints: [ReplicaID: SyncCheckpoint] = [:]
    private var base = SnapshotJoins()
    private var exchanging = false

    public init(replica: ReplicaID = .generate(), name: String? = nil, clock: any WallClock = SystemClock()) {
        self.replicaID = replica
        self.name = name
        self.wallClock = clock
        self.clock = HybridLogicalClock(wallClock: clock)
    }

    public var peerDescription: String { "memory:\(name ?? replicaID.short)" }

    // MARK: Its own edits

    /// Writes a record: a new version that descends from every current one.
    public func put(_ document: JSONValue, entity: EntityName, id: RecordID) throws(StoreError) {
        guard document.objectValue != nil else { throw .coding("\(entity)/\(id): a record is a JSON object") }
        lock.withLock { write(RecordKey(entity: entity, id: id), document) }
    }

    /// Deletes a record (a tombstone that travels like any change).
    public func delete(entity: EntityName, id: RecordID) throws(StoreError) {
        let key = RecordKey(entity: entity, id: id)
        guard lock.withLock({ states[key]?.isLive == true }) else { throw .recordNotFound(key) }
        lock.withLock { write(key, nil) }
    }

    /// The winning version's document of a live record.
    public func get(entity: EntityName, id: RecordID) -> JSONValue? {
        lock.withLock {
            guard let state = states[RecordKey(entity: entity, id: id)], state.isLive else { return nil }
            return documents[state.winner.identity]
        }
    }

    /// A change of this replica's, stamped now, journaled. Called holding the lock.
    private func write(_ key: RecordKey, _ document: JSONValue?) {
        let counter = knownFrontier.knowledge[replicaID] + 1
        var counters = (states[key]?.mergedVersion ?? VersionVector()).counters
        counters[replicaID] = counter
        var change = Change(
            origin: replicaID, counter: counter, timestamp: clock.tick(), key: key, operation: document.map { .put($0) } ?? .delete,
            version: VersionVector(counters))
        change.chain = ChangeChain(change, parent: knownFrontier.digests[replicaID] ?? .zero)
        knownFrontier = SnapshotJoins.raise(knownFrontier, to: Self.frontier(of: change))
        append(change)
    }

    /// Journals a change and folds it into its record's state. Called holding the lock.
    private func append(_ change: Change) {
        let sequence = UInt64(entries.count + 1)
        let made = JournalEntry.make(
            sequence: sequence, change: change, previousSequenceOfRecord: states[change.key]?.lastSequence ?? 0,
            previousHash: entries.last?.hash ?? .zero)
        entries.append(made.entry)
        lines.append(made.line)
        let document = change.operation.document
        if let document { documents[change.identity] = document }
        let version = RecordVersion(
            identity: change.identity, timestamp: change.timestamp, version: change.version, isDelete: change.isDelete,
            contentHash: document.map { SHA256.hash($0.canonicalBytes()) } ?? .zero, sequence: sequence)
        if var state = states[change.key] {
            _ = state.incorporate(version)
            state.lastSequence = sequence
            states[change.key] = state
        } else {
            states[change.key] = RecordState(versions: [version], lastSequence: sequence, file: nil)
        }
        clock.receive(change.timestamp)
    }

    // MARK: What tests look at

    /// Its journal, in order.
    public var journal: [JournalEntry] { lock.withLock { entries } }
    /// Its journal as a store would write it: one canonical JSON line per entry.
    public var journalLines: [[UInt8]] { lock.withLock { lines } }
    /// Every record's current versions' documents, winner first (`nil` for a delete).
    public var records: [RecordKey: [JSONValue?]] {
        lock.withLock { states.mapValues { $0.versions.map { documents[$0.identity] } } }
    }
    /// The checkpoints stores saved here after syncing, by store.
    public var checkpoints: [ReplicaID: SyncCheckpoint] { lock.withLock { savedCheckpoints } }

    // MARK: SyncTransport (as a peer)

    public func open() async throws(SyncError) -> PeerInfo {
        PeerInfo(replica: replicaID, name: name, format: StoreManifest.currentFormat, head: head, names: knownReplicaNames)
    }

    public func close() async {}

    public func frontier() async throws(SyncError) -> ReplicaFrontier { lock.withLock { knownFrontier } }

    public func mayWrite() async -> Bool? { !isReadOnly }

    public func liveRecordCount() async throws(SyncError) -> Int { recordCount }

    public func resume(from mark: PeerMark) async throws(SyncError) -> UInt64? {
        try await StoreMark.resume(from: mark, head: head) { (position) throws(SyncError) in lock.withLock { hash(at: position) } }
    }

    public func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch {
        lock.withLock { batch(after: position, excluding: knowledge, limit: limit) }
    }

    /// Checks every change (its digest, its place in its origin's chain) before taking any, then
    /// journals the new ones in order, as a store's receive does.
    public func push(_ changes: [Change], maximumSkew: UInt64, continuing mark: PeerMark?) async throws(SyncError) -> PushResult {
        guard !isReadOnly else { throw .transport("\(peerDescription) is read-only") }
        return PushResult(try receive(changes, from: "push to \(peerDescription)", maximumSkew: maximumSkew), continuing: mark)
    }

    public func saveCheckpoint(_ checkpoint: PeerCheckpoint) async throws(SyncError) {
        let own = checkpoint.storeCheckpoint
        lock.withLock { savedCheckpoints[own.peer] = own }
        do { try learnReplicaNames(checkpoint.names) } catch { throw .store(error) }
    }

    // MARK: SyncReplica (as the replica a sync runs for)

    public var replicaName: String? { name }

    public var knownReplicaNames: [ReplicaID: String] {
        lock.withLock {
            var names = heardNames.names
            if let name { names[replicaID] = name }
            return names
        }
    }

    public func learnReplicaNames(_ heard: [ReplicaID: String]) throws(StoreError) {
        var heard = heard
        heard[replicaID] = nil
        lock.withLock { _ = heardNames.learn(heard) }
    }
    public var location: String { peerDescription }
    public var instance: String? { nil }
    public var cacheLayout: StoreLayout? { nil }

    public var head: StoreHead {
        lock.withLock { StoreHead(sequence: UInt64(entries.count), hash: entries.last?.hash ?? .zero, latestModification: clock.latest) }
    }

    public var recordCount: Int { lock.withLock { states.values.filter(\.isLive).count } }

    /// One exchange at a time, as a store's lock allows.
    public func beginExchange() throws(StoreError) {
        let busy = lock.withLock { () -> Bool in
            if exchanging { return true }
            exchanging = true
            return false
        }
        if busy { throw .locked(path: peerDescription, holder: nil, waitedSeconds: 0) }
    }

    public func endExchange() { lock.withLock { exchanging = false } }

    public func pendingJoin() throws(StoreError) -> SnapshotJoins.Join? { lock.withLock { base.pending } }

    public func checkpoint(for peer: ReplicaID) throws(StoreError) -> SyncCheckpoint? { lock.withLock { savedCheckpoints[peer] } }

    public func saveCheckpoint(_ checkpoint: SyncCheckpoint) throws(StoreError) {
        lock.withLock { savedCheckpoints[checkpoint.peer] = checkpoint }
    }

    public func entryHash(at sequence: UInt64) throws(StoreError) -> SHA256Digest? { lock.withLock { hash(at: sequence) } }

    public func journalEntry(at sequence: UInt64) throws(StoreError) -> JournalEntry {
        lock.lock()
        defer { lock.unlock() }
        guard sequence >= 1, sequence <= UInt64(entries.count) else { throw .coding("\(peerDescription): no journal entry \(sequence)") }
        return entries[Int(sequence - 1)]
    }

    public func currentFrontier() throws(StoreError) -> ReplicaFrontier { lock.withLock { knownFrontier } }

    public func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) throws(StoreError) -> ChangeBatch {
        lock.withLock { batch(after: position, excluding: knowledge, limit: limit) }
    }

    public func checkSignatures(_ changes: [Change], from source: String) throws(SyncError) {
        var verified = Set<SHA256Digest>()
        let book = lock.withLock { keys }
        _ = try SealCheck.check(changes, book: book, source: source, verified: &verified)
    }

    public func ownPublicKey() -> ReplicaPublicKey? { nil }

    public func requiresSignatures(from origin: ReplicaID) -> Bool {
        origin.isKeyDerived || lock.withLock { keys[origin] != nil }
    }

    public func receive(_ changes: [Change], from peer: String, maximumSkew: UInt64) throws(SyncError) -> ReceiveResult {
        try apply(changes, from: peer, maximumSkew: maximumSkew, asSnapshot: false)
    }

    public func receiveSnapshot(_ changes: [Change], from peer: String, maximumSkew: UInt64) throws(SyncError) -> ReceiveResult {
        try apply(changes, from: peer, maximumSkew: maximumSkew, asSnapshot: true)
    }

    public func beginJoin(_ join: SnapshotJoins.Join) throws(StoreError) { lock.withLock { base.pending = join } }

    public func finishJoin(frontier: ReplicaFrontier, records: Int) throws(StoreError) {
        lock.withLock {
            base.frontier = SnapshotJoins.raise(base.frontier, to: frontier)
            if var join = base.pending {
                join.sequence = UInt64(entries.count)
                join.records = records
                base.joins.append(join)
            }
            base.pending = nil
            knownFrontier = SnapshotJoins.raise(knownFrontier, to: frontier)
        }
    }

    public func state(of key: RecordKey) throws(StoreError) -> RecordState? { lock.withLock { states[key] } }

    public func conflicts() throws(StoreError) -> [ConflictSummary] {
        lock.withLock {
            states.filter(\.value.isConflicted).sorted { $0.key < $1.key }.map { key, state in
                func summary(_ version: RecordVersion) -> ConflictSummary.Version {
                    ConflictSummary.Version(identity: version.identity, timestamp: version.timestamp, isDelete: version.isDelete, file: nil)
                }
                return ConflictSummary(key: key, winner: summary(state.winner), losers: state.losers.map(summary))
            }
        }
    }

    public func versions(of key: RecordKey) throws(StoreError) -> [(version: RecordVersion, document: JSONValue?)] {
        lock.withLock { (states[key]?.versions ?? []).map { ($0, documents[$0.identity]) } }
    }

    /// - Returns: an empty result: a memory replica keeps no journal entries and no files.
    @discardableResult
    public func resolve(_ key: RecordKey, with document: JSONValue?) throws(StoreError) -> WriteResult {
        lock.lock()
        defer { lock.unlock() }
        guard states[key]?.isConflicted == true else { throw .noConflict(key) }
        write(key, document)
        return WriteResult()
    }

    // MARK: Shared

    /// The frontier of a replica that holds `change` and nothing else.
    private static func frontier(of change: Change) -> ReplicaFrontier {
        ReplicaFrontier(knowledge: VersionVector([change.origin: change.counter]), digests: [change.origin: change.digest])
    }

    private func hash(at sequence: UInt64) -> SHA256Digest? {
        if sequence == 0 { return .zero }
        return sequence <= UInt64(entries.count) ? entries[Int(sequence - 1)].hash : nil
    }

    private func batch(after position: UInt64, excluding knowledge: VersionVector, limit: Int) -> ChangeBatch {
        let head = UInt64(entries.count)
        var through = min(position, head)
        var changes: [Change] = []
        var sequences: [UInt64] = []
        while changes.count < max(1, limit), through < head {
            let entry = entries[Int(through)]
            through += 1
            guard knowledge[entry.change.origin] < entry.change.counter else { continue }
            changes.append(entry.change)
            sequences.append(entry.sequence)
        }
        return ChangeBatch(changes: changes, through: through, head: head, sequences: sequences)
    }

    /// Checks every change before taking any, then journals the new ones in order. A snapshot's
    /// versions are taken unless the record has them or a later one; other changes must be the
    /// next of their origin, as in a store.
    private func apply(_ changes: [Change], from peer: String, maximumSkew: UInt64, asSnapshot: Bool) throws(SyncError) -> ReceiveResult {
        try Store.checkIncoming(changes, from: peer, maximumSkew: maximumSkew, now: wallClock.milliseconds(), options: StoreOptions())
        lock.lock()
        defer { lock.unlock() }
        var result = ReceiveResult()
        result.headBefore = UInt64(entries.count)
        var frontier = knownFrontier
        var admitted: [Change] = []
        for change in changes {
            let admission: ReplicaFrontier.Admission
            if asSnapshot {
                admission = states[change.key]?.holds(change.version) == true ? .alreadyKnown : .next
            } else {
                admission = frontier.admit(change, ownReplica: replicaID)
            }
            switch admission {
            case .alreadyKnown: result.alreadyKnown += 1
            case .next: admitted.append(change)
            case .gap(let expected):
                throw .counterGap(peer: peer, origin: change.origin, expected: expected, found: change.counter)
            case .diverged:
                throw .divergedReplica(origin: change.origin, counter: change.counter, local: peerDescription, peer: peer, copy: nil)
            }
        }
        if !asSnapshot {
            var verified = Set<SHA256Digest>()
            for (origin, key) in try SealCheck.check(admitted, book: keys, source: peer, verified: &verified) { keys.hold(key, for: origin) }
        }
        for change in admitted {
            if asSnapshot { frontier = SnapshotJoins.raise(frontier, to: Self.frontier(of: change)) }
            append(change)
        }
        knownFrontier = frontier
        result.applied = admitted.count
        result.headAfter = UInt64(entries.count)
        result.hashAfter = entries.last?.hash ?? .zero
        return result
    }
}
