/// What ``Store/reidentify(at:sharedThrough:options:)`` did.
public struct ReidentifyReport: Sendable {
    /// The replica id the copy had (and the original keeps).
    public var formerReplica: ReplicaID
    /// The copy's new replica id.
    public var newReplica: ReplicaID
    /// The changes of the former replica that the copy kept as shared history: counters 1
    /// through this one. Later ones are the copy's own and were journaled again under the new id.
    public var sharedThrough: UInt64
    /// Journal entries carried over as they were (shared history and changes from other replicas).
    public var carriedOver: Int
    /// Records whose state the copy's own changes made, journaled again as changes of the new id.
    public var rejournaled: Int
    /// Where the store folder as it was before is kept, untouched.
    public var keptAt: String
}

extension Store {
    /// Gives a copied store a replica id of its own, keeping every change it made.
    ///
    /// A store folder copied with `cp -r` (or restored from a backup, or a VM snapshot) has the
    /// same replica id as the original; once both change, they hold different changes under one
    /// identity, which a sync refuses (``SyncError/divergedReplica(origin:counter:local:peer:copy:)``).
    /// This rebuilds the copy as a new replica: its journal up to the point it shared with others
    /// is carried over as it was, the changes it made after that are left out, and the records
    /// they made are journaled again as changes of the new id, with version vectors that do not
    /// claim the left-out changes, so they meet the original's changes as concurrent versions
    /// (conflicts to resolve, never silent overwrites). The folder as it was is kept beside it.
    ///
    /// ```swift
    /// let report = try Store.reidentify(at: "./c2")
    /// print(report.newReplica, report.rejournaled, report.keptAt)
    /// ```
    ///
    /// - Parameters:
    ///   - sharedThrough: the last counter of the store's own replica that others may have: by
    ///     default, the highest its sync checkpoints say a peer received (changes after that
    ///     counter are taken as made by this copy alone).
    /// - Throws: ``StoreError`` when the store cannot be read, a change from another replica
    ///   depends on one of the copy's own (it was synced elsewhere before the copy was found:
    ///   re-identify that store instead), or the folder cannot be replaced.
    public static func reidentify(
        at path: String, sharedThrough: UInt64? = nil, options: StoreOptions = StoreOptions()
    ) throws(StoreError) -> ReidentifyReport {
        let old = try Store.open(at: path, options: options)
        var oldClosed = false
        defer { if !oldClosed { old.close() } }
        try old.commit()
        let former = old.replicaID
        let shared: UInt64
        if let sharedThrough { shared = sharedThrough } else { shared = try old.ownChangesSharedByCheckpoints() }
        let root = old.path
        let staging = root + ".reidentify-\(FileSystem.processID)"
        if FileSystem.exists(staging) { throw .alreadyExists(path: staging) }
        var fresh: Store? = try Store.create(at: staging, name: old.manifest.name, options: options)
        func discard() {
            fresh?.close()
            fresh = nil
            try? FileSystem.removeTree(staging)
        }
        var carried = 0
        var rejournaled = 0
        do throws(StoreError) {
            guard let store = fresh else { throw .notAStore(path: staging) }
            // Carry over the history, leaving out the copy's own changes.
            var ownKeys: [RecordKey] = []
            var seenOwn = Set<RecordKey>()
            var batch: [Change] = []
            func flush() throws(StoreError) {
                guard !batch.isEmpty else { return }
                do { _ = try store.receive(batch, from: root, maximumSkew: UInt64(Int64.max)) } catch {
                    if case .store(let error) = error { throw error }
                    throw .coding("carrying the journal of \(root) over: \(error)")
                }
                carried += batch.count
                batch.removeAll(keepingCapacity: true)
            }
            var cursor: JournalCursor
            do { cursor = try old.journal.entries(after: 0) } catch { throw .journal(error) }
            while true {
                let next: JournalEntry?
                do { next = try cursor.next() } catch { throw .journal(error) }
                guard let entry = next else { break }
                var change = entry.change
                if change.origin == former && change.counter > shared {
                    if seenOwn.insert(change.key).inserted { ownKeys.append(change.key) }
                    continue
                }
                if change.version[former] > shared {
                    throw .reidentifyBlocked(
                        path: root,
                        reason: "change \(change.identity) from another replica, to \(change.key), builds on this copy's change "
                            + "\(former.short):\(change.version[former]): the copy's changes were synced on before the copy was found; "
                            + "pass --shared-through \(change.version[former]) if that store is the copy's only peer")
                }
                try old.checkIntact(entry)
                if change.chain == nil { change.chain = change.chainOrLegacy }
                batch.append(change)
                if batch.count >= 5_000 { try flush() }
            }
            try flush()
            // The copy's own records, as it shows them, journaled again under the new id.
            var writes: [RecordWrite] = []
            for key in ownKeys {
                let mine = try old.versions(of: key).first
                let theirs = try store.state(of: key)
                if let mine, let document = mine.document {
                    writes.append(.put(key, document))
                } else if theirs?.isLive == true {
                    writes.append(.delete(key))
                }
            }
            rejournaled = try store.write(writes).entries.count
            if FileSystem.exists(old.layout.root + "/schema.json") {
                do {
                    let bytes = try FileSystem.readFile(old.layout.root + "/schema.json", limit: 16 << 20)
                    _ = try FileSystem.writeFileAtomically(store.layout.root + "/schema.json", bytes, durable: true)
                } catch { throw .io(error) }
            }
        } catch {
            discard()
            throw error
        }
        let newReplica = fresh?.replicaID ?? former
        fresh?.close()
        fresh = nil
        old.close()
        oldClosed = true
        // Swap the folders: the copy as it was stays beside, untouched.
        var kept = root + ".before-reidentify"
        var suffix = 2
        while FileSystem.exists(kept) {
            kept = root + ".before-reidentify-\(suffix)"
            suffix += 1
        }
        do {
            try FileSystem.rename(root, to: kept)
            try FileSystem.rename(staging, to: root)
            try FileSystem.synchronizeDirectory(FileSystem.parentPath(of: root))
        } catch { throw .io(error) }
        return ReidentifyReport(
            formerReplica: former, newReplica: newReplica, sharedThrough: shared, carriedOver: carried, rejournaled: rejournaled,
            keptAt: kept)
    }

    /// The highest counter of this store's own replica that its checkpoints say some peer has.
    func ownChangesSharedByCheckpoints() throws(StoreError) -> UInt64 {
        guard let reach = checkpoints().map(\.localPosition).max(), reach > 0 else { return 0 }
        var shared: UInt64 = 0
        do throws(JournalError) {
            var cursor = try journal.entries(after: 0)
            while let entry = try cursor.next(), entry.sequence <= reach {
                if entry.change.origin == replicaID { shared = max(shared, entry.change.counter) }
            }
        } catch { throw .journal(error) }
        return shared
    }
}
