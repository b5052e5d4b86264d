#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One of the index's files, read lazily: the image (`.ferry/index`, every record), the delta
/// over it (`.ferry/index-delta`) or a spill over the delta (see ``IndexFileLevel``). Opening
/// reads only the header; looking a record up binary-searches the sorted record lines with
/// `pread` (after many lookups, the whole file is read once and searched in memory). So the cost of a sync or a
/// write is proportional to the records it touches, not to the store's size.
///
/// ```
/// ferry-index	3
/// H	<head seq>	<head hash>	<latest hlc>
/// R	<replica uuid>	<latest counter>	<its digest or ->   one per replica, numbered from 0 in this order
/// L	<entity>	<live records>
/// C	<entity>	<encoded id>                 one per conflicted record
/// N	<record count>
/// B
/// K	<entity>	<encoded id>	<last seq>	<file stamp or ->	<versions>   sorted by entity, then encoded id (bytes)
/// E	<record count>
/// ```
/// A file stamp is `size,mtime-ns,inode,sha256-hex,taken-at-ns`. Versions are separated by
/// `;`, each `replica#,counter,hlc-ms,hlc-logical,deleted(0/1),content-sha256,seq,vector`,
/// the vector being `replica#:counter` pairs joined by `+`.
///
/// The header is read and written by ``IndexFileHeader``, the record lines by
/// ``IndexRecordLine``; a delta's header adds `A` and `T` lines (docs/FORMAT.md, "Index image").
final class IndexFile: @unchecked Sendable {
    /// What the header says.
    typealias Header = IndexFileHeader

    let path: String
    let header: Header
    private let file: FileDescriptor
    private let bodyStart: Int64
    /// Where the record lines end (the `E` line starts).
    let bodyEnd: Int64
    private var memory: [UInt8]?
    private var lineStarts: [Int] = []
    private var lookups = 0
    /// For a image too large to load for lookups: the sort key and offset of the first line
    /// of every block of about ``sparseBlockBytes``, so a lookup reads one block.
    private var sparse: (keys: [[UInt8]], offsets: [Int64])?
    /// With the sparse index: which sort keys the file may hold.
    private var filter: SortKeyFilter?
    /// How many blocks lookups through the sparse index have read (for tests).
    private(set) var blocksRead = 0
    /// The block a sparse lookup read last, with its lines' starts: lookups near each other in
    /// key order (an import's new ids, a pull's records, the same record asked for twice) read
    /// and split it once, then search it by bisection.
    private var lastBlock: (offset: Int64, bytes: [UInt8], lineStarts: [Int])?
    /// Images up to this size are loaded whole once looked up often; larger ones get the
    /// sparse index (a million records make a 250 MB image: loaded whole, it was the
    /// largest part of an import's or a join's memory).
    var loadLimit: Int64 = 32 << 20
    /// The load limit of a delta file: a long run's merges grow the delta to up to half the
    /// image (see ``Store/mergeIndexIfDue()``), and a delta loaded whole for lookups
    /// doubled an import's memory.
    static let deltaLoadLimit: Int64 = 4 << 20
    static let sparseBlockBytes: Int64 = 16 << 10
    /// Whether the body is held in memory (for tests).
    var isLoaded: Bool { memory != nil }
    private var entityCache: [[UInt8]: EntityName] = [:]
    /// Recent lookups (a table's get and set of one key look it up twice).
    private var recent: [RecordKey: RecordState?] = [:]
    /// How many lookups ``recent`` keeps before it starts afresh: more than a sync page (5,000
    /// changes), whose records are each looked up in several passes (admission, the hand-edit
    /// check, planning, applying). At 4,096 the table emptied within every pass, so each pass
    /// searched the files again, and at a million records those searches were most of a join's
    /// lookups.
    static let recentCapacity = 16_384
    /// Set when a record line could not be read; the store then rebuilds from the journal.
    private(set) var damage: String?

    private init(path: String, header: Header, file: FileDescriptor, bodyStart: Int64, bodyEnd: Int64) {
        self.path = path
        self.header = header
        self.file = file
        self.bodyStart = bodyStart
        self.bodyEnd = bodyEnd
    }

    deinit { file.close() }

    /// Another reader of the same file (not the same path: the file it was opened from), with
    /// its own descriptor and caches, for use on another thread.
    func reopened() -> IndexFile? {
        let copy = dup(file.rawValue)
        guard copy >= 0 else { return nil }
        let reopened = IndexFile(
            path: path, header: header, file: FileDescriptor(rawValue: copy, path: path), bodyStart: bodyStart, bodyEnd: bodyEnd)
        reopened.loadLimit = loadLimit
        return reopened
    }

