/// Writing the index image (format in ``IndexFile``): the records changed since the last
/// image are merged, in sort order, with the old image's lines, which are copied as they
/// are, so writing costs one pass over the bytes and decodes nothing.
extension StoreIndex {
    /// The image's bytes; with `deltaOnly`, the delta file's: only the changed records,
    /// applying to the current image. (For tests and small tables; the store streams.)
    func imageBytes(deltaOnly: Bool = false) -> [UInt8] {
        let level: IndexFileLevel = deltaOnly ? .delta : .image
        var sink = IndexFileSink()
        if let written = try? writeFile(level, to: &sink, lines: nil) {
            sink = IndexFileSink()
            _ = try? writeFile(level, to: &sink, lines: written)
        }
        return sink.buffer
    }

    /// Writes the image (or the delta, or a spill: see ``IndexFileLevel``) to `path`
    /// atomically, streaming: memory holds the changed records' sort keys and a buffer, never
    /// the whole file.
    func writeFile(_ level: IndexFileLevel = .image, toFileAt path: String) throws(SystemError) {
        let temporary = FileSystem.parentPath(of: path) + "/.tmp-" + FileSystem.lastComponent(of: path) + "-\(FileSystem.processID)"
        func attempt(lines: Int?) throws(SystemError) -> Int? {
            let file = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate])
            defer { file.close() }
            var sink = IndexFileSink(file: file)
            let miscounted = try writeFile(level, to: &sink, lines: lines)
            try sink.flush()
            return miscounted
        }
        do throws(SystemError) {
            // Rarely the table's count is off; then start over with the lines really written.
            if let written = try attempt(lines: nil) { _ = try attempt(lines: written) }
            try FileSystem.rename(temporary, to: path)
        } catch {
            try? FileSystem.removeFile(temporary)
            throw error
        }
    }

    /// Writes the image, announcing `lines` record lines (by default, what the table
    /// counts). Returns `nil` when done, or the number of lines written when that differs
    /// from the announced number; the caller then starts over with that number.
    private func writeFile(_ level: IndexFileLevel, to sink: inout IndexFileSink, lines announced: Int?) throws(SystemError) -> Int? {
        let deltaOnly = level != .image
        // Replica numbering: the spill's (which extends the delta's, which extends the
        // image's), then any new replicas, so the old files' lines stay valid as they are.
        var replicaList = records.spill?.header.replicas ?? records.delta?.header.replicas ?? records.base?.header.replicas ?? []
        var numbers: [ReplicaID: Int] = [:]
        for (offset, replica) in replicaList.enumerated() { numbers[replica] = offset }
        func register(_ replica: ReplicaID) {
            if numbers[replica] != nil { return }
            numbers[replica] = replicaList.count
            replicaList.append(replica)
        }
        for (replica, _) in knowledge.sortedCounters { register(replica) }
        // Most versions come from one replica or a few: skip the table for a repeat.
        var lastRegistered: ReplicaID?
        func registerVersion(_ version: RecordVersion) {
            let origin = version.identity.origin
            if origin != lastRegistered {
                register(origin)
                lastRegistered = origin
            }
            let counters = version.version.counters
            if counters.count == 1, let only = counters.keys.first {
                if only != lastRegistered { register(only) }
            } else {
                for (replica, _) in version.version.sortedCounters { register(replica) }
            }
        }
        // The records changed in memory, by sort key, encoded as they are written. The delta's
        // lines (changed by earlier processes or merges, not since) are read alongside in
        // order, a piece at a time, and copied: memory holds the in-memory changes' keys,
        // never the delta.
        var changed: [(sortKey: [UInt8], change: ChangedRecord)] = []
        changed.reserveCapacity(records.inMemoryCount)
        records.forEachStateInMemory { key, state in
            changed.append((IndexRecordLine.sortKey(key), .state(key)))
            for version in state.versions { registerVersion(version) }
        }
        changed.sort { ByteOrder.precedes($0.sortKey, $1.sortKey) }
        // Stamps confirmed for records otherwise as the image has them: a full image
        // patches them into the lines it copies; a delta holds their lines, patched. A state
        // in memory wins over a stamp, and so does the delta's line (see ``PendingLines``).
        // A spill holds none: its lines win over the delta's, which win over a stamp.
        let stamps = level == .spill ? [] : records.confirmed.entries
        if deltaOnly && !stamps.isEmpty {
            var merged: [(sortKey: [UInt8], change: ChangedRecord)] = []
            merged.reserveCapacity(changed.count + stamps.count)
            var next = 0
            for entry in stamps {
                while next < changed.count && ByteOrder.precedes(changed[next].sortKey, entry.sortKey) {
                    merged.append(changed[next])
                    next += 1
                }
                if next < changed.count && ByteOrder.compare(changed[next].sortKey, entry.sortKey) == 0 { continue }
                merged.append((entry.sortKey, .confirmedStamp(entry.sortKey, entry.stamp)))
            }
            merged.append(contentsOf: changed[next...])
            changed = merged
        }
        let number: (ReplicaID) -> Int = { numbers[$0] ?? 0 }
        // A full image has one line per record; a delta one per changed record: the
        // in-memory ones and the old delta's, counted once when in both.
        // A spill takes in the old spill's lines, not the delta's.
        let (spill, delta) = (records.spill, level == .spill ? nil : records.delta)
        let lines = announced ?? (deltaOnly ? PendingLines.count(changed, spill: spill, delta: delta) : records.count)

        var header = IndexFileHeader()
        header.head = head
        header.replicas = replicaList
        header.knowledge = knowledge
        header.digests = digests
        header.liveCounts = liveCounts
        header.conflicted = conflicted
        header.recordCount = lines
        if deltaOnly {
            // A delta names the image it applies to, and gives the whole table's count.
            let base = records.base?.header.head ?? StoreHead(sequence: 0, hash: .zero, latestModification: .zero)
            header.baseHead = (base.sequence, base.hash)
            header.totalRecords = records.count
        }
        try sink.append(Array(header.text(level: level).utf8))

        var written = 0
        var failure: SystemError?
        func emit(_ change: ChangedRecord) {
            guard failure == nil else { return }
            do throws(SystemError) {
                switch change {
                case .state(let key):
                    // Looked up again rather than held: a merge may cover every record.
                    guard let state = records.stateInMemory(key) else { return }
                    try sink.append(IndexRecordLine.encode(key, state, number: number))
                case .line(let line):
                    try sink.appendLine(line)
                case .confirmedStamp(let sortKey, let stamp):
                    guard let line = records.base?.rawLine(sortKey: sortKey), let patched = IndexRecordLine.line(line[...], withStamp: stamp) else { return }
                    try sink.appendLine(patched[...])
                }
            } catch { failure = error }
            written += 1
        }
        var pending = PendingLines(changed: changed, spill: spill, delta: delta)
        func emitPending(through limit: ArraySlice<UInt8>?) -> Bool {
            pending.emit(through: limit) { item in
                switch item {
                case .change(let change): emit(change)
                case .fileLine(let line): emit(.line(line))
                }
            }
        }
        var confirmedStamps = records.confirmed.walk()
        if !deltaOnly {
            records.base?.forEachRawLineStreaming { sortKey, line in
                // A changed record replaces the image's line.
                guard !emitPending(through: sortKey), failure == nil else { return }
                do throws(SystemError) {
                    if let stamp = confirmedStamps.stamp(forSortKey: sortKey), let patched = IndexRecordLine.line(line, withStamp: stamp) {
                        try sink.appendLine(patched[...])
                    } else {
                        try sink.appendLine(line)
                    }
                } catch { failure = error }
                written += 1
            }
        }
        _ = emitPending(through: nil)
        pending.checkFilesWereReadWhole()
        if let failure { throw failure }
        if written != lines { return written }
        try sink.append(IndexFileHeader.trailer(recordCount: lines))
        return nil
    }

    /// A changed record in a image being written: a state to encode, a line to copy, or a
    /// image line to copy with a confirmed file stamp (its sort key and the stamp).
    enum ChangedRecord {
        case state(RecordKey)
        case line(ArraySlice<UInt8>)
        case confirmedStamp([UInt8], FileStamp)
    }
}
