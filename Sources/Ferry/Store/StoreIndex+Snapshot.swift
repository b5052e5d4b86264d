/// The on-disk snapshot of the index, `.ferry/index`: a compact tab-separated text file,
/// written atomically. It is a cache: when it is missing, damaged or from another journal,
/// the index is rebuilt from the journal.
///
/// ```
/// ferry-index	1
/// H	<head seq>	<head hash>	<latest hlc>
/// R	<replica uuid>	<latest counter>            (one per replica; numbered from 0)
/// K	<entity>	<encoded id>	<last seq>	<file stamp or ->	<versions>
/// E	<record count>
/// ```
/// A file stamp is `size,mtime-ns,inode,sha256-hex,taken-at-ns`. Versions are separated by
/// `;`, each `replica#,counter,hlc-ms,hlc-logical,deleted(0/1),content-sha256,seq,vector`,
/// the vector being `replica#:counter` pairs joined by `+`.
extension StoreIndex {
    static let snapshotHeader = "ferry-index\t1"

    /// The snapshot's bytes.
    func snapshotBytes() -> [UInt8] {
        var replicas: [ReplicaID: Int] = [:]
        var replicaList: [ReplicaID] = []
        func number(_ replica: ReplicaID) -> Int {
            if let index = replicas[replica] { return index }
            replicas[replica] = replicaList.count
            replicaList.append(replica)
            return replicaList.count - 1
        }
        for (replica, _) in knowledge.sortedCounters { _ = number(replica) }
        var body: [UInt8] = []
        body.reserveCapacity(records.count * 260)
        for (key, state) in records {
            body.append(contentsOf: "K\t".utf8)
            body.append(contentsOf: key.entity.rawValue.utf8)
            body.append(9)
            body.append(contentsOf: RecordFileName.encode(key.id).utf8)
            body.append(9)
            body.append(contentsOf: String(state.lastSequence).utf8)
            body.append(9)
            if let file = state.file {
                body.append(contentsOf: "\(file.size),\(file.modificationNanoseconds),\(file.inode),".utf8)
                body.append(contentsOf: file.contentHash.hex.utf8)
                body.append(contentsOf: ",\(file.takenAtNanoseconds)".utf8)
            } else {
                body.append(UInt8(ascii: "-"))
            }
            body.append(9)
            for (offset, version) in state.versions.enumerated() {
                if offset > 0 { body.append(UInt8(ascii: ";")) }
                body.append(contentsOf: "\(number(version.identity.origin)),\(version.identity.counter),".utf8)
                body.append(contentsOf: "\(version.timestamp.physical),\(version.timestamp.logical),".utf8)
                body.append(contentsOf: (version.isDelete ? "1," : "0,").utf8)
                body.append(contentsOf: version.contentHash.hex.utf8)
                body.append(contentsOf: ",\(version.sequence),".utf8)
                for (pair, (replica, counter)) in version.version.sortedCounters.enumerated() {
                    if pair > 0 { body.append(UInt8(ascii: "+")) }
                    body.append(contentsOf: "\(number(replica)):\(counter)".utf8)
                }
            }
            body.append(10)
        }
        var output: [UInt8] = []
        output.reserveCapacity(body.count + 4096)
        output.append(contentsOf: "\(StoreIndex.snapshotHeader)\n".utf8)
        output.append(contentsOf: "H\t\(headSequence)\t\(headHash.hex)\t\(latestModification)\n".utf8)
        for replica in replicaList {
            output.append(contentsOf: "R\t\(replica.rawValue)\t\(knowledge[replica])\n".utf8)
        }
        output.append(contentsOf: body)
        output.append(contentsOf: "E\t\(records.count)\n".utf8)
        return output
    }