    /// Whether the whole body has been read into memory (after many lookups, or a whole-table
    /// read); listings read it a piece at a time instead.
    var isLoadedIntoMemory: Bool { memory != nil }

    /// The inode of the file read, to tell whether its path still names it.
    var inode: UInt64? { try? file.status().inode }

    /// Opens a image and reads its header; `nil` when absent.
    /// - Throws: ``StoreError/damagedIndex(reason:)`` for a image that is not well-formed.
    static func open(_ path: String, level: IndexFileLevel = .image) throws(StoreError) -> IndexFile? {
        let file: FileDescriptor
        do { file = try FileDescriptor.open(path, .readOnly) } catch {
            if error.isNotFound { return nil }
            throw .io(error)
        }
        do {
            let size = try file.status().size
            var headerBytes = try file.read(at: 0, count: Int(min(size, 65_536)))
            var bodyOffset = IndexFileHeader.end(in: headerBytes)
            if bodyOffset == nil && size > 65_536 {
                headerBytes = try file.read(at: 0, count: Int(min(size, 16 << 20)))
                bodyOffset = IndexFileHeader.end(in: headerBytes)
            }
            guard let bodyOffset else { throw StoreError.damagedIndex(reason: "the header has no end") }
            let header = try parseHeader(Array(headerBytes[0..<bodyOffset]), magic: level.magic)
            let trailer = IndexFileHeader.trailer(recordCount: header.recordCount)
            guard size >= Int64(bodyOffset + trailer.count),
                try file.read(at: size - Int64(trailer.count), count: trailer.count) == trailer
            else { throw StoreError.damagedIndex(reason: "the image is truncated") }
            let image = IndexFile(path: path, header: header, file: file, bodyStart: Int64(bodyOffset), bodyEnd: size - Int64(trailer.count))
            if level != .image { image.loadLimit = deltaLoadLimit }
            return image
        } catch let error as StoreError {
            file.close()
            throw error
        } catch {
            file.close()
            throw .damagedIndex(reason: "\(error)")
        }
    }

    /// Checks the magic line and reads the header lines (see ``IndexFileHeader``).
    private static func parseHeader(_ bytes: [UInt8], magic: String) throws(StoreError) -> Header {
        guard bytes.firstIndex(of: 10).map({ bytes[..<$0].elementsEqual(magic.utf8) }) ?? bytes.elementsEqual(magic.utf8) else {
            throw .damagedIndex(reason: "header line 1: unknown header (expected \(magic))")
        }
        do throws(IndexFileHeader.Malformed) {
            return try IndexFileHeader.decode(bytes).header
        } catch {
            throw .damagedIndex(reason: "header line \(error.line): \(error.reason)")
        }
    }

    // MARK: Lookup

    /// The state of `key`, or `nil` when the image has no such record.
    func lookup(_ key: RecordKey) -> RecordState? {
        var sortKey: [UInt8]?
        return lookup(key, sortKey: &sortKey)
    }

    /// The state of `key`; `sortKey` is its sort key, computed here when `nil` (so that one
    /// lookup in the delta and then the image computes it once).
    /// - Parameter remembering: keep the answer for the next lookup of `key` (pass `false`
    ///   when the caller keeps it itself).
    func lookup(_ key: RecordKey, sortKey: inout [UInt8]?, remembering: Bool = true) -> RecordState? {
        if remembering, let cached = recent[key] { return cached }
        let target = sortKey ?? IndexRecordLine.sortKey(key)
        sortKey = target
        let found = search(target)
        guard remembering else { return found }
        if recent.count >= Self.recentCapacity { recent.removeAll(keepingCapacity: true) }
        recent[key] = .some(found)
        return found
    }

    private func search(_ target: [UInt8]) -> RecordState? {
        withLine(sortKey: target) { decode($0) } ?? nil
    }

    /// The record line with sort key `sortKey`, as it is in the file; `nil` when there is none.
    func rawLine(sortKey: [UInt8]) -> [UInt8]? {
        withLine(sortKey: sortKey) { Array($0) }
    }

