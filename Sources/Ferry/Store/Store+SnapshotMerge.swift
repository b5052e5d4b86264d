extension Store {
    /// Merges the records changed in memory into a new snapshot when enough have piled up
    /// since the last one: ``StoreOptions/mergeInterval`` (64k), whatever the store's size, so
    /// the memory a long run of writes holds stays flat (a quarter of the store, as before, held
    /// 250k changed records in a store of a million: 440 MB for an import, 526 MB for a full
    /// pull). Each merge rewrites the snapshot, which a million-record join pays about fifteen
    /// times, on the other core. The merge runs on
    /// another thread (``SnapshotMerge``); a finished one is swapped in here. If the changes
    /// outgrow twice the interval before the running merge ends, this waits for it, so memory
    /// stays bounded.
    func mergeSnapshotIfDue() throws(StoreError) {
        inMemoryHighWater = max(inMemoryHighWater, index.records.inMemoryCount)
        if let merge = snapshotMerge, merge.isDone { try finishSnapshotMerge() }
        let interval = UInt64(max(1, mergeIntervalOverride ?? options.mergeInterval))
        guard index.headSequence >= snapshotSequence + interval else { return }
        if snapshotMerge != nil {
            guard index.headSequence >= snapshotSequence + 2 * interval else { return }
            try finishSnapshotMerge()
            guard index.headSequence >= snapshotSequence + interval else { return }
        }
        var frozen = index
        guard let records = index.records.handOverToMerge() else {
            try writeSnapshot()
            return
        }
        frozen.records = records
        snapshotMerge = SnapshotMerge(frozen: frozen, stagingPath: layout.indexMerging)
    }

    /// Waits for a running merge and swaps its snapshot in, keeping in memory only the records
    /// changed since it started. A merge whose snapshot or delta file was replaced meanwhile
    /// (by another process) is dropped, as is one that failed or found the snapshot damaged:
    /// its states go back into memory, and the next merge starts afresh.
    func finishSnapshotMerge() throws(StoreError) {
        guard let merge = snapshotMerge else { return }
        snapshotMerge = nil
        guard case .success = merge.wait(), mergeReadTheCurrentFiles(merge) else {
            try? FileSystem.removeFile(merge.stagingPath)
            index.records.abandonMerge()
            return
        }
        if let damage = merge.frozen.records.damage {
            // The merge found a line it could not read: its snapshot may lack records. The
            // store's own reader is marked too, so the next access rebuilds from the journal.
            try? FileSystem.removeFile(merge.stagingPath)
            index.records.abandonMerge()
            index.records.markDamaged(damage)
            return
        }
        do throws(SystemError) {
            try FileSystem.rename(merge.stagingPath, to: layout.index)
            try FileSystem.removeFile(layout.indexDelta)
        } catch {
            index.records.abandonMerge()
            throw .io(error)
        }
        let snapshot: SnapshotFile?
        do { snapshot = try SnapshotFile.open(layout.index) } catch {
            index.records.abandonMerge()
            throw error
        }
        guard let snapshot else {
            index.records.abandonMerge()
            return
        }
        let frozen = merge.frozen
        index.records.completeMerge(into: snapshot, frozen: frozen.records)
        snapshotSequence = frozen.headSequence
        persistedHead = frozen.headSequence
    }

    /// Drops a running merge (waiting for its thread), taking its states back into memory:
    /// for callers about to write the index themselves.
    func cancelSnapshotMerge() {
        guard let merge = snapshotMerge else { return }
        snapshotMerge = nil
        _ = merge.wait()
        try? FileSystem.removeFile(merge.stagingPath)
        index.records.abandonMerge()
    }

    /// Whether `.ferry/index` and `.ferry/index-delta` are still the files the merge read.
    private func mergeReadTheCurrentFiles(_ merge: SnapshotMerge) -> Bool {
        func inode(_ path: String) -> UInt64? { (try? FileSystem.status(path))?.inode }
        let records = merge.frozen.records
        return inode(layout.index) == records.base?.inode && inode(layout.indexDelta) == records.delta?.inode
    }
}