    /// The head a snapshot covers, read from its first lines only (cheap, for a clean open).
    static func snapshotHead(atPath path: String) -> StoreHead? {
        guard let file = try? FileDescriptor.open(path, .readOnly) else { return nil }
        defer { file.close() }
        guard let bytes = try? file.read(at: 0, count: 512) else { return nil }
        var reader = SnapshotReader(bytes: bytes)
        guard reader.nextLine() == Array(snapshotHeader.utf8)[...], let line = reader.nextLine() else { return nil }
        var fields = FieldSplitter(line: line, separator: 9)
        guard fields.next()?.first == UInt8(ascii: "H"), let sequence = fields.nextInteger(), let hashText = fields.next(),
            let hash = SHA256Digest(hex: String(decoding: hashText, as: UTF8.self)), let stampText = fields.next(),
            let stamp = HybridTimestamp(String(decoding: stampText, as: UTF8.self))
        else { return nil }
        return StoreHead(sequence: sequence, hash: hash, latestModification: stamp)
    }

    /// Reads a snapshot.
    /// - Throws: ``StoreError/damagedIndex(reason:)`` naming the first problem.
    static func fromSnapshot(_ bytes: [UInt8]) throws(StoreError) -> StoreIndex {
        var reader = SnapshotReader(bytes: bytes)
        func fail(_ reason: String) -> StoreError { .damagedIndex(reason: "line \(reader.lineNumber): \(reason)") }
        guard reader.nextLine() == Array(snapshotHeader.utf8)[...] else { throw fail("unknown header") }
        var index = StoreIndex()
        var replicas: [ReplicaID] = []
        var entities: [ArraySlice<UInt8>: EntityName] = [:]
        var expectedCount: Int?
        while let line = reader.nextLine() {
            var fields = FieldSplitter(line: line, separator: 9)
            guard let tag = fields.next() else { throw fail("empty line") }
            switch tag.first {
            case UInt8(ascii: "H"):
                guard let sequence = fields.nextInteger(), let hashText = fields.next(),
                    let hash = SHA256Digest(hex: String(decoding: hashText, as: UTF8.self)),
                    let stampText = fields.next(), let stamp = HybridTimestamp(String(decoding: stampText, as: UTF8.self))
                else { throw fail("malformed head") }
                index.headSequence = sequence
                index.headHash = hash
                index.latestModification = stamp
            case UInt8(ascii: "R"):
                guard let text = fields.next(), let replica = ReplicaID(String(decoding: text, as: UTF8.self)),
                    let counter = fields.nextInteger()
                else { throw fail("malformed replica") }
                replicas.append(replica)
                index.knowledge[replica] = counter
            case UInt8(ascii: "K"):
                guard let entityText = fields.next(), let encoded = fields.next(),
                    let lastSequence = fields.nextInteger(), let fileText = fields.next(), let versionsText = fields.next()
                else { throw fail("malformed record") }
                let entity: EntityName
                if let known = entities[entityText] {
                    entity = known
                } else {
                    guard let made = try? EntityName(String(decoding: entityText, as: UTF8.self)) else {
                        throw fail("bad entity name")
                    }
                    entities[entityText] = made
                    entity = made
                }
                guard let id = RecordFileName.decode(String(decoding: encoded, as: UTF8.self)) else {
                    throw fail("bad record id")
                }
                let file = try parseStamp(fileText, fail: fail)
                let versions = try parseVersions(versionsText, replicas: replicas, fail: fail)
                index.records[RecordKey(entity: entity, id: id)] = RecordState(
                    versions: versions, lastSequence: lastSequence, file: file)
            case UInt8(ascii: "E"):
                guard let count = fields.nextInteger() else { throw fail("malformed end") }
                expectedCount = Int(count)
            default:
                throw fail("unknown line tag")
            }
        }
        guard let expectedCount else { throw .damagedIndex(reason: "the snapshot is truncated (no end line)") }
        guard expectedCount == index.records.count else {
            throw .damagedIndex(reason: "expected \(expectedCount) records, found \(index.records.count)")
        }
        index.recountLive()
        return index
    }

