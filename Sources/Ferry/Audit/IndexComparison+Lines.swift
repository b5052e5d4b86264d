/// Reading the index's record lines and writing the lines the replay expects, for
/// ``IndexComparison``: both sides are reduced to seeded fingerprints of the same text.
extension IndexComparison {
    /// Where the fields of a record line are (the line is read by ``IndexRecordLine``).
    typealias RecordLineFields = IndexRecordLine.Fields

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
                let hasValidStamp = IndexRecordLine.parseStamp(bytes[fields.stamp]) != nil
                guard let renumbering else {
                    return bytes.withUnsafeBufferPointer { buffer in
                        LineFacts(fields: fields, hasValidStamp: hasValidStamp, fingerprint: fields.fingerprintWithoutStamp(buffer))
                    }
                }
                let versions = IndexRecordLine.parseVersions(bytes[fields.versions], replicas: renumbering.replicas)
                let fingerprint = versions.flatMap { VersionsText.fingerprint($0, numbers: renumbering.numbers) }.map { hash in
                    bytes.withUnsafeBytes { raw in
                        RecordLineFields.combine(prefix: UnsafeRawBufferPointer(rebasing: raw[fields.prefix]), versions: hash)
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
            guard IndexRecordLine.appendVersions(versions, to: &line, number: { numbers[$0] }) else { return nil }
            return line.withUnsafeBytes { fingerprint(text: $0) }
        }
    }
}

/// The seeded fingerprints ``IndexComparison`` sums for a record line.
extension IndexRecordLine.Fields {
    /// The fingerprint of `<entity><tab><encoded id><tab><last seq>` and of `<versions>`
    /// (what the journal decides), combined as ``combine(prefix:versions:)`` does.
    func fingerprintWithoutStamp(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let versions = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[self.versions]))
        return Self.combine(
            prefix: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[prefix])),
            versions: IndexComparison.VersionsText.fingerprint(text: versions))
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
