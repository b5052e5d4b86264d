extension SyncEngine {
    /// The changes a sync read and checked before applying any (or pushing any): kept in memory
    /// while they take less than ``SyncOptions/maximumKeptChangeBytes`` (by
    /// ``Change/estimatedPageBytes``); past that, in a ``ChangeSpool`` when one was asked for
    /// (a pull's), else only counted, to be read again page by page
    /// (``SyncEngine/forEachPage(of:after:from:read:_:)``).
    ///
    /// Holding them all made memory grow with the sync: an incremental pull of 333k changes
    /// peaked at 646 MB.
    struct CheckedChanges {
        /// How many changes were checked.
        private(set) var count = 0
        /// The changes checked, in order, while they fit the budget.
        private(set) var kept: [Change]? = []
        private var keptBytes = 0
        /// Once they outgrew the budget, a hash of each change checked, in order (its whole
        /// content: `hashValue`, stable within the process), 8 bytes a change: what is read
        /// again must be what was checked, change for change.
        private(set) var fingerprints: [Int] = []
        /// Once they outgrew the budget, the file holding them all, when a spool folder was
        /// given and a file could be made and written there; else they are read again.
        private(set) var spool: ChangeSpool?
        /// The most bytes of changes to keep.
        let budget: Int
        /// Where to make the spool file; `nil` for none.
        let spoolDirectory: String?

        init(budget: Int, spoolDirectory: String? = nil) {
            self.budget = budget
            self.spoolDirectory = spoolDirectory
        }

        var isEmpty: Bool { count == 0 }

        /// Adds a page of changes, read after the ones before.
        mutating func add(_ changes: [Change]) {
            count += changes.count
            if kept != nil {
                for change in changes { keptBytes += change.estimatedPageBytes }
                if keptBytes <= budget {
                    kept?.append(contentsOf: changes)
                    return
                }
                let before = kept ?? []
                fingerprints = before.map(\.hashValue)
                kept = nil
                if let spoolDirectory { spool = try? ChangeSpool(in: spoolDirectory) }
                spoolOrDrop(before)
            }
            fingerprints.append(contentsOf: changes.map(\.hashValue))
            spoolOrDrop(changes)
        }

        /// Appends to the spool; a spool that cannot be written (a full disk) is dropped, and
        /// the changes are read again from where they came instead.
        private mutating func spoolOrDrop(_ changes: [Change]) {
            guard let spool else { return }
            do { try spool.append(changes) } catch { self.spool = nil }
        }
    }

    /// Calls `body` with `checked`'s changes, a page (``SyncOptions/pageSize``) at a time: the
    /// ones kept, or, when they outgrew the budget, those of the spool file, or without one the
    /// same ones read again by `read` (after a position, at most a count) from `position`.
    /// Journals only grow and the same knowledge leaves out the same changes, so the first
    /// `checked.count` changes read again should be the ones checked; each is compared with its
    /// fingerprint before its page is handled, and a source that gives other changes, or not
    /// all of them, is reported (`source` names it) with the pages already handled left as they
    /// are. Returns how many changes were read again (none from a spool file).
    @discardableResult
    func forEachPage(
        of checked: CheckedChanges, after position: UInt64, from source: String,
        read: (UInt64, Int) async throws(SyncError) -> ChangeBatch,
        _ body: ([Change]) async throws(SyncError) -> Void
    ) async throws(SyncError) -> Int {
        let pageSize = max(1, options.pageSize)
        if let kept = checked.kept {
            var offset = 0
            while offset < kept.count {
                let end = min(offset + pageSize, kept.count)
                try await body(Array(kept[offset..<end]))
                offset = end
            }
            return 0
        }
        if let spool = checked.spool, spool.count == checked.count {
            // Each change's digest is checked again by the store that takes it, as for any
            // change read; the spool is only this process's own file.
            spool.rewind()
            var done = 0
            while done < checked.count {
                let page: [Change]
                do { page = try spool.nextPage(limit: min(pageSize, checked.count - done)) } catch {
                    throw .transport("\(error) (the pages before were applied); sync again")
                }
                guard !page.isEmpty else {
                    throw .transport("the spool file gave \(done) of the \(checked.count) changes checked (the pages before were applied); sync again")
                }
                try await body(page)
                done += page.count
            }
            return 0
        }
        var position = position
        var done = 0
        while done < checked.count {
            let batch = try await read(position, min(pageSize, checked.count - done))
            let page = Array(batch.changes.prefix(checked.count - done))
            if page.isEmpty && (batch.through >= batch.head || batch.through <= position) {
                throw .transport(
                    "\(source) changed during the sync: only \(done) of the \(checked.count) changes checked could be read again "
                        + "(the pages before were applied); sync again")
            }
            for (offset, change) in page.enumerated() where change.hashValue != checked.fingerprints[done + offset] {
                throw .transport(
                    "\(source) changed during the sync: change \(done + offset + 1) of the \(checked.count) checked "
                        + "(\(change.key)) read back differently (the pages before were applied); sync again")
            }
            if !page.isEmpty { try await body(page) }
            done += page.count
            position = batch.through
        }
        return done
    }
}
