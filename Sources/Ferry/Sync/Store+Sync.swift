import Foundation

/// A page of changes read from a journal.
public struct ChangeBatch: Sendable {
    /// The changes, in journal order, without those the requester already has.
    public var changes: [Change]
    /// The journal position read through (pass it as `after` for the next page).
    public var through: UInt64
    /// The journal's head when read.
    public var head: UInt64
    /// Each change's journal position, when the batch was read from a journal (a page may be
    /// cut after any of them).
    public var sequences: [UInt64]
    /// Whether the peer left out changes it holds but could not read now (a hub's segment that
    /// has not arrived yet): the exchange then does not record the peer's mark as read.
    public var isPartial: Bool

    public init(changes: [Change], through: UInt64, head: UInt64, sequences: [UInt64] = [], isPartial: Bool = false) {
        self.changes = changes
        self.through = through
        self.head = head
        self.sequences = sequences
        self.isPartial = isPartial
    }
}

/// What applying received changes did.
public struct ReceiveResult: Sendable {
    /// Changes new to this store, now in its journal.
    public var applied: Int = 0
    /// Changes skipped because the store already had them.
    public var alreadyKnown: Int = 0
    /// Records that became conflicted.
    public var newConflicts: [RecordKey] = []
    /// Hand edits of the received records that were journaled first, as local changes.
    public var committedEdits: Int = 0
    /// Journal head before and after (after any hand edits were journaled).
    public var headBefore: UInt64 = 0
    public var headAfter: UInt64 = 0
    public var hashAfter: SHA256Digest = .zero

    public init() {}
}

