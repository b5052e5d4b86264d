#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The on-disk index snapshot, `.ferry/index`, read lazily: opening reads only the header;
/// looking a record up binary-searches the sorted record lines with `pread` (after many
/// lookups, the whole file is read once and searched in memory). So the cost of a sync or a
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
final class IndexFile: @unchecked Sendable {
    /// What the header says.
    struct Header {
        var head = StoreHead(sequence: 0, hash: .zero, latestModification: .zero)
        var replicas: [ReplicaID] = []
        var knowledge = VersionVector()
        /// For each replica in `knowledge`, the digest of its latest change (see ``ChangeChain``).
        var digests: [ReplicaID: SHA256Digest] = [:]
        var liveCounts: [EntityName: Int] = [:]
        var conflicted = Set<RecordKey>()
        var recordCount = 0
        /// For a delta file: the head of the snapshot it applies to.
        var baseHead: (sequence: UInt64, hash: SHA256Digest)?
        /// For a delta file: the number of records of the whole table.
        var totalRecords: Int?
    }

    let path: String
    let header: Header
    private let file: FileDescriptor
    private let bodyStart: Int64
    /// Where the record lines end (the `E` line starts).
    let bodyEnd: Int64
    private var memory: [UInt8]?
    private var lineStarts: [Int] = []
    private var lookups = 0
    /// For a snapshot too large to load for lookups: the sort key and offset of the first line
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
    /// Snapshots up to this size are loaded whole once looked up often; larger ones get the
    /// sparse index (a million records make a 250 MB snapshot: loaded whole, it was the
    /// largest part of an import's or a join's memory).
    var loadLimit: Int64 = 32 << 20
    /// The load limit of a delta file: a long run's merges grow the delta to up to half the
    /// snapshot (see ``Store/mergeIndexIfDue()``), and a delta loaded whole for lookups
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

    /// Opens a snapshot and reads its header; `nil` when absent.
    /// - Throws: ``StoreError/damagedIndex(reason:)`` for a snapshot that is not well-formed.
    static func open(_ path: String, level: IndexFileLevel = .image) throws(StoreError) -> IndexFile? {
        let file: FileDescriptor
        do { file = try FileDescriptor.open(path, .readOnly) } catch {
            if error.isNotFound { return nil }
            throw .io(error)
        }
        do {
            let size = try file.status().size
            var headerBytes = try file.read(at: 0, count: Int(min(size, 65_536)))
            var bodyOffset = headerEnd(headerBytes)
            if bodyOffset == nil && size > 65_536 {
                headerBytes = try file.read(at: 0, count: Int(min(size, 16 << 20)))
                bodyOffset = headerEnd(headerBytes)
            }
            guard let bodyOffset else { throw StoreError.damagedIndex(reason: "the header has no end") }
            let header = try parseHeader(Array(headerBytes[0..<bodyOffset]), magic: level.magic)
            let trailer = Array("E\t\(header.recordCount)\n".utf8)
            guard size >= Int64(bodyOffset + trailer.count),
                try file.read(at: size - Int64(trailer.count), count: trailer.count) == trailer
            else { throw StoreError.damagedIndex(reason: "the snapshot is truncated") }
            let snapshot = IndexFile(path: path, header: header, file: file, bodyStart: Int64(bodyOffset), bodyEnd: size - Int64(trailer.count))
            if level != .image { snapshot.loadLimit = deltaLoadLimit }
            return snapshot
        } catch let error as StoreError {
            file.close()
            throw error
        } catch {
            file.close()
            throw .damagedIndex(reason: "\(error)")
        }
    }

