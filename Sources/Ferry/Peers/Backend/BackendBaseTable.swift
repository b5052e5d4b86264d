/// The bases of one collection's records (see ``BackendState``), in `bases/<collection>/`:
///
/// - `table`: a header line `ferry-bases<tab>1<tab><count>`, then one line per record sorted by
///   backend id (bytes): `<backend id>	<revision>	<0|1 deleted>	<Ferry id>	<vector>	<updated>	<content>`,
///   the vector as `replica:counter` pairs joined by `,`, `updated` as the backend wrote it and
///   `content` the hex SHA-256 of the record's content (``BackendRecord/contentDigest``); lines
///   written before Ferry kept those two end after the vector. The third field is `2` for a
///   live record whose values Ferry checked when it wrote them (``BackendState/Base/valuesChecked``),
///   which earlier versions of Ferry read as live (they check more, nothing else);
/// - `log`: the changes since the table was written, one line each, `+<tab>` and a table line
///   for a new base, `-<tab><backend id>` for a forgotten one.
///
/// Fields are percent-escaped (`%`, tab, newline, carriage return). Looking a base up reads the
/// log's entries (kept in memory) and binary-searches the table with `pread` (about 32 KiB read
/// a lookup), so a sync that touches a hundred records reads about a hundred windows whatever
/// the collection's size; once its lookups would have read about as much as the table, the
/// table (up to 64 MiB) is read whole and searched in memory. Writes
/// go to the log, one append per ``save(durable:)``. Every sync reads the whole log, so it is
/// kept short: a durable save (the end of a pull or a push) merges it into a new table (written
/// whole, synced, renamed over the old one) once it holds 4,096 entries, and so does any save
/// once it holds 65,536 (the entries are held in memory); the log then starts again. A table
/// of N records is so rewritten at most once per 4,096 changes, and a sync never reads more
/// than 4,096 log entries of earlier syncs. A crash between the rename and the log's
/// truncation replays entries the table already has, which changes nothing.
///
/// One file per collection where there was one per record: a pull of 10,000 records created
/// 10,000 small files before, and creating inodes was most of its time.
final class BackendBaseTable {
    typealias Base = BackendState.Base

    static let magic = "ferry-bases\t1"

    let folder: String
    private var table: FileDescriptor?
    private var tableBodyStart: Int64 = 0
    private var tableEnd: Int64 = 0
    /// Records in the table (before the log's entries).
    private(set) var tableCount = 0
    /// The table's body and where its lines start, once many lookups were made.
    private var memory: (bytes: [UInt8], lineStarts: [Int])?
    private var lookups = 0
    /// The replica ids decoded lines named.
    private var replicaSpellings = ReplicaSpellings()
    /// What the log says of a record: a table line read from it (decoded when first asked
    /// for: a sync asks for about as many bases as records it touches, and the log may hold
    /// 4,095 lines), a base set since, or a base forgotten.
    private enum LogEntry {
        case line(ArraySlice<UInt8>)
        case base(Base)
        case forgotten
    }
    /// The log's entries and those not yet appended to it, by backend id.
    private var changes: [String: LogEntry] = [:]
    /// Lines in the log, read and appended: what decides a merge (a small collection edited
    /// often has few distinct records and a long log).
    private var logLines = 0
    private var pending: [UInt8] = []
    private var logSize: Int64 = 0
    private let minimumMerge: Int
    private let lookupCost: Int64

    private var tablePath: String { folder + "/table" }
    private var logPath: String { folder + "/log" }

    /// Opens the bases in `folder` (none yet when it does not exist). Per-record base files an
    /// earlier Ferry wrote (`<backend id>.json`) are folded into the table.
    /// - Parameter minimumMerge: The log's size, in entries, from which a durable save merges it
    ///   (16 times as many for any save).
    /// - Parameter lookupCost: The bytes a lookup on disk is reckoned to read: the table is read
    ///   whole once the lookups would have read its size (and after 512 of them in any case).
    init(folder: String, minimumMerge: Int = 4096, lookupCost: Int64 = 32_768) throws(BackendError) {
        self.folder = folder
        self.minimumMerge = minimumMerge
        self.lookupCost = max(1, lookupCost)
        guard FileSystem.isDirectory(folder) else { return }
        try openTable()
        try readLog()
        try adoptRecordFiles()
    }

    deinit { table?.close() }

    // MARK: Reading

