/// The engine's view of a store, derived from the journal: every record's current versions,
/// which changes of each replica it has, and where the journal ends.
///
/// The index can always be rebuilt by replaying the journal; its image in `.ferry/index`
/// (see ``IndexFile``) saves that work, and is read lazily.
struct StoreIndex: Sendable {
    /// Every record ever written (live, deleted or conflicted).
    var records = RecordTable()
    /// For each replica, the counter of its latest change this store has.
    var knowledge = VersionVector()
    /// For each replica, the digest of its latest change this store has: where the next change of
    /// that replica must chain on (see ``ChangeChain``).
    var digests: [ReplicaID: SHA256Digest] = [:]
    /// The journal's last sequence and hash that this index covers.
    var headSequence: UInt64 = 0
    var headHash: SHA256Digest = .zero
    /// The highest clock stamp in the journal.
    var latestModification: HybridTimestamp = .zero
    /// Live records per entity.
    var liveCounts: [EntityName: Int] = [:]
    /// Records whose concurrent versions differ.
    var conflicted = Set<RecordKey>()

    init() {}

    /// The index an image file describes (its records are read from the file on demand).
    init(image: IndexFile) {
        let header = image.header
        records = RecordTable(base: image)
        knowledge = header.knowledge
        digests = header.digests
        headSequence = header.head.sequence
        headHash = header.head.hash
        latestModification = header.head.latestModification
        liveCounts = header.liveCounts
        conflicted = header.conflicted
    }

    /// Whether the store already has the change `identity`.
    func contains(_ identity: ChangeIdentity) -> Bool {
        knowledge[identity.origin] >= identity.counter
    }

    /// What applying one entry did.
    struct Application {
        var key: RecordKey
        var before: RecordState?
        var after: RecordState
        var incorporation: RecordState.Incorporation
    }

    /// Applies a journal entry (already numbered) to the index.
    /// - Parameter knownBefore: the record's state in the index, when the caller just looked
    ///   it up (saves searching the image again for a new record); `nil` to look it up.
    mutating func apply(_ entry: JournalEntry, contentHash: SHA256Digest? = nil, before knownBefore: RecordState?? = nil) -> Application {
        let change = entry.change
        let hash: SHA256Digest
        if let contentHash {
            hash = contentHash
        } else if let document = change.operation.document {
            hash = SHA256.hash(document.canonicalBytes())
        } else {
            hash = .zero
        }
        let version = RecordVersion(
            identity: change.identity, timestamp: change.timestamp, version: change.version,
            isDelete: change.isDelete, contentHash: hash, sequence: entry.sequence)
        let before: RecordState?
        if let knownBefore { before = knownBefore } else { before = records[change.key] }
        var state: RecordState
        let incorporation: RecordState.Incorporation
        if var existing = before {
            incorporation = existing.incorporate(version)
            existing.lastSequence = entry.sequence
            state = existing
        } else {
            state = RecordState(versions: [version], lastSequence: entry.sequence, file: nil)
            incorporation = .added
        }
        let liveChange = (state.isLive ? 1 : 0) - (before?.isLive == true ? 1 : 0)
        if liveChange != 0 {
            let live = liveCounts[change.key.entity, default: 0] + liveChange
            liveCounts[change.key.entity] = live == 0 ? nil : live
        }
        if state.isConflicted {
            conflicted.insert(change.key)
        } else if !conflicted.isEmpty {
            conflicted.remove(change.key)
        }
        records.set(change.key, state, isNew: before == nil)
        if knowledge[change.origin] < change.counter {
            knowledge[change.origin] = change.counter
            digests[change.origin] = change.digest
        }
        if change.timestamp > latestModification { latestModification = change.timestamp }
        headSequence = entry.sequence
        headHash = entry.hash
        return Application(key: change.key, before: before, after: state, incorporation: incorporation)
    }

    /// Live record count of all entities.
    var liveRecordCount: Int { liveCounts.values.reduce(0, +) }

    /// Where the index says the journal ends.
    var head: StoreHead { StoreHead(sequence: headSequence, hash: headHash, latestModification: latestModification) }
}

/// Where a store's journal ends: enough to decide that two stores are up to date without
/// reading any record.
public struct StoreHead: Sendable, Hashable {
    /// The last journal sequence (0 when empty).
    public var sequence: UInt64
    /// The last entry's hash (zeros when empty).
    public var hash: SHA256Digest
    /// The highest clock stamp in the journal.
    public var latestModification: HybridTimestamp

    public init(sequence: UInt64, hash: SHA256Digest, latestModification: HybridTimestamp) {
        self.sequence = sequence
        self.hash = hash
        self.latestModification = latestModification
    }
}