    /// Finds the line with sort key `target` (in memory once looked up often enough, else on
    /// disk) and hands it to `body`; `nil` when there is no such line.
    private func withLine<R>(sortKey target: [UInt8], _ body: (ArraySlice<UInt8>) -> R) -> R? {
        lookups += 1
        if memory == nil && sparse == nil && lookups > 256 {
            if bodyEnd - bodyStart <= loadLimit { loadIntoMemory() } else { buildSparseIndex() }
        }
        if let sparse, memory == nil {
            // Most lookups in a large file are of records it lacks (a join's, an import's new
            // ones): the filter turns those away without reading a block.
            if let filter, !filter.mayContain(target) { return nil }
            return lineInBlock(target, sparse, body)
        }
        if let memory {
            var low = 0
            var high = lineStarts.count
            while low < high {
                let middle = (low + high) / 2
                let line = self.line(at: middle, in: memory)
                let order = compare(sortKeyOf: line, with: target)
                if order == 0 { return body(line) }
                if order < 0 { low = middle + 1 } else { high = middle }
            }
            return nil
        }
        return lineOnDisk(target, body)
    }

    /// Reads the file once, in 1 MiB pieces, noting the first line of every block of about
    /// ``sparseBlockBytes`` (about 60 kB of keys for a million records), and adding every
    /// line's sort key to a ``SortKeyFilter``.
    private func buildSparseIndex() {
        var keys: [[UInt8]] = []
        var offsets: [Int64] = []
        var nextBlock = bodyStart
        var filter = SortKeyFilter(expectedCount: header.recordCount)
        guard forEachLineOnDisk({ offset, line in
            let sortKey = IndexRecordLine.sortKey(ofLine: line)
            filter.insert(sortKey)
            guard offset >= nextBlock else { return }
            keys.append(Array(sortKey))
            offsets.append(offset)
            nextBlock = offset + IndexFile.sparseBlockBytes
        }) != nil else { return }
        sparse = (keys, offsets)
        self.filter = filter
    }