    /// The base of the record with `backendID`; `nil` when Ferry has not seen it on the backend.
    func base(for backendID: String) throws(BackendError) -> Base? {
        if let entry = changes[backendID] {
            switch entry {
            case .base(let base): return base
            case .forgotten: return nil
            case .line(let line):
                // Unreadable (altered): no base, which re-pulls the record at worst.
                let base = Self.decode(line, replicas: &replicaSpellings).flatMap { $0.0 == backendID ? $0.1 : nil }
                changes[backendID] = base.map { .base($0) } ?? .forgotten
                return base
            }
        }
        guard table != nil else { return nil }
        lookups += 1
        let key = Self.escaped(backendID)
        // Read whole once the lookups would have read about as much from it (each reads about
        // 32 KiB on its way down): a sync that touches a tenth of a small table reads it once.
        let tableSize = tableEnd - tableBodyStart
        if memory == nil, lookups > min(512, Int(tableSize / lookupCost)), tableSize <= 64 << 20 {
            let bytes = try readTable(from: tableBodyStart, count: Int(tableEnd - tableBodyStart))
            var starts = [0]
            var index = 0
            while let newline = ByteOrder.firstIndex(of: 10, in: bytes[index...]), newline + 1 < bytes.count {
                starts.append(newline + 1)
                index = newline + 1
            }
            memory = (bytes, bytes.isEmpty ? [] : starts)
        }
        let line: ArraySlice<UInt8>?
        if let memory {
            line = Self.search(key, in: memory.bytes, lineStarts: memory.lineStarts)
        } else {
            line = try searchOnDisk(key)
        }
        guard let line else { return nil }
        guard let (id, base) = Self.decode(line, replicas: &replicaSpellings), id == backendID else {
            throw damaged("a line of \(tablePath) is not one Ferry writes")
        }
        return base
    }

    /// Calls `body` with the backend id of every record that has a base.
    func forEachBackendID(_ body: (String) throws(BackendError) -> Void) throws(BackendError) {
        try forEachTableLine { line throws(BackendError) in
            guard let (id, _) = Self.decode(line) else { throw damaged("a line of \(tablePath) is not one Ferry writes") }
            if changes[id] == nil { try body(id) }
        }
        for (id, entry) in changes {
            if case .forgotten = entry { continue }
            try body(id)
        }
    }

    // MARK: Writing

    /// Remembers a record's base (written by the next ``save(durable:)``).
    func set(_ base: Base, for backendID: String) {
        changes[backendID] = .base(base)
        logLines += 1
        pending += [43, 9]  // "+\t"
        Self.encode(backendID, base, into: &pending)
    }

    /// Forgets a record's base (it is gone from the backend).
    func remove(_ backendID: String) {
        changes[backendID] = .forgotten
        logLines += 1
        pending += [45, 9]  // "-\t"
        pending += Self.escaped(backendID)
        pending.append(10)
    }

    /// Appends what changed to the log (and syncs it when `durable`), or merges everything into
    /// a new table when the log has grown long (see the type's description).
    func save(durable: Bool) throws(BackendError) {
        if logLines >= (durable ? minimumMerge : 16 * minimumMerge) {
            try merge()
            return
        }
        guard !pending.isEmpty else { return }
        do {
            let created = !FileSystem.exists(folder)
            if created { _ = try FileSystem.createDirectories(folder) }
            let log = try FileDescriptor.open(logPath, .writeOnly, options: [.create, .append], permissions: 0o644)
            try log.closeAfter { () throws(SystemError) in
                try log.writeAll(pending)
                if durable { try log.synchronize() }
            }
            if durable && (created || logSize == 0) { try FileSystem.synchronizeDirectory(folder) }
        } catch {
            throw BackendError(.local, "\(logPath): \(error)")
        }
        logSize += Int64(pending.count)
        pending = []
    }

