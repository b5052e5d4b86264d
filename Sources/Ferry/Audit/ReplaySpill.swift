/// The journal's entries, as ``StoreVerifier`` replays them, sorted by record into partitions
/// on disk (``SpillPartitions``), so that the replay holds one partition's records at a time
/// rather than a million.
///
/// A record's partition is a hash of its index sort key (`<entity><tab><encoded id>`), so the
/// index's lines and the record files' names can be sent to the same partitions as the
/// journal's entries about them. Entries keep their journal order within a partition, with
/// their place in the replay (``Spilled/ordinal``), so a partition can be replayed up to the
/// index's head, compared, and replayed on.
final class ReplaySpill: @unchecked Sendable {
    /// Which partition a record belongs to.
    let partitioning: ReplayPartitioning
    private let entries: SpillPartitions
    private let names: SpillPartitions
    private var replicas = Numbering<ReplicaID>()
    private var entities = Numbering<EntityName>()
    /// The entries added so far: the next entry's ordinal.
    private(set) var entryCount = 0

    /// One entry read back.
    struct Spilled {
        /// The entry's place in the replay (kept entries first, then the segments' lines).
        var ordinal: Int
        var entry: ReplayTable.Entry
        var content: SHA256Digest
        var file: FileFingerprint?
    }

    /// A record file's name read back.
    struct FileName {
        var entity: EntityName
        var relativePath: String
        /// The fingerprint of the file's bytes when they were read (``FileFingerprint/init(compacting:)``);
        /// `nil` when they could not be read or fingerprinted.
        var fingerprint: FileFingerprint?
    }

    /// - Parameter partitions: The number of partitions (the records expected, divided by
    ///   the records a partition should hold).
    init(partitions: Int) {
        partitioning = ReplayPartitioning(count: partitions)
        entries = SpillPartitions(count: partitions)
        names = SpillPartitions(count: partitions)
    }

    var partitionCount: Int { partitioning.count }

    // MARK: Entries

    /// Adds the next entry of the replay.
    func add(_ entry: ReplayTable.Entry, content: SHA256Digest, file: FileFingerprint?) {
        let partition = partitioning.partition(of: entry.key)
        let ordinal = entryCount
        entryCount += 1
        let origin = UInt32(replicas.number(of: entry.origin))
        let vector = entry.version.counters.map { (UInt32(replicas.number(of: $0.key)), $0.value) }
        let entity = UInt32(entities.number(of: entry.key.entity))
        entries.append(to: partition) { bytes in
            bytes.appendLittleEndian(UInt64(ordinal))
            bytes.appendLittleEndian(entry.sequence)
            bytes.appendLittleEndian(origin)
            bytes.appendLittleEndian(entry.counter)
            bytes.appendLittleEndian(entry.timestamp.physical)
            bytes.appendLittleEndian(entry.timestamp.logical)
            var flags: UInt8 = 0
            if entry.isDelete { flags |= 1 }
            if file != nil { flags |= 2 }
            bytes.append(flags)
            if !entry.isDelete {
                let words = content.words
                bytes.appendLittleEndian(words.0)
                bytes.appendLittleEndian(words.1)
                bytes.appendLittleEndian(words.2)
                bytes.appendLittleEndian(words.3)
            }
            if let file {
                bytes.appendLittleEndian(UInt64(truncatingIfNeeded: file.count))
                bytes.appendLittleEndian(UInt64(bitPattern: Int64(file.hash)))
            }
            bytes.appendLittleEndian(UInt32(vector.count))
            for (replica, counter) in vector {
                bytes.appendLittleEndian(replica)
                bytes.appendLittleEndian(counter)
            }
            bytes.appendLittleEndian(entity)
            bytes += entry.key.id.rawValue.utf8
        }
    }

    /// Calls `body` with each entry of `partition`, in replay order.
    func forEachEntry(in partition: Int, _ body: (Spilled) -> Void) {
        entries.forEachRecord(in: partition) { raw in
            var reader = LittleEndianReader(raw)
            let ordinal = Int(reader.uint64())
            let sequence = reader.uint64()
            let origin = replicas[Int(reader.uint32())]
            let counter = reader.uint64()
            let timestamp = HybridTimestamp(physical: reader.uint64(), logical: reader.uint32())
            let flags = reader.byte()
            let isDelete = flags & 1 != 0
            var content = SHA256Digest.zero
            if !isDelete { content = SHA256Digest(reader.uint64(), reader.uint64(), reader.uint64(), reader.uint64()) }
            var file: FileFingerprint?
            if flags & 2 != 0 { file = FileFingerprint(count: Int(reader.uint64()), hash: Int(Int64(bitPattern: reader.uint64()))) }
            var counters: [ReplicaID: UInt64] = [:]
            let vectorCount = Int(reader.uint32())
            counters.reserveCapacity(vectorCount)
            for _ in 0..<vectorCount {
                let replica = replicas[Int(reader.uint32())]
                counters[replica] = reader.uint64()
            }
            let entity = entities[Int(reader.uint32())]
            let id = RecordID(unchecked: reader.rest())
            let entry = ReplayTable.Entry(
                key: RecordKey(entity: entity, id: id), origin: origin, counter: counter, timestamp: timestamp,
                version: VersionVector(counters), isDelete: isDelete, sequence: sequence)
            body(Spilled(ordinal: ordinal, entry: entry, content: content, file: file))
        }
    }

    // MARK: Record file names

    /// Adds the name of a file under `records/<entity>/` that names record `id`, with the
    /// fingerprint of its bytes when they were read.
    func addFileName(entity: EntityName, id: RecordID, relativePath: String, fingerprint: FileFingerprint?) {
        let partition = partitioning.partition(of: RecordKey(entity: entity, id: id))
        let number = UInt32(entities.number(of: entity))
        names.append(to: partition) { bytes in
            bytes.appendLittleEndian(number)
            bytes.append(fingerprint == nil ? 0 : 1)
            bytes.appendLittleEndian(UInt64(fingerprint?.count ?? 0))
            bytes.appendLittleEndian(UInt64(bitPattern: Int64(fingerprint?.hash ?? 0)))
            bytes += relativePath.utf8
        }
    }

    /// Calls `body` with each record file name of `partition`.
    func forEachFileName(in partition: Int, _ body: (FileName) -> Void) {
        names.forEachRecord(in: partition) { raw in
            var reader = LittleEndianReader(raw)
            let entity = entities[Int(reader.uint32())]
            let hasFingerprint = reader.byte() == 1
            let count = Int(truncatingIfNeeded: reader.uint64())
            let hash = Int(truncatingIfNeeded: reader.uint64())
            body(
                FileName(
                    entity: entity, relativePath: reader.rest(),
                    fingerprint: hasFingerprint ? FileFingerprint(count: count, hash: hash) : nil))
        }
    }

    /// Drops a partition once it has been replayed.
    func discard(_ partition: Int) {
        entries.discard(partition)
        names.discard(partition)
    }
}