    private static func parseStamp(_ text: ArraySlice<UInt8>, fail: (String) -> StoreError) throws(StoreError) -> FileStamp? {
        if text.elementsEqual("-".utf8) { return nil }
        var parts = FieldSplitter(line: text, separator: UInt8(ascii: ","))
        guard let size = parts.nextSignedInteger(), let modified = parts.nextSignedInteger(),
            let inode = parts.nextInteger(), let hashText = parts.next(),
            let hash = SHA256Digest(hex: String(decoding: hashText, as: UTF8.self)),
            let taken = parts.nextSignedInteger()
        else { throw fail("malformed file stamp") }
        return FileStamp(size: size, modificationNanoseconds: modified, inode: inode, contentHash: hash, takenAtNanoseconds: taken)
    }

    private static func parseVersions(
        _ text: ArraySlice<UInt8>, replicas: [ReplicaID], fail: (String) -> StoreError
    ) throws(StoreError) -> [RecordVersion] {
        var result: [RecordVersion] = []
        var items = FieldSplitter(line: text, separator: UInt8(ascii: ";"))
        while let item = items.next() {
            var parts = FieldSplitter(line: item, separator: UInt8(ascii: ","))
            guard let origin = parts.nextInteger(), Int(origin) < replicas.count,
                let counter = parts.nextInteger(), let physical = parts.nextInteger(),
                let logical = parts.nextInteger(), logical <= UInt64(UInt32.max), let deleted = parts.nextInteger(),
                let hashText = parts.next(), let hash = SHA256Digest(hex: String(decoding: hashText, as: UTF8.self)),
                let sequence = parts.nextInteger(), let vectorText = parts.next()
            else { throw fail("malformed version") }
            var vector = VersionVector()
            var pairs = FieldSplitter(line: vectorText, separator: UInt8(ascii: "+"))
            while let pair = pairs.next() {
                var halves = FieldSplitter(line: pair, separator: UInt8(ascii: ":"))
                guard let replica = halves.nextInteger(), Int(replica) < replicas.count, let value = halves.nextInteger() else {
                    throw fail("malformed version vector")
                }
                vector[replicas[Int(replica)]] = value
            }
            result.append(
                RecordVersion(
                    identity: ChangeIdentity(origin: replicas[Int(origin)], counter: counter),
                    timestamp: HybridTimestamp(physical: physical, logical: UInt32(logical)), version: vector,
                    isDelete: deleted == 1, contentHash: hash, sequence: sequence))
        }
        guard !result.isEmpty else { throw fail("a record without versions") }
        return result
    }
}

/// Splits a buffer into lines.
struct SnapshotReader {
    let bytes: [UInt8]
    var offset = 0
    var lineNumber = 0

    mutating func nextLine() -> ArraySlice<UInt8>? {
        guard offset < bytes.count else { return nil }
        let start = offset
        while offset < bytes.count && bytes[offset] != 10 { offset += 1 }
        let line = bytes[start..<offset]
        if offset < bytes.count { offset += 1 }
        lineNumber += 1
        return line
    }
}

/// Splits a line into fields at a separator byte.
struct FieldSplitter {
    var rest: ArraySlice<UInt8>?
    let separator: UInt8

    init(line: ArraySlice<UInt8>, separator: UInt8) {
        rest = line
        self.separator = separator
    }

    mutating func next() -> ArraySlice<UInt8>? {
        guard let current = rest else { return nil }
        if let cut = current.firstIndex(of: separator) {
            rest = current[(cut + 1)...]
            return current[..<cut]
        }
        rest = nil
        return current
    }

    mutating func nextInteger() -> UInt64? {
        guard let field = next(), !field.isEmpty, field.count <= 20 else { return nil }
        var value: UInt64 = 0
        for byte in field {
            guard byte.isASCIIDigit else { return nil }
            let (product, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = product.addingReportingOverflow(UInt64(byte - 48))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }

    mutating func nextSignedInteger() -> Int64? {
        guard let field = next(), !field.isEmpty else { return nil }
        let negative = field.first == UInt8(ascii: "-")
        var inner = FieldSplitter(line: negative ? field.dropFirst() : field, separator: separator)
        guard let magnitude = inner.nextInteger(), magnitude <= UInt64(Int64.max) else { return nil }
        return negative ? -Int64(magnitude) : Int64(magnitude)
    }
}
