/// Reading the index's record lines and writing the lines the replay expects, for
/// ``SnapshotComparison``: both sides are reduced to seeded fingerprints of the same text.
extension SnapshotComparison {
    /// Where the fields of `K<tab><entity><tab><encoded id><tab><last seq><tab><stamp><tab><versions>` are.
    struct RecordLineFields: Sendable {
        /// The offsets of the five tabs.
        let tabs: (Int, Int, Int, Int, Int)
        let end: Int

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
        var stamp: Range<Int> { (tabs.3 + 1)..<tabs.4 }

        /// `<entity><tab><encoded id>`, the order of the snapshot's lines.
        func sortKey(_ bytes: [UInt8]) -> ArraySlice<UInt8> { bytes[(tabs.0 + 1)..<tabs.2] }

        /// The record the line names, when its entity and encoded id are valid.
        func key(_ bytes: [UInt8]) -> RecordKey? {
            guard let entity = try? EntityName(String(decoding: bytes[entity], as: UTF8.self)),
                let id = RecordFileName.decode(bytes: bytes[encodedID])
            else { return nil }
            return RecordKey(entity: entity, id: id)
        }

        /// The fingerprint of `<entity><tab><encoded id><tab><last seq>`, a tab and `<versions>`
        /// (what the journal decides), hashed in those three pieces as ``LineWriter`` does.
        func fingerprintWithoutStamp(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
            var hasher = Hasher()
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(tabs.0 + 1)..<tabs.3])))
            withUnsafeBytes(of: UInt8(9)) { hasher.combine(bytes: $0) }
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(tabs.4 + 1)..<end])))
            return hasher.finalize()
        }
    }

    /// What checking a record line needs, worked out for all lines at once on the cores.
    struct LineFacts: Sendable {
        var fields: RecordLineFields?
        var hasValidStamp = false
        var fingerprint = 0

        static func of(_ file: IndexFileText) -> [LineFacts] {
            let bytes = file.bytes
            let lines = file.recordLines
            return ParallelWork.map(count: lines.count, minimumChunk: 4096) { index in
                guard let fields = RecordLineFields(lines[index], in: bytes) else { return LineFacts() }
                return bytes.withUnsafeBufferPointer { buffer in
                    LineFacts(
                        fields: fields, hasValidStamp: SnapshotFile.parseStamp(bytes[fields.stamp]) != nil,
                        fingerprint: fields.fingerprintWithoutStamp(buffer))
                }
            }
        }
    }

    /// Writes `entity<tab>encoded id<tab>last seq<tab>versions`, a record's line as
    /// ``StoreIndex/line(_:_:number:)`` writes it without the tag and the file stamp, into a
    /// reused buffer, and fingerprints it with a per-process seeded SipHash (Swift's `Hasher`),
    /// so a file cannot be crafted to collide with an expected line.
    struct LineWriter {
        private var line: [UInt8] = []
        /// The last replica numbered, as most versions in a row name the same few replicas.
        private var lastReplica: (replica: ReplicaID, number: Int)?

        /// The fingerprint of the record's line; `nil` when a replica has no number.
        mutating func fingerprint(_ key: RecordKey, _ state: RecordState, numbers: [ReplicaID: Int]) -> Int? {
            line.removeAll(keepingCapacity: true)
            line += key.entity.rawValue.utf8
            line.append(9)
            line += RecordFileName.encode(key.id).utf8
            line.append(9)
            append(state.lastSequence)
            // Hashed in the pieces ``RecordLineFields/fingerprintWithoutStamp(_:)`` hashes.
            var hasher = Hasher()
            line.withUnsafeBytes { hasher.combine(bytes: $0) }
            withUnsafeBytes(of: UInt8(9)) { hasher.combine(bytes: $0) }
            line.removeAll(keepingCapacity: true)
            for (offset, version) in state.versions.enumerated() {
                if offset > 0 { line.append(UInt8(ascii: ";")) }
                guard let origin = number(of: version.identity.origin, in: numbers) else { return nil }
                append(UInt64(origin))
                line.append(UInt8(ascii: ","))
                append(version.identity.counter)
                line.append(UInt8(ascii: ","))
                append(version.timestamp.physical)
                line.append(UInt8(ascii: ","))
                append(UInt64(version.timestamp.logical))
                line.append(UInt8(ascii: ","))
                line.append(version.isDelete ? UInt8(ascii: "1") : UInt8(ascii: "0"))
                line.append(UInt8(ascii: ","))
                version.contentHash.appendHexDigits(to: &line)
                line.append(UInt8(ascii: ","))
                append(version.sequence)
                line.append(UInt8(ascii: ","))
                let counters = version.version.counters
                // Most vectors have one replica: no need to sort them.
                let sorted = counters.count == 1 ? counters.map { ($0.key, $0.value) } : version.version.sortedCounters
                for (pair, (replica, counter)) in sorted.enumerated() {
                    guard let number = number(of: replica, in: numbers) else { return nil }
                    if pair > 0 { line.append(UInt8(ascii: "+")) }
                    append(UInt64(number))
                    line.append(UInt8(ascii: ":"))
                    append(counter)
                }
            }
            line.withUnsafeBytes { hasher.combine(bytes: $0) }
            return hasher.finalize()
        }

        private mutating func number(of replica: ReplicaID, in numbers: [ReplicaID: Int]) -> Int? {
            if let last = lastReplica, last.replica == replica { return last.number }
            guard let number = numbers[replica] else { return nil }
            lastReplica = (replica, number)
            return number
        }

        private mutating func append(_ value: UInt64) { line.appendDecimal(value) }
    }
}