    /// A lookup through the sparse index: the block whose first key is the last not after
    /// `target`, read with one `pread` and scanned.
    private func lineInBlock<R>(_ target: [UInt8], _ sparse: (keys: [[UInt8]], offsets: [Int64]), _ body: (ArraySlice<UInt8>) -> R) -> R? {
        var low = 0
        var high = sparse.keys.count
        while low < high {
            let middle = (low + high) / 2
            if ByteOrder.compare(sparse.keys[middle][...], target[...]) <= 0 { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let start = sparse.offsets[low - 1]
        let end = low < sparse.offsets.count ? sparse.offsets[low] : bodyEnd
        if lastBlock?.offset != start {
            guard end > start, let bytes = try? file.read(at: start, count: Int(end - start)) else { return nil }
            blocksRead += 1
            var lineStarts = [0]
            var next = 0
            while let newline = ByteOrder.firstIndex(of: 10, in: bytes[next...]) {
                next = newline + 1
                if next < bytes.count { lineStarts.append(next) }
            }
            lastBlock = (start, bytes, lineStarts)
        }
        guard let block = lastBlock else { return nil }
        // Whole lines only: a last line without its newline is left out, as a scan would.
        let count = block.lineStarts.count
        var first = 0
        var last = block.bytes.last == 10 ? count : count - 1
        while first < last {
            let middle = (first + last) / 2
            let lineEnd = (middle + 1 < count ? block.lineStarts[middle + 1] : block.bytes.count) - 1
            let line = block.bytes[block.lineStarts[middle]..<lineEnd]
            let order = compare(sortKeyOf: line, with: target)
            if order == 0 { return body(line) }
            if order < 0 { first = middle + 1 } else { last = middle }
        }
        return nil
    }

    /// Reads the lines from `start` to `end` (whole lines, in sort order) and hands the one with
    /// sort key `target` to `body`; `nil` when it is not among them.
    private func scanRange<R>(from start: Int64, to end: Int64, for target: [UInt8], _ body: (ArraySlice<UInt8>) -> R) -> R? {
        guard end > start, let bytes = try? file.read(at: start, count: Int(end - start)) else { return nil }
        var lineStart = 0
        for index in bytes.indices where bytes[index] == 10 {
            let line = bytes[lineStart..<index]
            let order = compare(sortKeyOf: line, with: target)
            if order == 0 { return body(line) }
            if order > 0 { return nil }
            lineStart = index + 1
        }
        return nil
    }

    /// Binary search over byte offsets with `pread`: each step reads the line that starts at
    /// or after the middle of the remaining range.
    private func lineOnDisk<R>(_ target: [UInt8], _ body: (ArraySlice<UInt8>) -> R) -> R? {
        var low = bodyStart
        var high = bodyEnd
        while high - low > 16_384 {
            let middle = (low + high) / 2
            guard let (start, line) = lineStarting(atOrAfter: middle, before: high) else {
                high = middle
                continue
            }
            let order = compare(sortKeyOf: line[...], with: target)
            if order == 0 { return body(line[...]) }
            if order < 0 { low = start + Int64(line.count) + 1 } else { high = start }
        }
        return scanRange(from: low, to: high, for: target, body)
    }

    /// The offset of the first record line whose sort key does not precede `target`, or a
    /// line start at most 16 KiB before it (the lines between precede `target`); `bodyEnd`
    /// when none follows. A binary search with `pread`, like a lookup.
    func offsetOfFirstLine(notBefore target: [UInt8]) -> Int64 {
        var low = bodyStart
        var high = bodyEnd
        while high - low > 16_384 {
            let middle = (low + high) / 2
            guard let (start, line) = lineStarting(atOrAfter: middle, before: high) else {
                high = middle
                continue
            }
            if compare(sortKeyOf: line[...], with: target) < 0 { low = start + Int64(line.count) + 1 } else { high = start }
        }
        return low
    }

    /// `count` bytes of the file from `offset`; `nil` when they cannot be read whole.
    func readBody(at offset: Int64, count: Int) -> [UInt8]? {
        guard let bytes = try? file.read(at: offset, count: count), bytes.count == count else { return nil }
        return bytes
    }

    /// The first whole line starting at or after `offset` (and before `limit`).
    private func lineStarting(atOrAfter offset: Int64, before limit: Int64) -> (Int64, [UInt8])? {
        var window = 4096
        while true {
            let readStart = max(bodyStart, offset - 1)
            let count = Int(min(Int64(window), bodyEnd - readStart))
            guard count > 0, let bytes = try? file.read(at: readStart, count: count) else { return nil }
            // The line starts after the first newline at or after offset - 1 (or at bodyStart).
            var lineStart: Int
            if readStart == bodyStart && offset <= bodyStart {
                lineStart = 0
            } else {
                guard let newline = bytes.firstIndex(of: 10) else {
                    if count < window { return nil }
                    window *= 4
                    continue
                }
                lineStart = newline + 1
            }
            if readStart + Int64(lineStart) >= limit { return nil }
            guard let end = bytes[lineStart...].firstIndex(of: 10) else {
                if readStart + Int64(count) >= bodyEnd { return nil }
                window *= 4
                continue
            }
            return (readStart + Int64(lineStart), Array(bytes[lineStart..<end]))
        }
    }

    /// Compares a line's sort key (up to its third tab) with `target`.
    private func compare(sortKeyOf line: ArraySlice<UInt8>, with target: [UInt8]) -> Int {
        // Skip "K\t".
        var index = line.startIndex + 2
        var targetIndex = 0
        var tabs = 0
        while index < line.endIndex {
            let byte = line[index]
            if byte == 9 {
                tabs += 1
                if tabs == 2 { break }
            }
            if targetIndex == target.count { return 1 }
            let other = target[targetIndex]
            if byte != other { return byte < other ? -1 : 1 }
            index += 1
            targetIndex += 1
        }
        return targetIndex == target.count ? 0 : -1
    }

    // MARK: Whole-table reads

    /// Reads the whole body into memory with line offsets (for iteration and many lookups).
    private func loadIntoMemory() {
        guard memory == nil else { return }
        guard let bytes = try? file.read(at: bodyStart, count: Int(bodyEnd - bodyStart)) else {
            damage = "cannot read \(path)"
            memory = []
            return
        }
        var starts: [Int] = []
        starts.reserveCapacity(header.recordCount)
        var start = 0
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while start < buffer.count, let newline = memchr(base + start, 10, buffer.count - start) {
                starts.append(start)
                start = base.distance(to: UnsafeRawPointer(newline)) + 1
            }
        }
        if starts.count != header.recordCount { damage = "expected \(header.recordCount) records, found \(starts.count)" }
        lineStarts = starts
        memory = bytes
    }

    private func line(at index: Int, in bytes: [UInt8]) -> ArraySlice<UInt8> {
        let start = lineStarts[index]
        let end = index + 1 < lineStarts.count ? lineStarts[index + 1] - 1 : bytes.count - 1
        return bytes[start..<max(start, end)]
    }

    /// Every record, in sort order, decoded; a file larger than ``loadLimit`` and not in
    /// memory yet is read a piece at a time, not loaded.
    func forEachRecord(_ body: (RecordKey, RecordState) -> Void) {
        if memory == nil && bodyEnd - bodyStart <= loadLimit { loadIntoMemory() }
        forEachRawLineStreaming { _, line in
            guard let (key, state) = decodeWithKey(line) else { return }
            body(key, state)
        }
    }

    /// Whether every record line decodes and there are as many as the header says, read a
    /// piece at a time (for checking a delta before trusting it).
    func allRecordsDecode() -> Bool {
        var decoded = 0
        forEachRecord { _, _ in decoded += 1 }
        return damage == nil && decoded == header.recordCount
    }

    /// Every record line as raw bytes with its sort key, in order (for merging into a new
    /// image without decoding).
    func forEachRawLine(_ body: (_ sortKey: ArraySlice<UInt8>, _ line: ArraySlice<UInt8>) -> Void) {
        loadIntoMemory()
        guard let memory else { return }
        for index in lineStarts.indices {
            let line = self.line(at: index, in: memory)
            body(IndexRecordLine.sortKey(ofLine: line), line)
        }
    }

    // MARK: Status scans

    /// Records why the image cannot be trusted (the first reason wins).
    func markDamaged(_ reason: String) {
        if damage == nil { damage = reason }
    }

    /// Decodes a record line handed out by ``forEachRawLine(_:)``.
    func decodeRecord(_ line: ArraySlice<UInt8>) -> (RecordKey, RecordState)? {
        decodeWithKey(line)
    }

    /// Like ``forEachRawLine(_:)``, but reads the file in 1 MiB pieces when it is not in
    /// memory already, so merging a large image does not hold all of it.
    func forEachRawLineStreaming(_ body: (_ sortKey: ArraySlice<UInt8>, _ line: ArraySlice<UInt8>) -> Void) {
        if memory != nil {
            forEachRawLine(body)
            return
        }
        var seen = 0
        guard let whole = forEachLineOnDisk({ _, line in
            body(IndexRecordLine.sortKey(ofLine: line), line)
            seen += 1
        }) else { return }
        if !whole || seen != header.recordCount {
            damage = "expected \(header.recordCount) records, found \(seen)"
        }
    }

    /// Reads the body from disk in 1 MiB pieces and hands over each line with its offset.
    /// Returns whether the body ended with a whole line; `nil` when it could not be read (the
    /// file is then marked damaged).
    private func forEachLineOnDisk(_ body: (_ offset: Int64, _ line: ArraySlice<UInt8>) -> Void) -> Bool? {
        var offset = bodyStart
        var carry: [UInt8] = []
        var carryStart = bodyStart
        while offset < bodyEnd {
            let count = Int(min(Int64(1 << 20), bodyEnd - offset))
            guard let piece = try? file.read(at: offset, count: count), piece.count == count else {
                damage = "cannot read \(path)"
                return nil
            }
            offset += Int64(count)
            carry.append(contentsOf: piece)
            var start = 0
            while let newline = ByteOrder.firstIndex(of: 10, in: carry[start...]) {
                body(carryStart + Int64(start), carry[start..<newline])
                start = newline + 1
            }
            carry.removeFirst(start)
            carryStart += Int64(start)
        }
        return carry.isEmpty
    }

    // MARK: Decoding

    private func decode(_ line: ArraySlice<UInt8>) -> RecordState? {
        decodeWithKey(line)?.1
    }

    private func decodeWithKey(_ line: ArraySlice<UInt8>) -> (RecordKey, RecordState)? {
        var fields = FieldSplitter(line: line, separator: 9)
        guard fields.next()?.first == UInt8(ascii: "K"), let entityText = fields.next(), let encoded = fields.next(),
            let lastSequence = fields.nextInteger(), let stampText = fields.next(), let versionsText = fields.next()
        else { return fail("malformed record line") }
        let entity: EntityName
        if let known = entityCache[Array(entityText)] {
            entity = known
        } else {
            guard let made = try? EntityName(String(decoding: entityText, as: UTF8.self)) else { return fail("bad entity") }
            entityCache[Array(entityText)] = made
            entity = made
        }
        guard let id = RecordFileName.decode(bytes: encoded) else { return fail("bad record id") }
        guard let stamp = IndexRecordLine.parseStamp(stampText) else { return fail("malformed file stamp") }
        guard let versions = IndexRecordLine.parseVersions(versionsText, replicas: header.replicas) else {
            return fail("malformed versions")
        }
        return (RecordKey(entity: entity, id: id), RecordState(versions: versions, lastSequence: lastSequence, file: stamp ?? nil))
    }

    private func fail<T>(_ reason: String) -> T? {
        if damage == nil { damage = reason }
        return nil
    }

}
