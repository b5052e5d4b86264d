import Foundation

/// A replica held in memory: a journal with the same entries and hash chain as a store's (made
/// by ``JournalEntry/make(sequence:change:previousSequenceOfRecord:previousHash:batch:)``, which
/// knows nothing of files), every record's current versions, and the checkpoints stores leave.
/// It is a peer like a store folder, `ferry serve` or a hub, so the sync engine's plans, pulls,
/// pushes, policies and checkpoints can be exercised with no peer on disk: in Ferry's tests,
/// and in an app's own.
///
/// ```swift
/// let server = MemoryReplica(name: "server")
/// _ = try await laptop.sync(with: server)
/// _ = try await phone.sync(with: server)     // the phone now has the laptop's records
/// ```
public final class MemoryReplica: SyncTransport, @unchecked Sendable {
    /// The replica's id (a store syncing with it keeps its checkpoint under it).
    public let replicaID: ReplicaID
    public let name: String?
    /// Whether it refuses pushes, like a store served with a read-only token.
    public var isReadOnly = false

    private let lock = NSLock()
    private var entries: [JournalEntry] = []
    private var lines: [[UInt8]] = []
    private var knownFrontier = ReplicaFrontier(knowledge: VersionVector(), digests: [:])
    private var state = HubState()
    private var lastSequenceOfRecord: [RecordKey: UInt64] = [:]
    private var latest = HybridTimestamp.zero
    private var savedCheckpoints: [ReplicaID: SyncCheckpoint] = [:]

    public init(replica: ReplicaID = .generate(), name: String? = nil) {
        self.replicaID = replica
        self.name = name
    }

    public var peerDescription: String { "memory:\(name ?? replicaID.short)" }

    // MARK: What tests look at

    /// Its journal, in order.
    public var journal: [JournalEntry] { lock.withLock { entries } }
    /// Its journal as a store would write it: one canonical JSON line per entry.
    public var journalLines: [[UInt8]] { lock.withLock { lines } }
    /// Every record's current versions' documents (`nil` for a delete), in no particular order.
    public var records: [RecordKey: [JSONValue?]] {
        lock.withLock { state.records.mapValues { $0.map(\.operation.document) } }
    }
    /// The checkpoints stores saved here after syncing, by store.
    public var checkpoints: [ReplicaID: SyncCheckpoint] { lock.withLock { savedCheckpoints } }

    // MARK: SyncTransport

    public func open() async throws(SyncError) -> PeerInfo {
        lock.withLock {
            PeerInfo(
                replica: replicaID, name: name, format: StoreManifest.currentFormat,
                head: StoreHead(sequence: UInt64(entries.count), hash: entries.last?.hash ?? .zero, latestModification: latest))
        }
    }

    public func close() async {}

    public func knowledge() async throws(SyncError) -> VersionVector { lock.withLock { knownFrontier.knowledge } }

    public func frontier() async throws(SyncError) -> ReplicaFrontier { lock.withLock { knownFrontier } }

    public func mayWrite() async -> Bool? { !isReadOnly }

    /// Records whose winning version (highest stamp, then origin) is not a delete.
    public func liveRecordCount() async throws(SyncError) -> Int {
        lock.withLock {
            state.records.values.filter { versions in
                versions.max { ($0.timestamp, $0.origin.rawValue) < ($1.timestamp, $1.origin.rawValue) }?.isDelete == false
            }.count
        }
    }

    public func entryHash(at sequence: UInt64) async throws(SyncError) -> SHA256Digest? {
        lock.withLock {
            if sequence == 0 { return .zero }
            return sequence <= UInt64(entries.count) ? entries[Int(sequence - 1)].hash : nil
        }
    }

    public func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch {
        lock.withLock {
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
    }

    /// Checks every change (its digest, its place in its origin's chain) before taking any, then
    /// journals the new ones in order, as a store's receive does.
    public func push(_ changes: [Change], maximumSkew: UInt64) async throws(SyncError) -> ReceiveResult {
        guard !isReadOnly else { throw .transport("\(peerDescription) is read-only") }
        return try receive(changes)
    }

    private func receive(_ changes: [Change]) throws(SyncError) -> ReceiveResult {
        lock.lock()
        defer { lock.unlock() }
        var result = ReceiveResult()
        result.headBefore = UInt64(entries.count)
        var frontier = knownFrontier
        var admitted: [Change] = []
        for change in changes {
            guard let chain = change.chain, chain.matches(change) else {
                throw .alteredChange(source: "push to \(peerDescription)", change: change.identity, record: change.key)
            }
            switch frontier.admit(change, ownReplica: replicaID) {
            case .alreadyKnown: result.alreadyKnown += 1
            case .next: admitted.append(change)
            case .gap(let expected):
                throw .counterGap(peer: "push to \(peerDescription)", origin: change.origin, expected: expected, found: change.counter)
            case .diverged:
                throw .divergedReplica(origin: change.origin, counter: change.counter, local: peerDescription, peer: "the pusher", copy: nil)
            }
        }
        for change in admitted {
            let sequence = UInt64(entries.count + 1)
            let made = JournalEntry.make(
                sequence: sequence, change: change, previousSequenceOfRecord: lastSequenceOfRecord[change.key] ?? 0,
                previousHash: entries.last?.hash ?? .zero)
            entries.append(made.entry)
            lines.append(made.line)
            lastSequenceOfRecord[change.key] = sequence
            state.incorporate(change)
            if change.timestamp > latest { latest = change.timestamp }
        }
        knownFrontier = frontier
        result.applied = admitted.count
        result.headAfter = UInt64(entries.count)
        result.hashAfter = entries.last?.hash ?? .zero
        return result
    }

    public func saveCheckpoint(_ checkpoint: SyncCheckpoint) async throws(SyncError) {
        lock.withLock { savedCheckpoints[checkpoint.peer] = checkpoint }
    }
}
