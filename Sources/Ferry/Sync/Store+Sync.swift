import Foundation

/// A page of changes read from a journal.
public struct ChangeBatch: Sendable {
    /// The changes, in journal order, without those the requester already has.
    public var changes: [Change]
    /// The journal position read through (pass it as `after` for the next page).
    public var through: UInt64
    /// The journal's head when read.
    public var head: UInt64

    public init(changes: [Change], through: UInt64, head: UInt64) {
        self.changes = changes
        self.through = through
        self.head = head
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
    /// Journal head before and after.
    public var headBefore: UInt64 = 0
    public var headAfter: UInt64 = 0
    public var hashAfter: SHA256Digest = .zero

    public init() {}
}

extension Store {
    /// Changes after journal position `position`, leaving out those `knowledge` says the
    /// requester has, at most `limit` of them.
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
        var through = min(position, head)
        do throws(JournalError) {
            var cursor = try journal.entries(after: through)
            while changes.count < limit, let entry = try cursor.next() {
                through = entry.sequence
                let change = entry.change
                if knowledge[change.origin] >= change.counter { continue }
                changes.append(change)
            }
        } catch {
            throw .journal(error)
        }
        return ChangeBatch(changes: changes, through: through, head: head)
    }

    /// Applies changes received from a peer: those already here are skipped; the rest are
    /// journaled with their origin, counter and stamp intact, in one durable append.
    ///
    /// - Parameter maximumSkew: a change stamped more than this many milliseconds ahead of the
    ///   local wall clock is refused (nothing is applied).
    public func receive(_ changes: [Change], from peer: String, maximumSkew: UInt64) throws(SyncError) -> ReceiveResult {
        // Check everything before writing anything.
        let now = options.clock.milliseconds()
        for change in changes {
            if change.timestamp.physical > now + maximumSkew {
                throw .clockSkew(
                    peer: peer, record: change.key, aheadByMilliseconds: change.timestamp.physical - now, limit: maximumSkew)
            }
            if change.version[change.origin] != change.counter {
                throw .invalidChange(peer: peer, reason: "\(change.key): its version does not include its own change")
            }
            if let document = change.operation.document {
                do { _ = try validatedCanonicalBytes(document) } catch {
                    throw .invalidChange(peer: peer, reason: "\(change.key): \(error)")
                }
            }
        }
        do {
            return try withWriteLock { () throws(StoreError) -> ReceiveResult in
                var result = ReceiveResult()
                result.headBefore = index.headSequence
                var pending: [Journal.Pending] = []
                var documents: [UInt64: JSONValue] = [:]
                var lastSequences: [RecordKey: UInt64] = [:]
                var seen = Set<ChangeIdentity>()
                var wasConflicted: [RecordKey: Bool] = [:]
                for change in changes {
                    if index.contains(change.identity) || seen.contains(change.identity) {
                        result.alreadyKnown += 1
                        continue
                    }
                    seen.insert(change.identity)
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
    }

    // MARK: Checkpoints

    /// The checkpoint this store recorded for `peer`, if any.
    public func checkpoint(for peer: ReplicaID) -> SyncCheckpoint? {
        let path = layout.peers + "/" + peer.rawValue + ".json"
        guard let bytes = try? FileSystem.readFile(path, limit: 1 << 16), let json = try? JSONParser.parse(bytes) else {
            return nil
        }
        guard let checkpoint = SyncCheckpoint(json: json), checkpoint.peer == peer else { return nil }
        return checkpoint
    }

    /// Records a checkpoint, atomically (temporary file and rename).
    ///
    /// It is not fsync'd, on purpose: what it covers is already durable when it is written,
    /// and losing it in a crash only brings back the previous checkpoint, whose earlier
    /// positions are still valid; the next sync then sends a few changes again, and the
    /// receiver skips those it has by their identity. Nothing is lost or applied twice.
    public func saveCheckpoint(_ checkpoint: SyncCheckpoint) throws(StoreError) {
        do {
            try FileSystem.createDirectory(layout.peers)
            try FileSystem.writeFileAtomically(
                layout.peers + "/" + checkpoint.peer.rawValue + ".json", checkpoint.jsonValue.prettyBytes(), durable: false)
        } catch { throw .io(error) }
    }

    /// Every checkpoint this store recorded, one per peer.
    public func checkpoints() -> [SyncCheckpoint] {
        guard let entries = try? FileSystem.contents(ofDirectory: layout.peers) else { return [] }
        return entries.compactMap { entry in
            guard entry.name.hasSuffix(".json"), let peer = ReplicaID(String(entry.name.dropLast(5))) else { return nil }
            return checkpoint(for: peer)
        }.sorted { $0.peer < $1.peer }
    }

    /// The hash of the entry at `sequence` (zeros for 0); `nil` past the head.
    public func entryHash(at sequence: UInt64) throws(StoreError) -> SHA256Digest? {
        if sequence == 0 { return .zero }
        let head = self.head
        if sequence == head.sequence { return head.hash }
        guard sequence < head.sequence else { return nil }
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
    public func resolve(_ key: RecordKey, with document: JSONValue?) throws(StoreError) {
        try withWriteLock { () throws(StoreError) in
            guard let state = index.records[key], state.isConflicted else {
                throw .noConflict(key)
            }
            if let document {
                _ = try performLocalWrites([.put(key, document)])
            } else {
                _ = try performLocalWrites([.delete(key)])
            }
        }
    }
}
