/// A record file to write: a live record whose winner changed, with no conflict file to add
/// or remove, which is most of what a batch of writes, an import or a sync does.
struct RecordFileWrite: Sendable {
    var key: RecordKey
    var path: String
    var document: JSONValue
    /// Ferry wrote no file for this record yet (see ``Store/writeRecordFile(_:path:document:isNew:)``).
    var isNew: Bool
    /// The index of the unnamed file the batch's queue made for it ahead of time, if any
    /// (see ``PreparedRecordFiles``).
    var queueIndex: Int? = nil
}

extension Store {
    /// The file write that brings `key` from `before` to `after`, when it is only that;
    /// `nil` when ``materialize(_:before:after:documents:)`` must do the work (a delete, a
    /// conflict, or nothing to write).
    /// - Parameter prepared: the file made for it ahead of time (queue index and path), if any.
    func plainFileWrite(
        _ key: RecordKey, before: RecordState?, after: RecordState, documents: [UInt64: JSONValue],
        prepared: (index: Int, path: String)? = nil
    ) throws(StoreError) -> RecordFileWrite? {
        guard after.isLive, after.versions.count == 1, (before?.versions.count ?? 1) == 1 else { return nil }
        if let before, before.isLive, before.winner.identity == after.winner.identity, before.file != nil { return nil }
        let document = try self.document(of: after.winner, documents: documents)
        return RecordFileWrite(
            key: key, path: prepared?.path ?? layout.recordFile(key), document: document, isNew: before?.file == nil,
            queueIndex: prepared?.index)
    }

    /// Writes record files and remembers their stamps.
    ///
    /// New files are made unnamed and named by a worker thread (an ``UnnamedFileQueue``):
    /// `prepared`'s, which the batch started before its journal entries were written, or one
    /// started here when there are enough new files. Meanwhile this thread writes the other
    /// files (replacements go through the one ``FileReplacer``). When a write fails, the
    /// others are still made and stamped, and the first error is thrown.
    func writeRecordFiles(_ writes: [RecordFileWrite], prepared: PreparedRecordFiles? = nil) throws(StoreError) {
        var firstError: SystemError?
        func note(_ error: SystemError) { firstError = firstError ?? error }
        // Positions in `writes`, not copies: a batch writes tens of thousands of files, and
        // each copy of a write retains its strings and its document.
        let created = writes.indices.filter { writes[$0].isNew }
        var files = prepared
        var ownQueue: UnnamedFileQueue?
        var named: [(index: Int, position: Int)] = []
        named.reserveCapacity(created.count)
        var unprepared: [Int] = []
        if files == nil && created.count >= Store.fileQueueThreshold {
            let queue = UnnamedFileQueue()
            ownQueue = queue
            let indexes = queue.add(
                contentsOf: created.map { position in
                    let (directory, document) = (FileSystem.parentPath(of: writes[position].path), writes[position].document)
                    return { (directory, document.prettyBytes()) }
                })
            named = zip(indexes, created).map { ($0, $1) }
            files = PreparedRecordFiles(queue: queue, fileBySlot: [])
        } else {
            for position in created {
                if files != nil, let index = writes[position].queueIndex { named.append((index, position)) } else { unprepared.append(position) }
            }
        }
        defer { ownQueue?.finish() }
        if files?.earlyNames.isEmpty ?? false { files?.queue.link(named.map { ($0.index, writes[$0.position].path) }) }
        // While the worker names the new files, this thread writes the others.
        var progress = ProgressCounter("writing record files", total: writes.count, handler: writeProgress)
        defer { progress.finish() }
        func writeOne(_ position: Int, isNew: Bool) {
            let write = writes[position]
            do { try writeRecordFile(write.key, path: write.path, document: write.document, isNew: isNew) } catch { note(error) }
            progress.advance()
        }
        for position in unprepared { writeOne(position, isNew: true) }
        for position in writes.indices where !writes[position].isNew { writeOne(position, isNew: false) }
        if let queue = files?.queue {
            var namedSoFar = 0
            let outcomes = queue.linkResults { count, _ in
                progress.advance(by: count - namedSoFar)
                namedSoFar = count
            }
            progress.advance(by: named.count - namedSoFar)
            for (index, position) in named {
                switch outcomes[index] {
                case .linked(let linked):
                    self.index.records.setFile(FileStamp(linked.status, contentHash: linked.contentHash), of: writes[position].key)
                case .failed(let error):
                    note(error)
                case .notLinked, nil:
                    // No unnamed files here, or a file appeared at the path: the usual way.
                    writeOne(position, isNew: true)
                }
            }
        }
        if let firstError { throw .io(firstError) }
        confirmWrittenFiles(writes)
    }

