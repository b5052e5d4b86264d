/// Writing the index snapshot (format in ``SnapshotFile``): the records changed since the last
/// snapshot are merged, in sort order, with the old snapshot's lines, which are copied as they
/// are, so writing costs one pass over the bytes and decodes nothing.
extension StoreIndex {
    /// The snapshot's bytes; with `deltaOnly`, the delta file's: only the changed records,
    /// applying to the current snapshot.
    func snapshotBytes(deltaOnly: Bool = false) -> [UInt8] {
        // Replica numbering: the old snapshot's, then any new replicas (old lines stay valid).
        var replicaList = records.base?.header.replicas ?? []
        var numbers: [ReplicaID: Int] = [:]
        for (offset, replica) in replicaList.enumerated() { numbers[replica] = offset }
        func number(_ replica: ReplicaID) -> Int {
            if let known = numbers[replica] { return known }
            numbers[replica] = replicaList.count
            replicaList.append(replica)
            return replicaList.count - 1
        }
        for (replica, _) in knowledge.sortedCounters { _ = number(replica) }

        // Changed records, encoded and sorted.
        var changed: [(sortKey: [UInt8], line: [UInt8])] = []
        changed.reserveCapacity(records.overlay.count)
        for (key, state) in records.overlay {
            changed.append((SnapshotFile.sortKey(key), StoreIndex.line(key, state, number: number)))
        }
        changed.sort { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }

        var body: [UInt8] = []
        body.reserveCapacity((records.count + 1) * 200)
        var next = 0
        var lines = 0
        if deltaOnly {
            for item in changed { body.append(contentsOf: item.line) }
            lines = changed.count
        } else {
        records.base?.forEachRawLine { sortKey, line in
            while next < changed.count && changed[next].sortKey.lexicographicallyPrecedes(sortKey) {
                body.append(contentsOf: changed[next].line)
                next += 1
                lines += 1
            }
            if next < changed.count && changed[next].sortKey.elementsEqual(sortKey) {
                body.append(contentsOf: changed[next].line)
                next += 1
            } else {
                body.append(contentsOf: line)
                body.append(10)
            }
            lines += 1
        }
        while next < changed.count {
            body.append(contentsOf: changed[next].line)
            next += 1
            lines += 1
        }
        }

        var output: [UInt8] = []
        output.reserveCapacity(body.count + 4096)
        output.append(contentsOf: "\(deltaOnly ? SnapshotFile.deltaMagic : SnapshotFile.magic)\n".utf8)
        output.append(contentsOf: "H\t\(headSequence)\t\(headHash.hex)\t\(latestModification)\n".utf8)
        if deltaOnly {
            let base = records.base?.header.head ?? StoreHead(sequence: 0, hash: .zero, latestModification: .zero)
            output.append(contentsOf: "A\t\(base.sequence)\t\(base.hash.hex)\n".utf8)
        }
        for replica in replicaList {
            output.append(contentsOf: "R\t\(replica.rawValue)\t\(knowledge[replica])\n".utf8)
        }
        for (entity, count) in liveCounts.sorted(by: { $0.key < $1.key }) where count > 0 {
            output.append(contentsOf: "L\t\(entity.rawValue)\t\(count)\n".utf8)
        }
        for key in conflicted.sorted() {
            output.append(contentsOf: "C\t\(key.entity.rawValue)\t\(RecordFileName.encode(key.id))\n".utf8)
        }
        // N counts the lines below; a delta also gives the whole table's count (T).
        if deltaOnly { output.append(contentsOf: "T\t\(records.count)\n".utf8) }
        output.append(contentsOf: "N\t\(lines)\nB\n".utf8)
        output.append(contentsOf: body)
        output.append(contentsOf: "E\t\(lines)\n".utf8)
        return output
    }

    /// One record line, newline included.
    static func line(_ key: RecordKey, _ state: RecordState, number: (ReplicaID) -> Int) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(contentsOf: "K\t".utf8)
        line.append(contentsOf: key.entity.rawValue.utf8)
        line.append(9)
        line.append(contentsOf: RecordFileName.encode(key.id).utf8)
        line.append(9)
        line.append(contentsOf: String(state.lastSequence).utf8)
        line.append(9)
        if let file = state.file {
            line.append(contentsOf: "\(file.size),\(file.modificationNanoseconds),\(file.inode),".utf8)
            line.append(contentsOf: file.contentHash.hex.utf8)
            line.append(contentsOf: ",\(file.takenAtNanoseconds)".utf8)
        } else {
            line.append(UInt8(ascii: "-"))
        }
        line.append(9)
        for (offset, version) in state.versions.enumerated() {
            if offset > 0 { line.append(UInt8(ascii: ";")) }
            line.append(contentsOf: "\(number(version.identity.origin)),\(version.identity.counter),".utf8)
            line.append(contentsOf: "\(version.timestamp.physical),\(version.timestamp.logical),".utf8)
            line.append(contentsOf: (version.isDelete ? "1," : "0,").utf8)
            line.append(contentsOf: version.contentHash.hex.utf8)
            line.append(contentsOf: ",\(version.sequence),".utf8)
            for (pair, (replica, counter)) in version.version.sortedCounters.enumerated() {
                if pair > 0 { line.append(UInt8(ascii: "+")) }
                line.append(contentsOf: "\(number(replica)):\(counter)".utf8)
            }
        }
        line.append(10)
        return line
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