    /// The offset just after the `B` line, if present.
    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        var start = 0
        for index in bytes.indices where bytes[index] == 10 {
            if index - start == 1 && bytes[start] == UInt8(ascii: "B") { return index + 1 }
            start = index + 1
        }
        return nil
    }

    private static func parseHeader(_ bytes: [UInt8], magic: String) throws(StoreError) -> Header {
        var reader = IndexLineReader(bytes: bytes)
        func fail(_ reason: String) -> StoreError { .damagedIndex(reason: "header line \(reader.lineNumber): \(reason)") }
        guard reader.nextLine() == Array(magic.utf8)[...] else { throw fail("unknown header (expected \(magic))") }
        var header = Header()
        while let line = reader.nextLine() {
            var fields = FieldSplitter(line: line, separator: 9)
            guard let tag = fields.next(), tag.count == 1 else { throw fail("malformed line") }
            switch tag.first {
            case UInt8(ascii: "H"):
                guard let sequence = fields.nextInteger(), let hashText = fields.next(),
                    let hash = SHA256Digest(hexDigits: hashText), let stampText = fields.next(),
                    let stamp = HybridTimestamp(String(decoding: stampText, as: UTF8.self))
                else { throw fail("malformed head") }
                header.head = StoreHead(sequence: sequence, hash: hash, latestModification: stamp)
            case UInt8(ascii: "R"):
                guard let text = fields.next(), let replica = ReplicaID(String(decoding: text, as: UTF8.self)),
                    let counter = fields.nextInteger(), let digestText = fields.next()
                else { throw fail("malformed replica") }
                header.replicas.append(replica)
                header.knowledge[replica] = counter
                if digestText != Array("-".utf8)[...] {
                    guard let digest = SHA256Digest(hexDigits: digestText) else { throw fail("malformed replica digest") }
                    header.digests[replica] = digest
                }
            case UInt8(ascii: "L"):
                guard let text = fields.next(), let entity = try? EntityName(String(decoding: text, as: UTF8.self)),
                    let count = fields.nextInteger()
                else { throw fail("malformed live count") }
                header.liveCounts[entity] = Int(count)
            case UInt8(ascii: "C"):
                guard let text = fields.next(), let entity = try? EntityName(String(decoding: text, as: UTF8.self)),
                    let encoded = fields.next(), let id = RecordFileName.decode(bytes: encoded)
                else { throw fail("malformed conflict") }
                header.conflicted.insert(RecordKey(entity: entity, id: id))
            case UInt8(ascii: "A"):
                guard let sequence = fields.nextInteger(), let hashText = fields.next(),
                    let hash = SHA256Digest(hexDigits: hashText)
                else { throw fail("malformed base head") }
                header.baseHead = (sequence, hash)
            case UInt8(ascii: "T"):
                guard let count = fields.nextInteger() else { throw fail("malformed total") }
                header.totalRecords = Int(count)
            case UInt8(ascii: "N"):
                guard let count = fields.nextInteger() else { throw fail("malformed count") }
                header.recordCount = Int(count)
            case UInt8(ascii: "B"):
                return header
            default:
                throw fail("unknown tag")
            }
        }
        return header
    }

    // MARK: Lookup

    /// The sort key of a record line: `<entity>\t<encoded id>`.
    static func sortKey(_ key: RecordKey) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(key.entity.rawValue.utf8.count + key.id.rawValue.utf8.count + 9)
        bytes.append(contentsOf: key.entity.rawValue.utf8)
        bytes.append(9)
        RecordFileName.appendEncoded(key.id, to: &bytes)
        return bytes
    }

    /// The state of `key`, or `nil` when the snapshot has no such record.
    func lookup(_ key: RecordKey) -> RecordState? {
        var sortKey: [UInt8]?
        return lookup(key, sortKey: &sortKey)
    }

    /// The state of `key`; `sortKey` is its sort key, computed here when `nil` (so that one
    /// lookup in the delta and then the snapshot computes it once).
    /// - Parameter remembering: keep the answer for the next lookup of `key` (pass `false`
    ///   when the caller keeps it itself).
    func lookup(_ key: RecordKey, sortKey: inout [UInt8]?, remembering: Bool = true) -> RecordState? {
        if remembering, let cached = recent[key] { return cached }
        let target = sortKey ?? IndexFile.sortKey(key)
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
            let sortKey = IndexFile.sortKey(ofLine: line)
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
    /// snapshot without decoding).
    func forEachRawLine(_ body: (_ sortKey: ArraySlice<UInt8>, _ line: ArraySlice<UInt8>) -> Void) {
        loadIntoMemory()
        guard let memory else { return }
        for index in lineStarts.indices {
            let line = self.line(at: index, in: memory)
            body(IndexFile.sortKey(ofLine: line), line)
        }
    }

    // MARK: Status scans

    /// Records why the snapshot cannot be trusted (the first reason wins).
    func markDamaged(_ reason: String) {
        if damage == nil { damage = reason }
    }

    /// Decodes a record line handed out by ``forEachRawLine(_:)``.
    func decodeRecord(_ line: ArraySlice<UInt8>) -> (RecordKey, RecordState)? {
        decodeWithKey(line)
    }

    /// Whether a record line says the record is live and its file, as Ferry wrote it, matches
    /// `status` (see ``FileStamp/matches(_:)``). The fast path of a status scan: it reads four
    /// integers and a flag, and decodes nothing else.
    static func stampOfLine(_ line: ArraySlice<UInt8>, matches status: FileStatus) -> Bool {
        line.withUnsafeBufferPointer { bytes -> Bool in
            var position = 0
            // Skip K, entity, encoded id and last sequence.
            var tabs = 0
            while position < bytes.count && tabs < 4 {
                if bytes[position] == 9 { tabs += 1 }
                position += 1
            }
            // size,modified,inode,hash,taken: "-" (no file) fails the first number.
            func number(_ terminator: UInt8) -> Int64? {
                var value: Int64 = 0
                let start = position
                while position < bytes.count, bytes[position] != terminator {
                    let digit = bytes[position] &- 48
                    guard digit < 10 else { return nil }
                    let (product, overflow1) = value.multipliedReportingOverflow(by: 10)
                    let (sum, overflow2) = product.addingReportingOverflow(Int64(digit))
                    guard !overflow1 && !overflow2 else { return nil }
                    value = sum
                    position += 1
                }
                guard position > start, position < bytes.count else { return nil }
                position += 1
                return value
            }
            let comma = UInt8(ascii: ",")
            guard let size = number(comma), let modified = number(comma), let inode = number(comma) else { return false }
            while position < bytes.count && bytes[position] != comma { position += 1 }  // the hash
            position += 1
            guard let taken = number(9),
                FileStamp.matches(size: size, modified: modified, inode: UInt64(inode), taken: taken, status)
            else { return false }
            return IndexFile.winnerIsLive(versionsAt: position, in: bytes)
        }
    }

    /// `line` with its file stamp field replaced by `stamp` (the rest copied as it is), or
    /// `nil` when the line has no stamp field.
    static func line(_ line: ArraySlice<UInt8>, withStamp stamp: FileStamp) -> [UInt8]? {
        // K, entity, encoded id, last sequence, then the stamp.
        var stampStart = line.startIndex
        for _ in 0..<4 {
            guard let tab = ByteOrder.firstIndex(of: 9, in: line[stampStart...]) else { return nil }
            stampStart = tab + 1
        }
        guard let stampEnd = ByteOrder.firstIndex(of: 9, in: line[stampStart...]) else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(line.count + 64)
        result.append(contentsOf: line[..<stampStart])
        stamp.appendText(to: &result)
        result.append(contentsOf: line[stampEnd...])
        return result
    }

    /// Whether the versions field starting at `start` begins with a live winner (its first
    /// version, `origin,counter,physical,logical,deleted,...`, is not a delete).
    private static func winnerIsLive(versionsAt start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var position = start
        var commas = 0
        while position < bytes.count && commas < 4 {
            if bytes[position] == UInt8(ascii: ",") { commas += 1 }
            position += 1
        }
        return position + 1 < bytes.count && bytes[position] == UInt8(ascii: "0") && bytes[position + 1] == UInt8(ascii: ",")
    }

    /// Whether a record line's winner (its first version) is live, read without decoding.
    static func lineIsLive(_ line: ArraySlice<UInt8>) -> Bool {
        line.withUnsafeBufferPointer { bytes -> Bool in
            var position = 0
            var tabs = 0
            while position < bytes.count && tabs < 5 {
                if bytes[position] == 9 { tabs += 1 }
                position += 1
            }
            return IndexFile.winnerIsLive(versionsAt: position, in: bytes)
        }
    }

    /// Like ``forEachRawLine(_:)``, but reads the file in 1 MiB pieces when it is not in
    /// memory already, so merging a large snapshot does not hold all of it.
    func forEachRawLineStreaming(_ body: (_ sortKey: ArraySlice<UInt8>, _ line: ArraySlice<UInt8>) -> Void) {
        if memory != nil {
            forEachRawLine(body)
            return
        }
        var seen = 0
        guard let whole = forEachLineOnDisk({ _, line in
            body(IndexFile.sortKey(ofLine: line), line)
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

    /// The sort key of a record line: from after `K\t` up to the third tab.
    static func sortKey(ofLine line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var end = line.startIndex + 2
        var tabs = 0
        while end < line.endIndex {
            if line[end] == 9 {
                tabs += 1
                if tabs == 2 { break }
            }
            end += 1
        }
        return line[min(line.startIndex + 2, end)..<end]
    }

    /// The content hash of a record line's winner (its first version), read without decoding
    /// the rest; `nil` for a malformed line.
    static func winnerHash(ofLine line: ArraySlice<UInt8>) -> SHA256Digest? {
        var fields = FieldSplitter(line: line, separator: 9)
        for _ in 0..<5 { _ = fields.next() }
        guard let versions = fields.next() else { return nil }
        var parts = FieldSplitter(line: versions, separator: UInt8(ascii: ","))
        for _ in 0..<5 { _ = parts.next() }
        return parts.next().flatMap { SHA256Digest(hexDigits: $0) }
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
        guard let stamp = IndexFile.parseStamp(stampText) else { return fail("malformed file stamp") }
        guard let versions = IndexFile.parseVersions(versionsText, replicas: header.replicas) else {
            return fail("malformed versions")
        }
        return (RecordKey(entity: entity, id: id), RecordState(versions: versions, lastSequence: lastSequence, file: stamp ?? nil))
    }

    private func fail<T>(_ reason: String) -> T? {
        if damage == nil { damage = reason }
        return nil
    }

    /// `nil` for malformed; `.some(nil)` for "-".
    static func parseStamp(_ text: ArraySlice<UInt8>) -> FileStamp?? {
        if text.count == 1 && text.first == UInt8(ascii: "-") { return .some(nil) }
        var parts = FieldSplitter(line: text, separator: UInt8(ascii: ","))
        guard let size = parts.nextSignedInteger(), let modified = parts.nextSignedInteger(),
            let inode = parts.nextInteger(), let hashText = parts.next(), let hash = SHA256Digest(hexDigits: hashText),
            let taken = parts.nextSignedInteger()
        else { return nil }
        return .some(FileStamp(size: size, modificationNanoseconds: modified, inode: inode, contentHash: hash, takenAtNanoseconds: taken))
    }

    static func parseVersions(_ text: ArraySlice<UInt8>, replicas: [ReplicaID]) -> [RecordVersion]? {
        var result: [RecordVersion] = []
        var items = FieldSplitter(line: text, separator: UInt8(ascii: ";"))
        while let item = items.next() {
            var parts = FieldSplitter(line: item, separator: UInt8(ascii: ","))
            guard let origin = parts.nextInteger(), Int(origin) < replicas.count,
                let counter = parts.nextInteger(), let physical = parts.nextInteger(),
                let logical = parts.nextInteger(), logical <= UInt64(UInt32.max), let deleted = parts.nextInteger(),
                let hashText = parts.next(), let hash = SHA256Digest(hexDigits: hashText),
                let sequence = parts.nextInteger(), let vectorText = parts.next()
            else { return nil }
            var counters: [ReplicaID: UInt64] = [:]
            var pairs = FieldSplitter(line: vectorText, separator: UInt8(ascii: "+"))
            while let pair = pairs.next() {
                var halves = FieldSplitter(line: pair, separator: UInt8(ascii: ":"))
                guard let replica = halves.nextInteger(), Int(replica) < replicas.count, let value = halves.nextInteger() else {
                    return nil
                }
                counters[replicas[Int(replica)]] = value
            }
            result.append(
                RecordVersion(
                    identity: ChangeIdentity(origin: replicas[Int(origin)], counter: counter),
                    timestamp: HybridTimestamp(physical: physical, logical: UInt32(logical)), version: VersionVector(counters),
                    isDelete: deleted == 1, contentHash: hash, sequence: sequence))
        }
        return result.isEmpty ? nil : result
    }
}