    /// The fewest new files worth a worker thread.
    static let fileQueueThreshold = 64

    /// Makes the stamps of the files a large batch just wrote clean, so that the next status
    /// scan settles them with one `stat` each instead of reading them all.
    ///
    /// A stamp taken as Ferry writes a file is "racily clean": a hand edit in the same tick of
    /// the file system's clock would keep the file's modification time (and perhaps its size),
    /// so ``FileStamp/matches(_:)`` does not trust it until the granularity has passed, and
    /// the first scan after a batch of a million files would read and hash a million files.
    /// Instead, once the file system's own clock (``FileSystem/fileSystemTime(inDirectory:)``)
    /// is past the newest of the batch's modification times, each file is read back: one whose
    /// status and content still match its stamp can change from now on only by moving its
    /// modification time, so its stamp is clean (``FileStamp/confirmedClean()``). An edit made
    /// before the read back is caught by it; one made after, by its time. A file that does not
    /// match keeps its racy stamp, and the scan finds the edit as before. Batches of fewer than
    /// ``confirmationThreshold`` files, and file systems whose clock does not move within a
    /// few milliseconds (FAT's two seconds), are left to the scan, as is a file that cannot be
    /// read back.
    func confirmWrittenFiles(_ writes: [RecordFileWrite]) {
        let progress = ProgressCounter("confirming record files", total: writes.count, handler: writeProgress)
        defer { progress.finish() }
        guard writes.count >= Store.confirmationThreshold else { return }
        var stamps: [(position: Int, stamp: FileStamp)] = []
        stamps.reserveCapacity(writes.count)
        var newest = Int64.min
        for position in writes.indices {
            guard let stamp = index.records.state(of: writes[position].key)?.file else { continue }
            stamps.append((position, stamp))
            newest = max(newest, stamp.modificationNanoseconds)
        }
        guard let first = stamps.first,
            FileSystem.waitForFileSystemClock(toPass: newest, inDirectory: FileSystem.parentPath(of: writes[first.position].path))
        else { return }
        // Read back on every core: a batch of a sync is tens of thousands of files.
        let files = stamps.map { (path: writes[$0.position].path, stamp: $0.stamp) }
        let matches = ParallelWork.map(count: files.count, minimumChunk: 512) { number in
            Self.fileStillMatches(files[number].path, files[number].stamp)
        }
        for (number, (position, stamp)) in stamps.enumerated() where matches[number] {
            index.records.setFile(stamp.confirmedClean(), of: writes[position].key)
        }
    }

    /// Whether the file at `path` has the status and the content `stamp` describes.
    private static func fileStillMatches(_ path: String, _ stamp: FileStamp) -> Bool {
        guard let file = try? FileDescriptor.open(path, .readOnly) else { return false }
        return file.closeAfter { () -> Bool in
            guard let status = try? file.status(), status.size == stamp.size,
                status.modificationNanoseconds == stamp.modificationNanoseconds, status.inode == stamp.inode,
                let bytes = try? file.read(upTo: Int(stamp.size) + 1)
            else { return false }
            return bytes.count == Int(stamp.size) && SHA256.hash(bytes) == stamp.contentHash
        }
    }

    /// The fewest files a batch writes for ``confirmWrittenFiles(_:)`` to confirm them: below
    /// it, the next scan reads the few files itself.
    static let confirmationThreshold = 64
}

/// New record files a batch of puts started making and naming before its journal entries
/// were written (``Store/startNewRecordFiles(_:canonicalForms:firstSequence:initial:)``), or,
/// for a queue started after the append, named once the entries are durable.
struct PreparedRecordFiles {
    /// Makes the unnamed files.
    var queue: UnnamedFileQueue
    /// For each record that gets a new file, by slot (see ``BatchSlots``): the queue index of
    /// the file with the document the record ends the batch with, and its path.
    var fileBySlot: [(index: Int, path: String)?]
    /// The files handed to the queue to name before the journal append (listed first in a
    /// ``NewFileIntent``): queue index and path.
    var earlyNames: [(index: Int, path: String)] = []
    /// The batch's number of journal entries, as planned.
    var entryCount = 0

    /// The file made ahead of time for the record in `slot`, if any.
    func file(ofSlot slot: Int) -> (index: Int, path: String)? {
        slot < fileBySlot.count ? fileBySlot[slot] : nil
    }
}
