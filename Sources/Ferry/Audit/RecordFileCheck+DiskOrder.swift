extension RecordFileCheck {
    /// How ``readRecordFiles(into:progress:)`` reads.
    struct Reading: Sendable {
        /// The record files a range of inode numbers holds, about (tests lower it): they are
        /// read together, sorted.
        var batchSize = 32_768
        /// Reads one file (tests watch the order).
        var read: @Sendable (String) -> FileContent = RecordFileCheck.read
    }

    /// Lists the files under `records/` and reads every record file among them in the order of
    /// their inode numbers, sending each name, with its file's fingerprint, to its record's
    /// partition of `spill`; returns the findings about the other entries (not entity
    /// folders, not regular files, not record file names).
    ///
    /// The partitions are hashes of the records' keys, so reading one partition's files after
    /// another reads the folder at random: in the scale benchmark, with caches cold on a disk
    /// rewritten many times over, a verify of a million records took 504 s reading that way
    /// (64 times as long as a hundred thousand), where an export of the same store, reading
    /// its files in the order they were written, took 57 s. Here the names go to a temporary
    /// file with their inode numbers (from the listing, no `stat`), then into ranges of inode
    /// numbers of about ``Reading/batchSize`` files each (``InodeRanges``); each range is
    /// sorted and read in that order, on every core, which reads the inode tables and mostly
    /// the files in the order they lie on disk. Memory holds one range's names, whatever the
    /// number of files.
    ///
    /// A name whose file could not be read or fingerprinted goes without a fingerprint, and
    /// ``check(_:partition:spill:)`` reads it again where it needs it.
    ///
    /// - Parameter progress: Called after each range with the files read and the files listed.
    /// What a finding about a symbolic link under `records/` says.
    private var linkMessage: String {
        "a symbolic link: status, commit and sync refuse the store until the folder or file itself is put in its place"
    }

    func readRecordFiles(into spill: ReplaySpill, progress: ((_ done: Int, _ total: Int) -> Void)?) -> [VerificationFinding] {
        var findings: [VerificationFinding] = []
        let listing = SpillPartitions(count: 1)
        var entities = Numbering<EntityName>()
        var lowest = UInt64.max
        var highest: UInt64 = 0
        var total = 0
        var oddNames: [(relativePath: String, entity: EntityName, path: String)] = []
        let ignoreRules: IgnoreRules
        do { ignoreRules = try IgnoreRules.load(storeRoot: layout.root) } catch {
            findings.append(VerificationFinding(kind: .unreadableFile, path: IgnoreRules.fileName, message: "unreadable: \(error)"))
            ignoreRules = IgnoreRules()
        }
        for entityFolder in (try? FileSystem.contents(ofDirectory: layout.records)) ?? [] {
            let folderPath = "records/" + entityFolder.name
            if ignoreRules.ignores(folderPath, isFolder: entityFolder.kind == .directory) { continue }
            if entityFolder.kind == .symbolicLink {
                findings.append(VerificationFinding(kind: .symbolicLink, path: folderPath, message: linkMessage))
                continue
            }
            guard entityFolder.kind == .directory, let entity = try? EntityName(entityFolder.name) else {
                findings.append(
                    VerificationFinding(
                        kind: .strayFile, path: folderPath,
                        message: "unexpected: not an entity folder (records/<Entity>/<id>.json)"))
                continue
            }
            let number = UInt32(entities.number(of: entity))
            RecordFileWalker.forEach(under: layout.records + "/" + entityFolder.name) { file in
                let path = folderPath + "/" + file.relativePath
                // A name Ferry writes is always a record's; any other entry may be a leftover.
                if file.kind != .regular || RecordFileName.id(fromRelativePath: file.relativePath) == nil, ignoreRules.ignores(path) { return }
                if file.kind == .symbolicLink {
                    findings.append(VerificationFinding(kind: .symbolicLink, path: path, message: linkMessage))
                    return
                }
                guard file.kind == .regular else {
                    findings.append(VerificationFinding(kind: .strayFile, path: path, message: "unexpected: not a regular file"))
                    return
                }
                guard RecordFileName.id(fromRelativePath: file.relativePath) != nil else {
                    oddNames.append((file.relativePath, entity, path))
                    return
                }
                listing.append(to: 0) { bytes in
                    bytes.appendLittleEndian(file.inode)
                    bytes.appendLittleEndian(number)
                    bytes += file.relativePath.utf8
                }
                lowest = min(lowest, file.inode)
                highest = max(highest, file.inode)
                total += 1
            }
        }
        var foldedNames: [String: Int] = [:]
        for odd in oddNames { foldedNames[odd.path.lowercased(), default: 0] += 1 }
        for odd in oddNames {
            let twins = foldedNames[odd.path.lowercased(), default: 0] > 1
            findings.append(handNamedFinding(odd.relativePath, entity: odd.entity, path: odd.path, hasCaseTwin: twins))
        }
        guard total > 0 else { return findings }

        let batchSize = max(1, reading.batchSize)
        var histogram = InodeRanges.Histogram(lowest: lowest, highest: highest)
        listing.forEachRecord(in: 0) { raw in
            var reader = LittleEndianReader(raw)
            histogram.count(reader.uint64())
        }
        let inodeRanges = InodeRanges(histogram, filesPerRange: batchSize)
        let ranges = SpillPartitions(count: inodeRanges.count, bufferLimit: 4 << 10)
        listing.forEachRecord(in: 0) { raw in
            var reader = LittleEndianReader(raw)
            ranges.append(to: inodeRanges.range(of: reader.uint64())) { $0 += raw }
        }
        listing.discard(0)

        let read = reading.read
        let folders = entities.values.map { layout.records + "/" + $0.rawValue + "/" }
        typealias Listed = (inode: UInt64, entity: UInt32, relativePath: String)
        var done = 0
        func readInOrder(_ batch: [Listed]) {
            let sorted = batch.sorted { $0.inode < $1.inode }
            let fingerprints = ParallelWork.map(count: sorted.count, minimumChunk: 256) { index -> FileFingerprint? in
                let listed = sorted[index]
                guard case .bytes(let bytes) = read(folders[Int(listed.entity)] + listed.relativePath) else { return nil }
                return FileFingerprint(compacting: bytes)
            }
            for (listed, fingerprint) in zip(sorted, fingerprints) {
                guard let id = RecordFileName.id(fromRelativePath: listed.relativePath) else { continue }
                spill.addFileName(
                    entity: entities[Int(listed.entity)], id: id, relativePath: listed.relativePath, fingerprint: fingerprint)
            }
            done += sorted.count
            progress?(done, total)
        }
        for range in 0..<ranges.count {
            var batch: [Listed] = []
            ranges.forEachRecord(in: range) { raw in
                var reader = LittleEndianReader(raw)
                let inode = reader.uint64()
                let entity = reader.uint32()
                batch.append((inode, entity, reader.rest()))
                // A range holds about a batch; one whose numbers bunch up in a single bin of
                // the histogram is read a few batches at a time.
                if batch.count >= 2 * batchSize {
                    readInOrder(batch)
                    batch = []
                }
            }
            if !batch.isEmpty { readInOrder(batch) }
            ranges.discard(range)
        }
        return findings
    }

    /// The finding for a file whose name is not canonical: one a person gave (`Todo.json`) is an
    /// uncommitted edit that `commit` journals and renames, unless it is ambiguous; any other
    /// is no record (see ``RecordFileName/handMadeID(fromFileName:)``).
    /// - Parameter hasCaseTwin: another odd name in its folder differs from it only in case.
    private func handNamedFinding(_ relativePath: String, entity: EntityName, path: String, hasCaseTwin: Bool) -> VerificationFinding {
        guard !relativePath.contains("/"), let id = RecordFileName.handMadeID(fromFileName: relativePath) else {
            return VerificationFinding(kind: .strayFile, path: path, message: "unexpected: \(RecordFileName.advice(forOddName: relativePath))")
        }
        let key = RecordKey(entity: entity, id: id)
        let canonical = "records/" + entity.rawValue + "/" + RecordFileName.relativePath(for: id)
        let folder = layout.records + "/" + entity.rawValue + "/"
        let folded = relativePath.lowercased()
        // On a case-insensitive file system the folded name is this very file.
        let isTwin: Bool
        if folded != relativePath, let twin = try? FileSystem.status(folder + folded), let own = try? FileSystem.status(folder + relativePath) {
            isTwin = twin.inode != own.inode
        } else {
            isTwin = false
        }
        if hasCaseTwin || isTwin {
            return VerificationFinding(
                kind: .strayFile, path: path, record: key,
                message: "ambiguous: another file here has the same name but for case, one file on a case-insensitive file system")
        }
        if FileSystem.exists(layout.root + "/" + canonical) {
            return VerificationFinding(
                kind: .strayFile, path: path, record: key, message: "ambiguous: a second file for the record \(key), beside \(canonical)")
        }
        if let problem = Self.problem(inFileAt: layout.root + "/" + path) {
            return VerificationFinding(kind: .invalidRecordFile, path: path, record: key, message: "created by hand: \(problem)")
        }
        return VerificationFinding(
            kind: .unexpectedRecordFile, path: path, record: key,
            message: "created: a file named by hand for the record \(key), not committed; 'ferry commit' journals it and renames it to \(canonical)")
    }
}
