/// The changes a pull checked, kept in an unnamed temporary file between checking them and
/// applying them, once they outgrow the memory a sync keeps (``SyncOptions/maximumKeptChangeBytes``):
/// applied from here rather than read from the peer a second time, which over S3 or
/// `ferry serve` cost every request of those pages again, and failed the sync when the peer
/// changed in between.
///
/// Each change is its canonical JSON (the journal's and the protocol's form) after its length
/// in four bytes. The file is made in the spool folder (``SyncOptions/spoolDirectory``) and
/// unlinked at once, so nothing is left behind whatever happens to the process; its changes
/// are checked again by whoever applies them (each change's digest), as any change read.
///
/// ```swift
/// let spool = try ChangeSpool(in: "/tmp")
/// try spool.append(changes)
/// let page = try spool.nextPage(limit: 5_000)   // the first 5,000, in order
/// ```
final class ChangeSpool {
    private let file: FileDescriptor
    /// Bytes appended but not written yet.
    private var pending: [UInt8] = []
    /// Bytes in the file.
    private var fileSize: Int64 = 0
    /// Where the next read in the file starts.
    private var readOffset: Int64 = 0
    /// Bytes read from the file and not decoded yet, from `readStart`.
    private var readBuffer: [UInt8] = []
    private var readStart = 0
    /// How many changes were appended, and how many read back.
    private(set) var count = 0
    private(set) var readCount = 0

    /// The bytes gathered before a write, and read at a time.
    static let chunkBytes = 1 << 20

    /// Makes the unnamed file in `directory`.
    /// - Throws: ``SystemError`` when no file can be made there.
    init(in directory: String) throws(SystemError) {
        file = try FileSystem.makeUnlinkedFile(in: directory, prefix: "ferry-sync-spool")
    }

    deinit { file.close() }

    /// Appends changes after those appended before.
    /// - Throws: ``SystemError`` when the file cannot be written (a full disk); the spool is
    ///   then unusable.
    func append(_ changes: [Change]) throws(SystemError) {
        for change in changes {
            let lengthAt = pending.count
            pending.append(contentsOf: [0, 0, 0, 0])
            change.writeCanonicalJSON(to: &pending)
            let length = UInt32(truncatingIfNeeded: pending.count - lengthAt - 4)
            for byte in 0..<4 { pending[lengthAt + byte] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(byte))) }
            count += 1
            if pending.count >= Self.chunkBytes { try flush() }
        }
    }

    private func flush() throws(SystemError) {
        guard !pending.isEmpty else { return }
        try file.writeAll(pending)
        fileSize += Int64(pending.count)
        pending.removeAll(keepingCapacity: true)
    }

    /// Makes the next page start again from the first change.
    func rewind() {
        readOffset = 0
        readBuffer = []
        readStart = 0
        readCount = 0
    }

    /// The next changes in the order appended, at most `limit`; empty after the last.
    /// - Throws: ``ChangeSpoolError`` when the file cannot be read or holds what was not written.
    func nextPage(limit: Int) throws(ChangeSpoolError) -> [Change] {
        do { try flush() } catch { throw ChangeSpoolError("cannot write the spool file: \(error)") }
        var page: [Change] = []
        while page.count < limit, readCount < count {
            let header = try take(4)
            let length = Int(header[0]) | Int(header[1]) << 8 | Int(header[2]) << 16 | Int(header[3]) << 24
            let bytes = try take(length)
            let change: Change
            do {
                guard case .object(let fields) = try JSONParser.parse(bytes, options: .change) else {
                    throw ChangeSpoolError("change \(readCount + 1) in the spool file is not a JSON object")
                }
                change = try Change(jsonFields: fields)
            } catch let error as ChangeSpoolError {
                throw error
            } catch {
                throw ChangeSpoolError("change \(readCount + 1) in the spool file cannot be read: \(error)")
            }
            page.append(change)
            readCount += 1
        }
        return page
    }

    /// The next `length` bytes of the file, reading on as needed.
    private func take(_ length: Int) throws(ChangeSpoolError) -> [UInt8] {
        while readBuffer.count - readStart < length {
            let remaining = fileSize - readOffset
            guard remaining > 0 else {
                throw ChangeSpoolError("the spool file ended before change \(readCount + 1) of \(count)")
            }
            let want = Int(min(remaining, Int64(max(Self.chunkBytes, length - (readBuffer.count - readStart)))))
            let chunk: [UInt8]
            do { chunk = try file.read(at: readOffset, count: want) } catch {
                throw ChangeSpoolError("cannot read the spool file: \(error)")
            }
            guard !chunk.isEmpty else { throw ChangeSpoolError("the spool file ended before change \(readCount + 1) of \(count)") }
            readOffset += Int64(chunk.count)
            if readStart > 0 {
                readBuffer.removeFirst(readStart)
                readStart = 0
            }
            readBuffer += chunk
        }
        let bytes = Array(readBuffer[readStart..<(readStart + length)])
        readStart += length
        return bytes
    }
}

/// A spool file that could not be written or read back as it was written.
struct ChangeSpoolError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
