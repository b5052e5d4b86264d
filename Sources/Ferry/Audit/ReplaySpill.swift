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
    private var replicas: [ReplicaID] = []
    private var replicaNumbers: [ReplicaID: UInt32] = [:]
    private var entities: [EntityName] = []
    private var entityNumbers: [EntityName: UInt32] = [:]
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
        let origin = replicaNumber(entry.origin)
        let vector = entry.version.counters.map { (replicaNumber($0.key), $0.value) }
        let entity = entityNumber(entry.key.entity)
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

    /// Adds the name of a file under `records/<entity>/` that names record `id`.
    func addFileName(entity: EntityName, id: RecordID, relativePath: String) {
        let partition = partitioning.partition(of: RecordKey(entity: entity, id: id))
        let number = entityNumber(entity)
        names.append(to: partition) { bytes in
            bytes.appendLittleEndian(number)
            bytes += relativePath.utf8
        }
    }

    /// Calls `body` with each record file name of `partition`.
    func forEachFileName(in partition: Int, _ body: (FileName) -> Void) {
        names.forEachRecord(in: partition) { raw in
            var reader = LittleEndianReader(raw)
            let entity = entities[Int(reader.uint32())]
            body(FileName(entity: entity, relativePath: reader.rest()))
        }
    }

    /// Drops a partition once it has been replayed.
    func discard(_ partition: Int) {
        entries.discard(partition)
        names.discard(partition)
    }

    // MARK: Numbering

    private func replicaNumber(_ replica: ReplicaID) -> UInt32 {
        if let number = replicaNumbers[replica] { return number }
        let number = UInt32(replicas.count)
        replicas.append(replica)
        replicaNumbers[replica] = number
        return number
    }

    private func entityNumber(_ entity: EntityName) -> UInt32 {
        if let number = entityNumbers[entity] { return number }
        let number = UInt32(entities.count)
        entities.append(entity)
        entityNumbers[entity] = number
        return number
    }
}

/// Which of ``count`` partitions a record belongs to: FNV-1a of its index sort key
/// (`<entity><tab><encoded id>`), the same whether it is read from a journal entry, an index
/// line or a file name.
struct ReplayPartitioning: Sendable {
    let count: Int

    init(count: Int) { self.count = max(1, count) }

    /// The partition of an index line's sort key.
    func partition<Bytes: Sequence>(ofSortKey bytes: Bytes) -> Int where Bytes.Element == UInt8 {
        guard count > 1 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(count))
    }

    /// The partition of `key`.
    func partition(of key: RecordKey) -> Int {
        guard count > 1 else { return 0 }
        var sortKey: [UInt8] = []
        sortKey.reserveCapacity(key.entity.rawValue.utf8.count + key.id.rawValue.utf8.count + 8)
        sortKey += key.entity.rawValue.utf8
        sortKey.append(9)
        RecordFileName.appendEncoded(key.id, to: &sortKey)
        return partition(ofSortKey: sortKey)
    }
}

extension [UInt8] {
    /// Appends `value`'s bytes, least significant first.
    mutating func appendLittleEndian<Value: FixedWidthInteger>(_ value: Value) {
        var remaining = value.littleEndian
        Swift.withUnsafeBytes(of: &remaining) { append(contentsOf: $0) }
    }
}

/// Reads integers written by ``Swift/Array/appendLittleEndian(_:)`` from the front of a buffer
/// Ferry wrote itself (short reads give zeros, never a crash).
struct LittleEndianReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private mutating func integer<Value: FixedWidthInteger>(_: Value.Type) -> Value {
        let size = MemoryLayout<Value>.size
        guard bytes.count - offset >= size else {
            offset = bytes.count
            return 0
        }
        var value: Value = 0
        for index in 0..<size { value |= Value(truncatingIfNeeded: bytes[offset + index]) << (8 * index) }
        offset += size
        return value
    }

    mutating func byte() -> UInt8 { integer(UInt8.self) }
    mutating func uint32() -> UInt32 { integer(UInt32.self) }
    mutating func uint64() -> UInt64 { integer(UInt64.self) }

    /// The rest of the buffer as UTF-8 text.
    mutating func rest() -> String {
        defer { offset = bytes.count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset...]), as: UTF8.self)
    }
}
