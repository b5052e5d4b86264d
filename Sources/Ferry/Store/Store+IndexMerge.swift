extension Store {
    /// Merges the records changed in memory into the index files when enough have piled up
    /// since the last merge: ``StoreOptions/mergeInterval`` (64k), whatever the store's size,
    /// so the memory a long run of writes holds stays flat (a quarter of the store, as before,
    /// held 250k changed records in a store of a million: 440 MB for an import, 526 MB for a
    /// full pull). A merge writes a new spill, a new delta or a new image, whichever keeps
    /// the lines a long run rewrites in proportion to its length (``mergeLevel(_:)``). The
    /// merge runs on another thread
    /// (``IndexMerge``); a finished one is swapped in here. If the changes outgrow twice
    /// the interval before the running merge ends, this waits for it, so memory stays bounded.
    func mergeIndexIfDue() throws(StoreError) {
        inMemoryHighWater = max(inMemoryHighWater, index.records.inMemoryCount)
        if let merge = indexMerge, merge.isDone { try finishIndexMerge() }
        let interval = UInt64(max(1, mergeIntervalOverride ?? options.mergeInterval))
        guard index.headSequence >= imageSequence + interval else { return }
        if indexMerge != nil {
            guard index.headSequence >= imageSequence + 2 * interval else { return }
            try finishIndexMerge()
            guard index.headSequence >= imageSequence + interval else { return }
        }
        var frozen = index
        guard let records = index.records.handOverToMerge() else {
            try writeIndexImage()
            return
        }
        frozen.records = records
        indexMerge = IndexMerge(frozen: frozen, stagingPath: layout.indexMerging, level: Self.mergeLevel(records))
    }

    /// Which file a merge of `records` (the states handed over, on the files they were read
    /// with) writes:
    /// - a new image when the records changed since the image (the delta's, the spill's,
    ///   the states and the confirmed stamps) are more than half as many as the image's;
    /// - otherwise a new spill (the old spill's lines and the states), while it holds at most
    ///   half as many records as the delta;
    /// - otherwise a new delta (the old delta's lines, the spill's, the states and the stamps).
    ///
    /// Rewriting the whole image at every merge made a long run quadratic: a 333k-record
    /// import into a store of 667k merged twenty times, rewriting about 17 million lines. With
    /// the image rewritten only when the delta reaches half of it, every merge still copied
    /// the whole delta: 3.8 million lines for that import (48k at a tenth of the size). The
    /// spill keeps those copies small: each merge copies the spill, each delta merge folds a
    /// spill half the delta's size into it, so the delta grows geometrically too, and the same
    /// import rewrites 1.3 million lines.
    static func mergeLevel(_ records: RecordTable) -> IndexFileLevel {
        guard let base = records.base, 2 * records.changedCount <= base.header.recordCount else { return .image }
        let delta = records.delta?.header.recordCount ?? 0
        return 2 * (records.spilledCount + records.inMemoryCount) <= delta ? .spill : .delta
    }

    /// Waits for a running merge and swaps its image in, keeping in memory only the records
    /// changed since it started. A merge whose image or delta file was replaced meanwhile
    /// (by another process) is dropped, as is one that failed or found the image damaged:
    /// its states go back into memory, and the next merge starts afresh.
    func finishIndexMerge() throws(StoreError) {
        guard let merge = indexMerge else { return }
        indexMerge = nil
        guard case .success = merge.wait(), mergeReadTheCurrentFiles(merge) else {
            try? FileSystem.removeFile(merge.stagingPath)
            index.records.abandonMerge()
            return
        }
        if let damage = merge.frozen.records.damage {
            // The merge found a line it could not read: its image may lack records. The
            // store's own reader is marked too, so the next access rebuilds from the journal.
            try? FileSystem.removeFile(merge.stagingPath)
            index.records.abandonMerge()
            index.records.markDamaged(damage)
            return
        }
        if merge.level == .spill {
            // Opened and unlinked: no other process reads a spill, and none is left behind.
            let spill: IndexFile?
            do { spill = try IndexFile.open(merge.stagingPath, level: .spill) } catch {
                try? FileSystem.removeFile(merge.stagingPath)
                index.records.abandonMerge()
                return
            }
            try? FileSystem.removeFile(merge.stagingPath)
            guard let spill else {
                index.records.abandonMerge()
                return
            }
            index.records.completeSpillMerge(into: spill)
            // The index files on disk are as they were: the next close still writes them.
            imageSequence = merge.frozen.headSequence
            return
        }
        // A whole image replaces the image and the delta; a delta only the delta.
        let path = merge.level == .delta ? layout.indexDelta : layout.index
        do throws(SystemError) {
            try FileSystem.rename(merge.stagingPath, to: path)
            if merge.level == .image { try FileSystem.removeFile(layout.indexDelta) }
        } catch {
            index.records.abandonMerge()
            throw .io(error)
        }
        let written: IndexFile?
        do { written = try IndexFile.open(path, level: merge.level) } catch {
            index.records.abandonMerge()
            throw error
        }
        guard let written else {
            index.records.abandonMerge()
            return
        }
        let frozen = merge.frozen
        if merge.level == .delta {
            index.records.completeDeltaMerge(into: written, frozen: frozen.records)
        } else {
            index.records.completeMerge(into: written, frozen: frozen.records)
        }
        imageSequence = frozen.headSequence
        persistedHead = frozen.headSequence
    }

    /// Drops a running merge (waiting for its thread), taking its states back into memory:
    /// for callers about to write the index themselves.
    func cancelIndexMerge() {
        guard let merge = indexMerge else { return }
        indexMerge = nil
        _ = merge.wait()
        try? FileSystem.removeFile(merge.stagingPath)
        index.records.abandonMerge()
    }

    /// Whether `.ferry/index` and `.ferry/index-delta` are still the files the merge read.
    private func mergeReadTheCurrentFiles(_ merge: IndexMerge) -> Bool {
        func inode(_ path: String) -> UInt64? { (try? FileSystem.status(path))?.inode }
        let records = merge.frozen.records
        return inode(layout.index) == records.base?.inode && inode(layout.indexDelta) == records.delta?.inode
    }
}
