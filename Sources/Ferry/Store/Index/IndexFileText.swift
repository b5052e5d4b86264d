/// One index file for ``IndexComparison`` (`ferry verify`): its header (``IndexFileHeader``)
/// and its record lines streamed in pieces, never decoded and never all in memory (format in
/// ``IndexFile``; each line's fields are found by ``IndexRecordLine/Fields``).
struct IndexFileText: Sendable {
    /// The file's path relative to the store (`.ferry/index`), for findings.
    let path: String
    /// The file's full path, to stream its record lines.
    let fullPath: String
    /// What the header says.
    private(set) var header = IndexFileHeader()
    var head: StoreHead { header.head }
    /// The replicas in the order the record lines number them, and their latest counters.
    var replicas: [ReplicaID] { header.replicas }
    var knowledge: VersionVector { header.knowledge }
    var liveCounts: [EntityName: Int] { header.liveCounts }
    var conflicted: Set<RecordKey> { header.conflicted }
    /// For a delta file: the head of the image it applies to, and the table's total.
    var baseHead: (sequence: UInt64, hash: SHA256Digest)? { header.baseHead }
    var totalRecords: Int? { header.totalRecords }
    /// The number of record lines.
    var recordCount: Int { header.recordCount }
    /// The byte range of the record lines (each with its newline).
    var body: Range<Int64> = 0..<0
    /// The line number (from 1) of the first record line, for findings.
    var firstRecordLineNumber = 0

    /// Why a file is not an index file at all.
    struct Unreadable: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// The size of the pieces record lines are read in.
    static let pieceSize = 1 << 20

    /// Reads the header of the file at `fullPath`, checks its trailer and counts its record
    /// lines (one streaming pass, no line kept).
    /// - Throws: ``Unreadable`` when the magic line, a header line, the record count or the
    ///   `E` line is wrong.
    init(reading fullPath: String, path: String, level: IndexFileLevel) throws(Unreadable) {
        let magic = level.magic
        self.path = path
        self.fullPath = fullPath
        let file: FileDescriptor
        do { file = try FileDescriptor.open(fullPath, .readOnly) } catch { throw Unreadable("\(error)") }
        defer { file.close() }
        let size: Int64
        var headerBytes: [UInt8]
        do {
            size = try file.status().size
            headerBytes = try file.read(at: 0, count: Int(min(size, 65_536)))
            if IndexFileHeader.end(in: headerBytes) == nil && size > 65_536 {
                headerBytes = try file.read(at: 0, count: Int(min(size, 16 << 20)))
            }
        } catch { throw Unreadable("\(error)") }
        guard let lastByte = try? file.read(at: max(0, size - 1), count: 1), size == 0 || lastByte == [10] else {
            throw Unreadable("the last line has no newline")
        }
        guard let firstLine = headerBytes.firstIndex(of: 10), headerBytes[..<firstLine].elementsEqual(magic.utf8) else {
            throw Unreadable("not an index file (expected \(magic.replacingOccurrences(of: "\t", with: " ")))")
        }
        let headerEnd = IndexFileHeader.end(in: headerBytes) ?? headerBytes.count
        let decoded: (header: IndexFileHeader, ended: Bool)
        do throws(IndexFileHeader.Malformed) {
            decoded = try IndexFileHeader.decode(Array(headerBytes[..<headerEnd]))
        } catch {
            throw Unreadable("line \(error.line): \(error.reason)")
        }
        header = decoded.header
        guard header.hasRecordCount else { throw Unreadable("the header has no record count (N)") }
        guard decoded.ended else {
            throw Unreadable("the file does not end with its record count (E \(recordCount)); it is truncated")
        }
        firstRecordLineNumber = headerBytes[..<headerEnd].lazy.filter { $0 == 10 }.count + 1
        let trailer = IndexFileHeader.trailer(recordCount: recordCount)
        let bodyStart = Int64(headerEnd)
        guard size >= bodyStart + Int64(trailer.count), (try? file.read(at: size - Int64(trailer.count), count: trailer.count)) == trailer,
            size - Int64(trailer.count) == bodyStart || (try? file.read(at: size - Int64(trailer.count) - 1, count: 1)) == [10]
        else {
            throw Unreadable("the file does not end with its record count (E \(recordCount)); it is truncated")
        }
        body = bodyStart..<(size - Int64(trailer.count))
        var found = 0
        do throws(SystemError) {
            try Self.forEachPiece(of: file, in: body) { piece in
                piece.withUnsafeBufferPointer { bytes in
                    for byte in bytes where byte == 10 { found += 1 }
                }
            }
        } catch { throw Unreadable("\(error)") }
        guard found == recordCount else {
            throw Unreadable("the header counts \(recordCount) records but the file has \(found)")
        }
    }

    /// Calls `body` with the record lines (without their newlines), a piece of about 1 MiB at
    /// a time, each line's number in the file (from 1) with it.
    func forEachPieceOfLines(_ body: (_ lines: [(number: Int, range: Range<Int>)], _ bytes: [UInt8]) -> Void) throws(Unreadable) {
        let file: FileDescriptor
        do { file = try FileDescriptor.open(fullPath, .readOnly) } catch { throw Unreadable("\(error)") }
        defer { file.close() }
        var carry: [UInt8] = []
        var number = firstRecordLineNumber
        do throws(SystemError) {
            try Self.forEachPiece(of: file, in: self.body) { piece in
                carry.append(contentsOf: piece)
                var lines: [(number: Int, range: Range<Int>)] = []
                var start = 0
                carry.withUnsafeBufferPointer { bytes in
                    for offset in 0..<bytes.count where bytes[offset] == 10 {
                        lines.append((number, start..<offset))
                        number += 1
                        start = offset + 1
                    }
                }
                body(lines, carry)
                carry.removeFirst(start)
            }
        } catch { throw Unreadable("\(error)") }
    }

    /// Reads `range` of `file` in pieces of ``pieceSize``.
    private static func forEachPiece(of file: FileDescriptor, in range: Range<Int64>, _ body: ([UInt8]) -> Void) throws(SystemError) {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let count = Int(min(Int64(pieceSize), range.upperBound - offset))
            let piece = try file.read(at: offset, count: count)
            guard !piece.isEmpty else { break }
            body(piece)
            offset += Int64(piece.count)
        }
    }
}
