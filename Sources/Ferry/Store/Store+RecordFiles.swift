/// A record file to write: a live record whose winner changed, with no conflict file to add
/// or remove, which is most of what a batch of writes, an import or a sync does.
struct RecordFileWrite: Sendable {
    var key: RecordKey
    var path: String
    var document: JSONValue
    /// Ferry wrote no file for this record yet (see ``Store/writeRecordFile(_:path:document:isNew:)``).
    var isNew: Bool
}

extension Store {
    /// The file write that brings `key` from `before` to `after`, when it is only that;
    /// `nil` when ``materialize(_:before:after:documents:)`` must do the work (a delete, a
    /// conflict, or nothing to write).
    func plainFileWrite(
        _ key: RecordKey, before: RecordState?, after: RecordState, documents: [UInt64: JSONValue]
    ) throws(StoreError) -> RecordFileWrite? {
        guard after.isLive, after.versions.count == 1, (before?.versions.count ?? 1) == 1 else { return nil }
        if let before, before.isLive, before.winner.identity == after.winner.identity, before.file != nil { return nil }
        let document = try self.document(of: after.winner, documents: documents)
        return RecordFileWrite(key: key, path: layout.recordFile(key), document: document, isNew: before?.file == nil)
    }

    /// Writes record files and remembers their stamps.
    ///
    /// New files, when there are enough of them, are made on a worker thread without names
    /// (an ``UnnamedFileQueue``) while this thread names them in turn. Files replacing old ones
    /// go through the one ``FileReplacer``. When a write fails, the others are still made and
    /// stamped, and the first error is thrown.
    func writeRecordFiles(_ writes: [RecordFileWrite]) throws(StoreError) {
        var firstError: SystemError?
        func note(_ error: SystemError) { firstError = firstError ?? error }
        let created = writes.filter(\.isNew)
        if created.count >= Store.fileQueueThreshold {
            let queue = UnnamedFileQueue(count: created.count) { offset in
                let write = created[offset]
                return UnnamedFileQueue.Request(directory: FileSystem.parentPath(of: write.path), bytes: write.document.prettyBytes())
            }
            defer { queue.finish() }
            for (offset, write) in created.enumerated() {
                do throws(SystemError) {
                    if case .made(let made) = queue.take(offset) {
                        defer { made.file.close() }
                        if try FileSystem.linkUnnamedFile(made.file, at: write.path) {
                            index.records[write.key]?.file = FileStamp(made.status, contentHash: made.contentHash)
                            continue
                        }
                    }
                    // No unnamed files here, or a file appeared at the path: the usual way.
                    try writeRecordFile(write.key, path: write.path, document: write.document, isNew: true)
                } catch {
                    note(error)
                }
            }
        } else {
            for write in created {
                do { try writeRecordFile(write.key, path: write.path, document: write.document, isNew: true) } catch { note(error) }
            }
        }
        for write in writes where !write.isNew {
            do { try writeRecordFile(write.key, path: write.path, document: write.document, isNew: false) } catch { note(error) }
        }
        if let firstError { throw .io(firstError) }
    }

    /// The fewest new files worth a worker thread.
    static let fileQueueThreshold = 64
}
