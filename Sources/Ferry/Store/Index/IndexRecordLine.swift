/// A record line of an index file, `K<tab><entity><tab><encoded id><tab><last seq><tab><file
/// stamp or -><tab><versions>` (format in ``IndexFile``): its one encoder and its decoders,
/// whole or one field at a time without decoding the rest.
///
/// Every reader and writer of record lines goes through this type: the store's
/// (``IndexFile``, ``StoreIndex``), the status scan's fast paths, and `ferry verify`'s
/// comparison of the index with the journal (``Fields``, ``appendVersions(_:to:number:)``).
enum IndexRecordLine {
    /// One record line, newline included. Many thousands are written at a time, so the
    /// numbers go straight into bytes (no String interpolation).
    /// - Parameter number: The number of a replica in the file's `R` lines.
    static func encode(_ key: RecordKey, _ state: RecordState, number: (ReplicaID) -> Int) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(UInt8(ascii: "K"))
        line.append(9)
        appendPrefix(key, lastSequence: state.lastSequence, to: &line)
        line.append(9)
        if let file = state.file {
            appendStamp(file, to: &line)
        } else {
            line.append(UInt8(ascii: "-"))
        }
        line.append(9)
        _ = appendVersions(state.versions, to: &line, number: { number($0) })
        line.append(10)
        return line
    }

    /// Appends `<entity><tab><encoded id><tab><last seq>`: the part of a record line after
    /// `K<tab>` and before the file stamp.
    static func appendPrefix(_ key: RecordKey, lastSequence: UInt64, to line: inout [UInt8]) {
        line.append(contentsOf: key.entity.rawValue.utf8)
        line.append(9)
        RecordFileName.appendEncoded(key.id, to: &line)
        line.append(9)
        line.appendDecimal(lastSequence)
    }

    /// Appends the versions field for `versions`: separated by `;`, each
    /// `replica#,counter,hlc-ms,hlc-logical,deleted(0/1),content-sha256,seq,vector`, the vector
    /// being `replica#:counter` pairs joined by `+`.
    /// - Parameter number: The number of a replica in the file's `R` lines; `nil` when it has none.
    /// - Returns: `false` (with `line` partly written) when a replica has no number.
    static func appendVersions(_ versions: [RecordVersion], to line: inout [UInt8], number: (ReplicaID) -> Int?) -> Bool {
        // Most versions name one replica or a few: look a repeat up once.
        var lastReplica: (replica: ReplicaID, number: Int)?
        func append(_ replica: ReplicaID) -> Bool {
            if let last = lastReplica, last.replica == replica {
                line.appendDecimal(UInt64(last.number))
                return true
            }
            guard let found = number(replica) else { return false }
            lastReplica = (replica, found)
            line.appendDecimal(UInt64(found))
            return true
        }
        for (offset, version) in versions.enumerated() {
            if offset > 0 { line.append(UInt8(ascii: ";")) }
            guard append(version.identity.origin) else { return false }
            line.append(UInt8(ascii: ","))
            line.appendDecimal(version.identity.counter)
            line.append(UInt8(ascii: ","))
            line.appendDecimal(version.timestamp.physical)
            line.append(UInt8(ascii: ","))
            line.appendDecimal(UInt64(version.timestamp.logical))
            line.append(UInt8(ascii: ","))
            line.append(version.isDelete ? UInt8(ascii: "1") : UInt8(ascii: "0"))
            line.append(UInt8(ascii: ","))
            version.contentHash.appendHexDigits(to: &line)
            line.append(UInt8(ascii: ","))
            line.appendDecimal(version.sequence)
            line.append(UInt8(ascii: ","))
            let counters = version.version.counters
            // Most vectors have one replica: no need to sort them.
            let sorted = counters.count == 1 ? counters.map { ($0.key, $0.value) } : version.version.sortedCounters
            for (pair, (replica, counter)) in sorted.enumerated() {
                if pair > 0 { line.append(UInt8(ascii: "+")) }
                guard append(replica) else { return false }
                line.append(UInt8(ascii: ":"))
                line.appendDecimal(counter)
            }
        }
        return true
    }

    /// Appends a file stamp as a record line holds it: `size,mtime-ns,inode,sha256-hex,taken-at-ns`
    /// (read back by ``parseStamp(_:)``).
    static func appendStamp(_ stamp: FileStamp, to output: inout [UInt8]) {
        output.appendDecimal(stamp.size)
        output.append(UInt8(ascii: ","))
        output.appendDecimal(stamp.modificationNanoseconds)
        output.append(UInt8(ascii: ","))
        output.appendDecimal(stamp.inode)
        output.append(UInt8(ascii: ","))
        stamp.contentHash.appendHexDigits(to: &output)
        output.append(UInt8(ascii: ","))
        output.appendDecimal(stamp.takenAtNanoseconds)
    }

    /// Where the fields of a record line are, found without decoding any of them.
    struct Fields: Sendable {
        /// The offsets of the five tabs.
        let tabs: (Int, Int, Int, Int, Int)
        let end: Int

        /// The fields of the line at `line` of `bytes`; `nil` when it does not start with
        /// `K<tab>` or does not have six fields.
        init?(_ line: Range<Int>, in bytes: [UInt8]) {
            guard line.count > 2, bytes[line.lowerBound] == UInt8(ascii: "K"), bytes[line.lowerBound + 1] == 9 else { return nil }
            var found = (line.lowerBound + 1, 0, 0, 0, 0)
            var count = 1
            for offset in (line.lowerBound + 2)..<line.upperBound where bytes[offset] == 9 {
                switch count {
                case 1: found.1 = offset
                case 2: found.2 = offset
                case 3: found.3 = offset
                case 4: found.4 = offset
                default: return nil
                }
                count += 1
            }
            guard count == 5 else { return nil }
            tabs = found
            end = line.upperBound
        }

        var entity: Range<Int> { (tabs.0 + 1)..<tabs.1 }
        var encodedID: Range<Int> { (tabs.1 + 1)..<tabs.2 }
        /// `<entity><tab><encoded id><tab><last seq>` (see ``appendPrefix(_:lastSequence:to:)``).
        var prefix: Range<Int> { (tabs.0 + 1)..<tabs.3 }
        var stamp: Range<Int> { (tabs.3 + 1)..<tabs.4 }
        var versions: Range<Int> { (tabs.4 + 1)..<end }

        /// `<entity><tab><encoded id>`, the order of the file's lines.
        func sortKey(_ bytes: [UInt8]) -> ArraySlice<UInt8> { bytes[(tabs.0 + 1)..<tabs.2] }

        /// The record the line names, when its entity and encoded id are valid.
        func key(_ bytes: [UInt8]) -> RecordKey? {
            guard let entity = try? EntityName(String(decoding: bytes[entity], as: UTF8.self)),
                let id = RecordFileName.decode(bytes: bytes[encodedID])
            else { return nil }
            return RecordKey(entity: entity, id: id)
        }
    }

    /// The sort key of a record line: `<entity>\t<encoded id>`.
    static func sortKey(_ key: RecordKey) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(key.entity.rawValue.utf8.count + key.id.rawValue.utf8.count + 9)
        bytes.append(contentsOf: key.entity.rawValue.utf8)
        bytes.append(9)
        RecordFileName.appendEncoded(key.id, to: &bytes)
        return bytes
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
            return IndexRecordLine.winnerIsLive(versionsAt: position, in: bytes)
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
        appendStamp(stamp, to: &result)
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
            return IndexRecordLine.winnerIsLive(versionsAt: position, in: bytes)
        }
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