extension Store {
    /// Changes after journal position `position`, leaving out those `knowledge` says the
    /// requester has, at most `limit` of them, and fewer once their documents take about
    /// ``StoreOptions/maximumPageBytes`` (at least one).
    public func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) throws(StoreError) -> ChangeBatch {
        mutex.lock()
        defer { mutex.unlock() }
        if journal.hasExternalAppends() {
            try lock.acquire(timeout: options.lockTimeout)
            defer { lock.release() }
            try catchUpWithOtherProcesses()
        }
        let head = journal.headSequence
        var changes: [Change] = []
        var sequences: [UInt64] = []
        var through = min(position, head)
        var bytes = 0
        let budget = options.maximumPageBytes
        // The journal's entries taken, checked against their digests once read (below).
        var taken: [JournalEntry] = []
        var isFull: Bool { changes.count + taken.count >= limit || bytes >= budget }
        if let start = journal.start, through + 1 < start.first,
            start.frontier.knowledge.sortedCounters.contains(where: { knowledge[$0.0] < $0.1 })
        {
            // The requester lacks archived changes: read them from the archive, then go on
            // after it (the kept entries are archived changes too).
            guard let archive = JournalArchive.open(start: start, root: layout.root) else {
                throw .historyArchived(
                    store: path, position: through, first: start.first, archive: start.archives.last.map { JournalStart.resolve($0.path, root: layout.root) } ?? "archive")
            }
            try archive.forEachEntry(after: through) { (entry) throws(StoreError) -> Bool in
                through = entry.sequence
                var change = entry.change
                if knowledge[change.origin] >= change.counter { return true }
                try checkIntact(entry)
                if change.chain == nil { change.chain = change.chainOrLegacy }
                bytes += change.estimatedPageBytes
                changes.append(change)
                sequences.append(entry.sequence)
                return !isFull
            }
            if isFull && through + 1 < start.first {
                return ChangeBatch(changes: changes, through: through, head: head, sequences: sequences)
            }
            through = start.first - 1
        }
        // A requester that holds no change (a first push, a full pull into an empty store) has
        // nothing to pass over: its entries are decoded whole at once, without their headers
        // read first (about 4% of a 10k-record first push to a hub).
        let holdsChanges = knowledge.counters.values.contains { $0 > 0 }
        var unreadable: (any Error)?
        do {
            var cursor = try journal.entries(after: through)
            while !isFull {
                // At the end everything up to the head was read (a compacted journal's kept
                // entries skip archived positions, so the last entry read may be before it).
                // What the requester has is passed over without its document being parsed.
                let next: JournalCursor.Step?
                if holdsChanges {
                    next = try cursor.next(unless: { origin, counter in knowledge[origin] >= counter })
                } else {
                    next = try cursor.next().map { .entry($0) }
                }
                guard let step = next else {
                    through = head
                    break
                }
                let entry: JournalEntry
                switch step {
                case .passedOver(let sequence):
                    through = sequence
                    continue
                case .entry(let decoded):
                    entry = decoded
                }
                through = entry.sequence
                if knowledge[entry.change.origin] >= entry.change.counter { continue }
                bytes += entry.change.estimatedPageBytes
                taken.append(entry)
            }
        } catch {
            unreadable = error
        }
        // Each entry taken is checked against its digest on every core (a third of reading them,
        // on one core before): the first one altered is refused, and an entry that could not be
        // read only after those before it were checked.
        let read = taken
        let intact = ParallelWork.map(count: read.count, minimumChunk: 256) { index in Self.isIntact(read[index]) }
        if let altered = intact.firstIndex(of: false) { try checkIntact(read[altered]) }
        switch unreadable {
        case nil: break
        case let error as JournalError: throw .journal(error)
        case let error as StoreError: throw error
        case let error?: throw .coding("\(error)")
        }
        for entry in read {
            var change = entry.change
            if change.chain == nil { change.chain = change.chainOrLegacy }
            changes.append(change)
            sequences.append(entry.sequence)
        }
        return ChangeBatch(changes: changes, through: through, head: head, sequences: sequences)
    }

    /// Checks changes from a peer before any is applied: not stamped too far ahead of `now`,
    /// a version that includes the change itself, a document within `options`' limits, and
    /// content that still matches its digest.
    static func checkIncoming(
        _ changes: [Change], from peer: String, maximumSkew: UInt64, now: UInt64, options: StoreOptions
    ) throws(SyncError) {
        for change in changes {
            if change.timestamp.physical > now + maximumSkew {
                throw .clockSkew(
                    peer: peer, origin: change.origin, record: change.key, aheadByMilliseconds: change.timestamp.physical - now, limit: maximumSkew)
            }
            if change.version[change.origin] != change.counter {
                throw .invalidChange(peer: peer, reason: "\(change.key): its version does not include its own change")
            }
            guard let chain = change.chain else {
                throw .invalidChange(peer: peer, reason: "change \(change.identity) to \(change.key) carries no digest")
            }
            var canonical: [UInt8]?
            if let document = change.operation.document {
                do { canonical = try validatedCanonicalBytes(document, options: options) } catch {
                    throw .invalidChange(peer: peer, reason: "\(change.key): \(error)")
                }
            }
            if ChangeChain.digest(of: change, parent: chain.parent, canonicalDocument: canonical) != chain.digest {
                throw .alteredChange(source: peer, change: change.identity, record: change.key)
            }
        }
    }

    /// Whether `entry` is as it was written: its change matches its digest, or (written before
    /// changes carried digests) its line matches its hash.
    static func isIntact(_ entry: JournalEntry) -> Bool {
        entry.change.chain.map { $0.matches(entry.change) } ?? (entry.computedHash() == entry.hash)
    }

    /// Throws when `entry` was altered after it was written: its change no longer matches its
    /// digest, or (written before changes carried digests) its line no longer matches its hash.
    func checkIntact(_ entry: JournalEntry) throws(StoreError) {
        guard !Self.isIntact(entry) else { return }
        throw .alteredEntry(
            store: path, location: journalLocation(of: entry.sequence), sequence: entry.sequence,
            change: entry.change.identity, record: entry.change.key)
    }

    /// `journal/<segment file>:<line>` of the entry at `sequence`, as `ferry verify` names it.
    func journalLocation(of sequence: UInt64) -> String {
        guard let segment = journal.segments.last(where: { $0.firstSequence <= sequence }) else { return "journal" }
        return "journal/\(segment.name):\(sequence - segment.firstSequence + 1)"
    }

    /// Applies changes received from a peer: those already here are skipped; the rest are
    /// journaled with their origin, counter and stamp intact, in one durable append.
    ///
    /// - Parameter maximumSkew: a change stamped more than this many milliseconds ahead of the
    ///   local wall clock is refused (nothing is applied).
    public func receive(_ changes: [Change], from peer: String, maximumSkew: UInt64) throws(SyncError) -> ReceiveResult {
        try receive(changes, from: peer, maximumSkew: maximumSkew, asSnapshot: false)
    }

    /// Applies `changes` as ``receive(_:from:maximumSkew:)`` does; with `asSnapshot`, they are
    /// the record versions of a snapshot (see ``receiveSnapshot(_:from:maximumSkew:)``).
    func receive(_ changes: [Change], from peer: String, maximumSkew: UInt64, asSnapshot: Bool) throws(SyncError) -> ReceiveResult {
        // Check everything before writing anything.
        try Store.checkIncoming(changes, from: peer, maximumSkew: maximumSkew, now: options.clock.milliseconds(), options: options)
        var refusal: SyncError?
        let outcome: ReceiveResult
        do {
            outcome = try withWriteLock { () throws(StoreError) -> ReceiveResult in
                var result = ReceiveResult()
                result.headBefore = index.headSequence
                var pending: [Journal.Pending] = []
                var documents: [UInt64: JSONValue] = [:]
                var lastSequences: [RecordKey: UInt64] = [:]
                var wasConflicted: [RecordKey: Bool] = [:]
                // Which changes are new, in order, before anything is written.
                var frontier = ReplicaFrontier(knowledge: index.knowledge, digests: index.digests)
                var admitted: [Change] = []
                for change in changes {
                    let admission = asSnapshot ? admitFromSnapshot(change, frontier: frontier) : frontier.admit(change, ownReplica: replicaID)
                    switch admission {
                    case .alreadyKnown:
                        result.alreadyKnown += 1
                    case .next:
                        admitted.append(change)
                    case .gap(let expected):
                        refusal = .counterGap(peer: peer, origin: change.origin, expected: expected, found: change.counter)
                        return result
                    case .diverged:
                        if change.origin == replicaID {
                            refusal = SealCheck.ownReplicaRefusal(change, among: changes, ownKey: existingPublicKey(), store: path, source: peer)
                        } else {
                            refusal = .divergedReplica(origin: change.origin, counter: change.counter, local: path, peer: peer, copy: peer)
                        }
                        return result
                    }
                }
                if !asSnapshot {
                    do throws(SyncError) { try checkAndLearnSignatures(admitted, from: peer) } catch {
                        refusal = error
                        return result
                    }
                }
                // Hand edits of the records about to change are journaled first: the incoming
                // versions then meet them as concurrent versions, never as files to overwrite.
                // (`headBefore` stays before them: a pusher must not count them as its own.)
                result.committedEdits = try commitHandEdits(of: Set(admitted.map(\.key)).sorted()).count
                for change in admitted {
                    let sequence = index.headSequence + UInt64(pending.count) + 1
                    let previous = lastSequences[change.key] ?? index.records[change.key]?.lastSequence ?? 0
                    pending.append(Journal.Pending(change: change, previousSequenceOfRecord: previous))
                    lastSequences[change.key] = sequence
                    if let document = change.operation.document { documents[sequence] = document }
                    if wasConflicted[change.key] == nil {
                        wasConflicted[change.key] = index.records[change.key]?.isConflicted ?? false
                    }
                    clock.receive(change.timestamp)
                }
                try checkIndexIntegrity()
                _ = try appendAndApply(pending, documents: documents)
                result.applied = pending.count
                for (key, before) in wasConflicted where !before && index.records[key]?.isConflicted == true {
                    result.newConflicts.append(key)
                }
                result.newConflicts.sort()
                result.headAfter = index.headSequence
                result.hashAfter = index.headHash
                return result
            }
        } catch {
            throw .store(error)
        }
        if let refusal { throw refusal }
        return outcome
    }

    // MARK: Checkpoints

    /// The checkpoint this store recorded for `peer`; `nil` when there is none.
    /// - Throws: ``StoreError/damagedCheckpoint(path:reason:)`` when its file is there but cannot
    ///   be read: a sync must not quietly forget what it exchanged with that peer.
    public func checkpoint(for peer: ReplicaID) throws(StoreError) -> SyncCheckpoint? {
        let path = layout.peerMemory(for: .replica(peer)).checkpoint
        guard FileSystem.exists(path) else { return nil }
        let json: JSONValue
        do { json = try JSONParser.parse(try FileSystem.readFile(path, limit: 1 << 16)) } catch {
            throw .damagedCheckpoint(path: path, reason: "\(error)")
        }
        guard let checkpoint = SyncCheckpoint(json: json) else { throw .damagedCheckpoint(path: path, reason: "a field is missing or malformed") }
        guard checkpoint.peer == peer else { throw .damagedCheckpoint(path: path, reason: "it names peer \(checkpoint.peer), not \(peer)") }
        return checkpoint
    }

    /// Records a checkpoint, atomically (temporary file and rename).
    ///
    /// It is not fsync'd, on purpose: what it covers is already durable when it is written,
    /// and losing it in a crash only brings back the previous checkpoint, whose earlier
    /// positions are still valid; the next sync then sends a few changes again, and the
    /// receiver skips those it has by their identity. Nothing is lost or applied twice.
    public func saveCheckpoint(_ checkpoint: SyncCheckpoint) throws(StoreError) {
        let memory = layout.peerMemory(for: .replica(checkpoint.peer))
        do {
            try memory.create(durable: false)
            try FileSystem.writeFileAtomically(memory.checkpoint, checkpoint.jsonValue.prettyBytes(), durable: false)
        } catch { throw .io(error) }
    }

    /// Every checkpoint this store recorded, one per peer (for display: one that cannot be
    /// read is left out here; a sync with that peer reports it).
    public func checkpoints() -> [SyncCheckpoint] {
        ((try? PeerMemory.checkpointFiles(in: layout)) ?? []).compactMap { file in try? checkpoint(for: file.peer) }
    }

    /// Every checkpoint, for a caller that must not take a damaged one for a peer that does not
    /// exist (compaction drops a tombstone once every peer has been sent it).
    /// - Throws: ``StoreError/damagedCheckpoint(path:reason:)`` naming the first that cannot be read.
    public func allCheckpoints() throws(StoreError) -> [SyncCheckpoint] {
        var result: [SyncCheckpoint] = []
        let files: [(peer: ReplicaID, relativePath: String)]
        do { files = try PeerMemory.checkpointFiles(in: layout) } catch { throw .io(error) }
        for file in files {
            if let checkpoint = try checkpoint(for: file.peer) { result.append(checkpoint) }
        }
        return result
    }

    /// The hash of the entry at `sequence` (zeros for 0); `nil` past the head.
    public func entryHash(at sequence: UInt64) throws(StoreError) -> SHA256Digest? {
        if sequence == 0 { return .zero }
        let head = self.head
        if sequence == head.sequence { return head.hash }
        guard sequence < head.sequence else { return nil }
        if let start = journal.start, sequence < start.first {
            // Compacted: the last archived hash, a kept entry's, or the archive's (when there).
            if sequence == start.first - 1 { return start.previous }
            do { return try journalEntry(at: sequence).hash } catch .journal(.archived) {
                return try? JournalArchive.open(start: start, root: layout.root)?.entry(at: sequence)?.hash
            }
        }
        return try journalEntry(at: sequence).hash
    }

    // MARK: Conflicts

    /// Every conflicted record, sorted.
    public func conflicts() throws(StoreError) -> [ConflictSummary] {
        try withReadAccess { () throws(StoreError) -> [ConflictSummary] in
            index.conflicted.sorted().compactMap { key -> ConflictSummary? in
                guard let state = index.records[key], state.isConflicted else { return nil }
                func summary(_ version: RecordVersion, loser: Bool) -> ConflictSummary.Version {
                    let file = loser && !version.isDelete ? relativePath(of: layout.conflictFile(key, version: version.identity)) : nil
                    return .init(identity: version.identity, timestamp: version.timestamp, isDelete: version.isDelete, file: file)
                }
                return ConflictSummary(
                    key: key, winner: summary(state.winner, loser: false),
                    losers: state.losers.map { summary($0, loser: true) })
            }
        }
    }

    func relativePath(of path: String) -> String {
        path.hasPrefix(layout.root + "/") ? String(path.dropFirst(layout.root.count + 1)) : path
    }

    /// The documents of every current version of a record (nil for a delete), winner first.
    public func versions(of key: RecordKey) throws(StoreError) -> [(version: RecordVersion, document: JSONValue?)] {
        try withReadAccess { () throws(StoreError) -> [(version: RecordVersion, document: JSONValue?)] in
            guard let state = index.records[key] else { return [] }
            var result: [(version: RecordVersion, document: JSONValue?)] = []
            for version in state.versions {
                result.append((version, version.isDelete ? nil : try document(of: version, documents: [:])))
            }
            return result
        }
    }

    /// Resolves a conflict with a version that descends from every current version, so it
    /// propagates and clears the conflict on every replica.
    /// - Parameter document: the resolved content; `nil` resolves to a delete.
    /// - Returns: what the write did (a hand edit of the record's file is journaled first).
    @discardableResult
    public func resolve(_ key: RecordKey, with document: JSONValue?) throws(StoreError) -> WriteResult {
        try withWriteLock { () throws(StoreError) -> WriteResult in
            guard let state = index.records[key], state.isConflicted else {
                throw .noConflict(key)
            }
            return try performLocalWrites([document.map { .put(key, $0) } ?? .delete(key)], resolving: true)
        }
    }
}
