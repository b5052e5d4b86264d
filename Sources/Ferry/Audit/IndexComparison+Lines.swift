/// Reading the index's record lines and writing the lines the replay expects, for
/// ``IndexComparison``: both sides are reduced to seeded fingerprints of the same text.
extension IndexComparison {
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

        /// The fingerprint of `<entity><tab><encoded id><tab><last seq>` and of `<versions>`
        /// (what the journal decides), combined as ``combine(prefix:versions:)`` does.
        func fingerprintWithoutStamp(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
            let versions = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(tabs.4 + 1)..<end]))
            return Self.combine(
                prefix: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(tabs.0 + 1)..<tabs.3])),
                versions: VersionsText.fingerprint(text: versions))
        }

        /// A line's fingerprint from its prefix's bytes and its versions' fingerprint: the
        /// replay keeps the latter per record, so it never holds the versions text.
        static func combine(prefix: UnsafeRawBufferPointer, versions: Int) -> Int {
            var hasher = Hasher()
            hasher.combine(bytes: prefix)
            hasher.combine(versions)
            return hasher.finalize()
        }
    }

    /// What checking a record line needs, worked out for a piece of lines at once on the cores.
    struct LineFacts: Sendable {
        var fields: RecordLineFields?
        var hasValidStamp = false
        /// `nil` when a renumbered line names a replica the numbering lacks.
        var fingerprint: Int? = 0

        /// The facts of the lines at `ranges` of `bytes`; with `renumbering`, the versions are
        /// read with the file's replicas and fingerprinted with the replay's numbers.
        static func of(
            _ ranges: [Range<Int>], in bytes: [UInt8], renumbering: (replicas: [ReplicaID], numbers: [ReplicaID: Int])?
        ) -> [LineFacts] {
            ParallelWork.map(count: ranges.count, minimumChunk: 1024) { index in
                guard let fields = RecordLineFields(ranges[index], in: bytes) else { return LineFacts() }
                let hasValidStamp = IndexFile.parseStamp(bytes[fields.stamp]) != nil
                guard let renumbering else {
                    return bytes.withUnsafeBufferPointer { buffer in
                        LineFacts(fields: fields, hasValidStamp: hasValidStamp, fingerprint: fields.fingerprintWithoutStamp(buffer))
                    }
                }
                let versions = IndexFile.parseVersions(bytes[(fields.tabs.4 + 1)..<fields.end], replicas: renumbering.replicas)
                let fingerprint = versions.flatMap { VersionsText.fingerprint($0, numbers: renumbering.numbers) }.map { hash in
                    bytes.withUnsafeBytes { raw in
                        RecordLineFields.combine(prefix: UnsafeRawBufferPointer(rebasing: raw[(fields.tabs.0 + 1)..<fields.tabs.3]), versions: hash)
                    }
                }
                return LineFacts(fields: fields, hasValidStamp: hasValidStamp, fingerprint: fingerprint)
            }
        }
    }

    /// The versions field of a record's index line, as ``StoreIndex`` writes it, reduced to a
    /// per-process seeded SipHash (Swift's `Hasher`), so a file cannot be crafted to collide
    /// with an expected line.
    enum VersionsText {
        /// The fingerprint of a versions field's bytes.
        static func fingerprint(text: UnsafeRawBufferPointer) -> Int {
            var hasher = Hasher()
            hasher.combine(bytes: text)
            return hasher.finalize()
        }

        /// The fingerprint of the versions field written for `versions`; `nil` when a replica
        /// has no number.
        static func fingerprint(_ versions: [RecordVersion], numbers: [ReplicaID: Int]) -> Int? {
            var line: [UInt8] = []
            line.reserveCapacity(160 * versions.count)
            for (offset, version) in versions.enumerated() {
                if offset > 0 { line.append(UInt8(ascii: ";")) }
                guard let origin = numbers[version.identity.origin] else { return nil }
                line.appendDecimal(UInt64(origin))
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
                    guard let number = numbers[replica] else { return nil }
                    if pair > 0 { line.append(UInt8(ascii: "+")) }
                    line.appendDecimal(UInt64(number))
                    line.append(UInt8(ascii: ":"))
                    line.appendDecimal(counter)
                }
            }
            return line.withUnsafeBytes { fingerprint(text: $0) }
        }
    }
}