    /// Writes the table and the log's entries as a new table, then empties the log.
    private func merge() throws(BackendError) {
        let temporary = folder + "/table.new"
        func failed(_ error: SystemError, _ path: String) -> BackendError { BackendError(.local, "\(path): \(error)") }
        let output: FileDescriptor
        do {
            _ = try FileSystem.createDirectories(folder)
            output = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate], permissions: 0o644)
        } catch {
            throw failed(error, temporary)
        }
        var body: [UInt8] = []
        body.reserveCapacity(1 << 20)
        func write(_ force: Bool) throws(BackendError) {
            guard force || body.count >= 1 << 20 else { return }
            do { try output.writeAll(body) } catch { throw failed(error, temporary) }
            body.removeAll(keepingCapacity: true)
        }
        let sorted = changes.map { (key: Self.escaped($0.key), id: $0.key, entry: $0.value) }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }
        var next = 0
        var count = 0
        func writeChanges(before key: ArraySlice<UInt8>?) throws(BackendError) {
            while next < sorted.count, key.map({ sorted[next].key.lexicographicallyPrecedes($0) }) ?? true {
                switch sorted[next].entry {
                case .base(let base):
                    Self.encode(sorted[next].id, base, into: &body)
                    count += 1
                case .line(let line):
                    // A log line after "+<tab>" is a table line; an unreadable one is left out.
                    if Self.decode(line) != nil {
                        body += line
                        body.append(10)
                        count += 1
                    }
                case .forgotten:
                    break
                }
                next += 1
                try write(false)
            }
        }
        do throws(BackendError) {
            // The header's count is a fixed-width field, written again at the end.
            body += Array((Self.magic + "\t").utf8) + Array(repeating: 48, count: 12) + [10]
            try forEachTableLine { line throws(BackendError) in
                let key = Self.sortKey(of: line)
                try writeChanges(before: key)
                if next < sorted.count, sorted[next].key.elementsEqual(key) { return }  // replaced or removed
                body += line
                body.append(10)
                count += 1
                try write(false)
            }
            try writeChanges(before: nil)
            try write(true)
            let digits = Array(String(count).utf8)
            do {
                _ = try output.seek(to: 0)
                try output.writeAll(Array((Self.magic + "\t").utf8) + Array(repeating: 48, count: 12 - digits.count) + digits)
                try output.synchronize()
            } catch {
                throw failed(error, temporary)
            }
        } catch {
            output.close()
            try? FileSystem.removeFile(temporary)
            throw error
        }
        output.close()
        do {
            try FileSystem.rename(temporary, to: tablePath)
            try FileSystem.synchronizeDirectory(folder)
        } catch {
            throw failed(error, tablePath)
        }
        // The log's entries are in the table now; replaying them after a crash here changes nothing.
        if FileSystem.exists(logPath) {
            do {
                let log = try FileDescriptor.open(logPath, .writeOnly)
                try log.closeAfter { () throws(SystemError) in try log.truncate(to: 0) }
            } catch {
                throw failed(error, logPath)
            }
        }
        changes = [:]
        pending = []
        logSize = 0
        logLines = 0
        memory = nil
        lookups = 0
        table?.close()
        table = nil
        try openTable()
    }

    // MARK: Opening

    private func openTable() throws(BackendError) {
        guard FileSystem.exists(tablePath) else { return }
        do {
            let file = try FileDescriptor.open(tablePath, .readOnly)
            let size = try file.status().size
            let head = try file.read(at: 0, count: Int(min(size, 64)))
            guard let newline = head.firstIndex(of: 10),
                  let text = String(validatingUTF8Bytes: Array(head[..<newline])), text.hasPrefix(Self.magic + "\t"),
                  let count = Int(text.dropFirst(Self.magic.count + 1))
            else {
                file.close()
                throw damaged("\(tablePath) does not start with a Ferry bases header")
            }
            table = file
            tableCount = count
            tableBodyStart = Int64(newline + 1)
            tableEnd = size
        } catch let error as BackendError {
            throw error
        } catch {
            throw BackendError(.local, "\(tablePath): \(error)")
        }
    }

    private func readLog() throws(BackendError) {
        guard FileSystem.exists(logPath) else { return }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(logPath, limit: 1 << 30) } catch { throw BackendError(.local, "\(logPath): \(error)") }
        var start = 0
        var complete = 0
        for index in bytes.indices where bytes[index] == 10 {
            let line = bytes[start..<index]
            start = index + 1
            // A line cut short by a crash (or otherwise unreadable) is left out: the record's
            // base is then missing, which re-pulls it at worst.
            guard line.count > 2, line[line.startIndex + 1] == 9 else { continue }
            complete = start
            logLines += 1
            let body = line.dropFirst(2)
            if line.first == 43, let tab = body.firstIndex(of: 9), let id = Self.unescaped(body[..<tab]) {
                changes[id] = .line(body)
            } else if line.first == 45, let id = Self.unescaped(body) {
                changes[id] = .forgotten
            }
        }
        logSize = Int64(bytes.count)
        if complete < bytes.count {
            // A torn last line: cut it off so the next append starts a line of its own.
            do {
                let log = try FileDescriptor.open(logPath, .writeOnly)
                try log.closeAfter { () throws(SystemError) in try log.truncate(to: Int64(complete)) }
            } catch {
                throw BackendError(.local, "\(logPath): \(error)")
            }
            logSize = Int64(complete)
        }
    }

    /// Folds the one-file-per-record bases of Ferry before 0.21 into the table.
    private func adoptRecordFiles() throws(BackendError) {
        let entries = ((try? FileSystem.contents(ofDirectory: folder)) ?? []).filter { $0.name.hasSuffix(".json") }
        guard !entries.isEmpty else { return }
        for entry in entries {
            guard let bytes = try? FileSystem.readFile(folder + "/" + entry.name, limit: 1 << 20),
                  let object = (try? JSONParser.parse(bytes))?.objectValue, let revision = object["rev"]?.stringValue,
                  let version = object["vv"].flatMap(VersionVector.init(json:)), let ferryID = object["id"]?.stringValue
            else { continue }
            set(Base(ferryID: ferryID, revision: revision, version: version, isDeleted: object["deleted"]?.boolValue ?? false),
                for: String(entry.name.dropLast(5)))
        }
        try merge()
        for entry in entries { try? FileSystem.removeFile(folder + "/" + entry.name) }
    }

    // MARK: Table search

    private func readTable(from offset: Int64, count: Int) throws(BackendError) -> [UInt8] {
        guard let table else { return [] }
        do { return try table.read(at: offset, count: count) } catch { throw BackendError(.local, "\(tablePath): \(error)") }
    }

    /// Binary search over byte offsets with `pread`, down to a window read whole.
    private func searchOnDisk(_ key: [UInt8]) throws(BackendError) -> ArraySlice<UInt8>? {
        var low = tableBodyStart
        var high = tableEnd
        while high - low > 16_384 {
            let middle = (low + high) / 2
            // No whole line starts in the upper half: the window below is read whole.
            guard let (start, line) = try line(atOrAfter: middle, before: high) else { break }
            let order = Self.compare(Self.sortKey(of: line[...]), key)
            if order == 0 { return line[...] }
            if order < 0 { low = start + Int64(line.count) + 1 } else { high = start }
        }
        guard high > low else { return nil }
        return Self.search(key, in: try readTable(from: low, count: Int(high - low))[...])
    }

    /// The first whole line that starts after `offset` (after its next newline) and before `limit`.
    private func line(atOrAfter offset: Int64, before limit: Int64) throws(BackendError) -> (Int64, [UInt8])? {
        var window = 4096
        while true {
            let count = Int(min(Int64(window), tableEnd - offset))
            guard count > 0 else { return nil }
            let bytes = try readTable(from: offset, count: count)
            guard let newline = bytes.firstIndex(of: 10) else {
                if count < window { return nil }
                window *= 4
                continue
            }
            let start = newline + 1
            if offset + Int64(start) >= limit { return nil }
            guard let end = bytes[start...].firstIndex(of: 10) else {
                if offset + Int64(count) >= tableEnd { return nil }
                window *= 4
                continue
            }
            return (offset + Int64(start), Array(bytes[start..<end]))
        }
    }

    /// Binary search over the lines of the table read whole.
    private static func search(_ key: [UInt8], in bytes: [UInt8], lineStarts: [Int]) -> ArraySlice<UInt8>? {
        var low = 0
        var high = lineStarts.count
        while low < high {
            let middle = (low + high) / 2
            let start = lineStarts[middle]
            let end = middle + 1 < lineStarts.count ? lineStarts[middle + 1] - 1 : (bytes.last == 10 ? bytes.count - 1 : bytes.count)
            let line = bytes[start..<end]
            let order = compare(sortKey(of: line), key)
            if order == 0 { return line }
            if order < 0 { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// The line with `key` among the lines of `bytes` (which start at a line's start).
    private static func search(_ key: [UInt8], in bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var start = bytes.startIndex
        while start < bytes.endIndex, let newline = ByteOrder.firstIndex(of: 10, in: bytes[start...]) {
            let line = bytes[start..<newline]
            if compare(sortKey(of: line), key) == 0 { return line }
            start = newline + 1
        }
        return nil
    }

    private func forEachTableLine(_ body: (ArraySlice<UInt8>) throws(BackendError) -> Void) throws(BackendError) {
        guard table != nil else { return }
        var offset = tableBodyStart
        var carry: [UInt8] = []
        while offset < tableEnd {
            let chunk = try readTable(from: offset, count: Int(min(1 << 20, tableEnd - offset)))
            guard !chunk.isEmpty else { break }
            offset += Int64(chunk.count)
            var bytes = carry
            bytes += chunk
            var start = 0
            for index in bytes.indices where bytes[index] == 10 {
                try body(bytes[start..<index])
                start = index + 1
            }
            carry = Array(bytes[start...])
        }
        if !carry.isEmpty { throw damaged("\(tablePath) ends in the middle of a line") }
    }

    // MARK: Lines

    static func sortKey(of line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        line[..<(ByteOrder.firstIndex(of: 9, in: line) ?? line.endIndex)]
    }

    /// The order of `lhs` and `rhs` as unsigned bytes: -1, 0 or 1.
    static func compare(_ lhs: ArraySlice<UInt8>, _ rhs: [UInt8]) -> Int {
        ByteOrder.compare(lhs, rhs).signum()
    }

    static func encode(_ backendID: String, _ base: Base, into output: inout [UInt8]) {
        output += escaped(backendID)
        output.append(9)
        output += escaped(base.revision)
        output.append(9)
        output.append(base.isDeleted ? 49 : base.valuesChecked ? 50 : 48)
        output.append(9)
        output += escaped(base.ferryID)
        output.append(9)
        var first = true
        for (replica, counter) in base.version.sortedCounters {
            if !first { output.append(44) }
            first = false
            output += replica.rawValue.utf8
            output.append(58)
            output += String(counter).utf8
        }
        if base.updated != nil || base.content != nil {
            output.append(9)
            output += escaped(base.updated ?? "")
            output.append(9)
            output += (base.content?.hex ?? "").utf8
        }
        output.append(10)
    }

    static func decode(_ line: ArraySlice<UInt8>) -> (String, Base)? {
        var replicas = ReplicaSpellings()
        return decode(line, replicas: &replicas)
    }

    /// A line's backend id and base, `nil` when it is not a line Ferry writes.
    /// - Parameter replicas: the replica ids met in earlier lines (a table names a few, again
    ///   and again).
    static func decode(_ line: ArraySlice<UInt8>, replicas: inout ReplicaSpellings) -> (String, Base)? {
        // `Collection.split` calls a closure per byte, and a sync decodes a line per record it lists.
        var splitter = FieldSplitter(line: line, separator: 9)
        var fields: [ArraySlice<UInt8>] = []
        fields.reserveCapacity(7)
        while fields.count < 8, let field = splitter.next() { fields.append(field) }
        guard fields.count == 5 || fields.count == 7, let id = unescaped(fields[0]), let revision = unescaped(fields[1]),
              fields[2].count == 1, let ferryID = unescaped(fields[3])
        else { return nil }
        var updated: String?
        var content: SHA256Digest?
        if fields.count == 7 {
            guard let text = unescaped(fields[5]) else { return nil }
            updated = text.isEmpty ? nil : text
            if !fields[6].isEmpty {
                guard let digest = SHA256Digest(hexDigits: fields[6]) else { return nil }
                content = digest
            }
        }
        var counters: [ReplicaID: UInt64] = [:]
        var pairs = FieldSplitter(line: fields[4], separator: 44)
        while let pair = pairs.next() {
            if pair.isEmpty { continue }
            var parts = FieldSplitter(line: pair, separator: 58)
            guard let spelled = parts.next(), let replica = replicas.replica(spelled: spelled), let counter = parts.nextInteger(), parts.rest == nil
            else { return nil }
            counters[replica] = counter
        }
        let deleted = fields[2].first == 49
        return (id, Base(ferryID: ferryID, revision: revision, version: VersionVector(counters), isDeleted: deleted, updated: updated, content: content,
                         valuesChecked: fields[2].first == 50 && content != nil))
    }

    /// The replica ids a table's lines name, by their spelling: a table of a hundred thousand
    /// bases names a few replicas, and parsing each id again was most of a line's decoding.
    struct ReplicaSpellings {
        private var known: [(spelling: [UInt8], replica: ReplicaID)] = []

        /// The replica `bytes` spell, `nil` when they spell none.
        mutating func replica(spelled bytes: ArraySlice<UInt8>) -> ReplicaID? {
            for entry in known where entry.spelling.elementsEqual(bytes) { return entry.replica }
            guard let text = String(validatingUTF8Bytes: Array(bytes)), let replica = ReplicaID(text) else { return nil }
            if known.count < 32 { known.append((Array(bytes), replica)) }
            return replica
        }
    }

    static func escaped(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case 9, 10, 13, 37:
                output += [37, hexDigit(byte >> 4), hexDigit(byte & 15)]
            default:
                output.append(byte)
            }
        }
        return output
    }

    static func unescaped(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.contains(37) else { return String(validatingUTF8Bytes: Array(bytes)) }
        var output: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 37 {
                guard index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(validatingUTF8Bytes: Array(output))
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? 48 + value : 55 + value }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: return byte - 48
        case 65...70: return byte - 55
        case 97...102: return byte - 87
        default: return nil
        }
    }

    private func damaged(_ what: String) -> BackendError {
        BackendError(.local, "\(what); move \(folder) away to start this collection's sync over (its records are pulled again)")
    }
}
