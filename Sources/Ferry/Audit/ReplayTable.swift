/// The journal's replay of one partition of records for ``StoreVerifier`` (see
/// ``ReplaySpill``), in a compact form: what ``StoreIndex`` would hold after replaying the
/// journal, reduced to what verifying needs, in one fixed-size slot per record and the record
/// ids' bytes in one buffer, so its memory stays about 80 bytes a record (a partition of 32k
/// records: 3 MB, where a ``StoreIndex`` of decoded states of a million took over a gigabyte).
///
/// A record with one current version whose causal version names at most two replicas (nearly
/// every record) keeps in its slot only that version's vector, its journal sequence, its file's
/// fingerprint and the fingerprint of the versions text the index writes for it. Anything else
/// (concurrent versions, larger vectors) keeps its full ``RecordState``, as the store does.
/// A record whose version meets a concurrent one needs its current version in full: the
/// caller reads it again from the journal (``Outcome/needsVersion(_:)``).
struct ReplayTable: Sendable {
    /// One record: 64 bytes.
    struct Slot: Sendable {
        var keyOffset: UInt32
        /// A journal may name any number of entities.
        var entity: UInt32
        var fileCount: UInt32
        var keyLength: UInt16
        var flags: Flags
        /// The latest journal entry about the record (every entry sets it, as in ``StoreIndex``).
        var lastSequence: UInt64
        /// The journal entry of the single current version (a simple record).
        var winnerSequence: UInt64
        /// The single version's vector: up to two `replica number << 48 | counter`, 0 when unused.
        var vector: (UInt64, UInt64)
        /// The fingerprint of the versions field of the record's index line.
        var versionsHash: Int
        var fileHash: Int

        var file: FileFingerprint? {
            flags.contains(.hasFile) ? FileFingerprint(count: Int(fileCount), hash: fileHash) : nil
        }
    }

    struct Flags: OptionSet, Sendable {
        let rawValue: UInt8
        static let live = Flags(rawValue: 1)
        /// The state is in ``complex``.
        static let complex = Flags(rawValue: 2)
        /// A replica of its versions has no number in the index: no line can match.
        static let unnumbered = Flags(rawValue: 4)
        static let conflicted = Flags(rawValue: 8)
        static let hasFile = Flags(rawValue: 16)
    }

    /// What applying an entry needs.
    enum Outcome: Equatable {
        case applied
        /// The record's current version (at this journal sequence) is needed in full: apply the
        /// entry again with it.
        case needsVersion(UInt64)
    }

    private(set) var slots: [Slot] = []
    private var keyBytes: [UInt8] = []
    /// Slot index + 1 per bucket (0: empty), open addressing with linear probing.
    private var buckets: [UInt32] = Array(repeating: 0, count: 1024)
    private var entities = Numbering<EntityName>()
    /// Replicas numbered for packed vectors.
    private var replicas = Numbering<ReplicaID>()
    /// The index's replica numbering, for the versions text (`nil`: no index to compare).
    private let lineNumbers: [ReplicaID: Int]?
    /// The states of records that do not fit a slot, by slot index.
    private(set) var complex: [Int: RecordState] = [:]
    /// For the versions of complex records: their files' fingerprints, by sequence.
    private var complexFiles: [UInt64: FileFingerprint] = [:]
    private var liveByEntity: [Int] = []

    /// - Parameter lineNumbers: The index's replica numbering, to fingerprint each record's
    ///   index line as the replay goes; `nil` when there is no index to compare.
    ///   - expectedCount: About how many records to expect (the index's count), to make room
    ///     once rather than grow by doubling, which holds both copies while it moves them.
    init(lineNumbers: [ReplicaID: Int]?, expectedCount: Int = 0) {
        self.lineNumbers = lineNumbers
        guard expectedCount > 0 else { return }
        slots.reserveCapacity(expectedCount + expectedCount / 16)
        keyBytes.reserveCapacity((expectedCount + expectedCount / 16) * 16)
        var buckets = 1024
        while buckets < expectedCount * 2 { buckets *= 2 }
        self.buckets = Array(repeating: 0, count: buckets)
    }

    var count: Int { slots.count }

    /// Live records per entity.
    var liveCounts: [EntityName: Int] {
        var counts: [EntityName: Int] = [:]
        for (number, live) in liveByEntity.enumerated() where live > 0 { counts[entities[number]] = live }
        return counts
    }

    var liveRecordCount: Int { liveByEntity.reduce(0, +) }

    /// The conflicted records.
    var conflicted: Set<RecordKey> {
        Set(complex.keys.filter { slots[$0].flags.contains(.conflicted) }.map(key(at:)))
    }

    // MARK: Keys

    /// The record in slot `index`.
    func key(at index: Int) -> RecordKey {
        let slot = slots[index]
        let id = keyBytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[Int(slot.keyOffset)..<(Int(slot.keyOffset) + Int(slot.keyLength))]), as: UTF8.self)
        }
        return RecordKey(entity: entities[Int(slot.entity)], id: RecordID(unchecked: id))
    }

    /// The entity name of slot `index`.
    func entity(at index: Int) -> EntityName { entities[Int(slots[index].entity)] }

    /// The slot of `key`, if the journal has it.
    func index(of key: RecordKey) -> Int? {
        guard let entity = entities.existingNumber(of: key.entity).map(UInt32.init) else { return nil }
        var id = key.id.rawValue
        return id.withUTF8 { find(entity: entity, id: UnsafeRawBufferPointer($0)).found }
    }

    private func hash(entity: UInt32, id: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(entity)
        hasher.combine(bytes: id)
        return hasher.finalize()
    }

    /// The slot of the key, or the bucket where it would go.
    private func find(entity: UInt32, id: UnsafeRawBufferPointer) -> (found: Int?, bucket: Int) {
        let mask = buckets.count - 1
        var bucket = hash(entity: entity, id: id) & mask
        return keyBytes.withUnsafeBytes { keys in
            while true {
                let stored = buckets[bucket]
                if stored == 0 { return (nil, bucket) }
                let slot = slots[Int(stored - 1)]
                if slot.entity == entity && Int(slot.keyLength) == id.count
                    && UnsafeRawBufferPointer(rebasing: keys[Int(slot.keyOffset)..<(Int(slot.keyOffset) + id.count)]).elementsEqual(id)
                {
                    return (Int(stored - 1), bucket)
                }
                bucket = (bucket + 1) & mask
            }
        }
    }

    private mutating func insert(entity: UInt32, id: UnsafeRawBufferPointer, bucket: Int) -> Int {
        let index = slots.count
        slots.append(
            Slot(
                keyOffset: UInt32(keyBytes.count), entity: entity, fileCount: 0, keyLength: UInt16(id.count), flags: [],
                lastSequence: 0, winnerSequence: 0, vector: (0, 0), versionsHash: 0, fileHash: 0))
        keyBytes.append(contentsOf: id)
        buckets[bucket] = UInt32(index + 1)
        if slots.count * 2 > buckets.count { grow() }
        return index
    }

    private mutating func grow() {
        buckets = Array(repeating: 0, count: buckets.count * 2)
        let mask = buckets.count - 1
        keyBytes.withUnsafeBytes { keys in
            for (index, slot) in slots.enumerated() {
                let id = UnsafeRawBufferPointer(rebasing: keys[Int(slot.keyOffset)..<(Int(slot.keyOffset) + Int(slot.keyLength))])
                var bucket = hash(entity: slot.entity, id: id) & mask
                while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
                buckets[bucket] = UInt32(index + 1)
            }
        }
    }

    private mutating func entityNumber(_ entity: EntityName) -> UInt32 {
        let number = entities.number(of: entity)
        if number == liveByEntity.count { liveByEntity.append(0) }
        return UInt32(number)
    }

    // MARK: Replay

    /// What replaying a journal entry reads of it.
    struct Entry: Sendable {
        var key: RecordKey
        var origin: ReplicaID
        var counter: UInt64
        var timestamp: HybridTimestamp
        var version: VersionVector
        var isDelete: Bool
        var sequence: UInt64
    }

    /// Replays one entry as ``StoreIndex/apply(_:contentHash:before:)`` does.
    /// - Parameters:
    ///   - content: The document's content hash (zero for a delete).
    ///   - file: The fingerprint of the record file Ferry writes for the document.
    ///   - current: The record's current version, when an earlier call asked for it.
    mutating func apply(_ entry: Entry, content: SHA256Digest, file: FileFingerprint?, current: RecordVersion? = nil) -> Outcome {
        let incoming = RecordVersion(
            identity: ChangeIdentity(origin: entry.origin, counter: entry.counter), timestamp: entry.timestamp,
            version: entry.version, isDelete: entry.isDelete, contentHash: entry.isDelete ? .zero : content,
            sequence: entry.sequence)
        let entity = entityNumber(entry.key.entity)
        var id = entry.key.id.rawValue
        let (found, bucket) = id.withUTF8 { find(entity: entity, id: UnsafeRawBufferPointer($0)) }
        let index: Int
        let wasLive: Bool
        if let found {
            index = found
            wasLive = slots[index].flags.contains(.live)
            if slots[index].flags.contains(.complex) {
                guard var state = complex[index] else { return .applied }
                let before = state.versions
                if state.incorporate(incoming) == .added {
                    for version in before where !state.versions.contains(where: { $0.sequence == version.sequence }) {
                        complexFiles[version.sequence] = nil
                    }
                    if let file, state.versions.contains(where: { $0.sequence == incoming.sequence }) {
                        complexFiles[incoming.sequence] = file
                    }
                }
                state.lastSequence = entry.sequence
                store(state, at: index)
            } else {
                switch compare(slots[index].vector, to: incoming.version) {
                case .equal, .after:
                    slots[index].lastSequence = entry.sequence
                case .before:
                    store(incoming, file: file, at: index, lastSequence: entry.sequence)
                case .concurrent:
                    guard let current else { return .needsVersion(slots[index].winnerSequence) }
                    var state = RecordState(versions: [current], lastSequence: slots[index].lastSequence, file: nil)
                    if let existingFile = slots[index].file { complexFiles[current.sequence] = existingFile }
                    _ = state.incorporate(incoming)
                    if let file, state.versions.contains(where: { $0.sequence == incoming.sequence }) {
                        complexFiles[incoming.sequence] = file
                    }
                    state.lastSequence = entry.sequence
                    store(state, at: index)
                }
            }
        } else {
            index = id.withUTF8 { insert(entity: entity, id: UnsafeRawBufferPointer($0), bucket: bucket) }
            wasLive = false
            store(incoming, file: file, at: index, lastSequence: entry.sequence)
        }
        let isLive = slots[index].flags.contains(.live)
        if isLive != wasLive { liveByEntity[Int(entity)] += isLive ? 1 : -1 }
        return .applied
    }

    /// Makes slot `index` hold the single version `version`.
    private mutating func store(_ version: RecordVersion, file: FileFingerprint?, at index: Int, lastSequence: UInt64) {
        guard let packed = pack(version.version) else {
            complex[index] = nil
            if let file { complexFiles[version.sequence] = file }
            store(RecordState(versions: [version], lastSequence: lastSequence, file: nil), at: index)
            return
        }
        if complex.removeValue(forKey: index) != nil {
            slots[index].flags.remove(.complex)
        }
        var slot = slots[index]
        slot.vector = packed
        slot.winnerSequence = version.sequence
        slot.lastSequence = lastSequence
        slot.flags = version.isDelete ? [] : .live
        if let file, !version.isDelete {
            slot.flags.insert(.hasFile)
            slot.fileCount = UInt32(truncatingIfNeeded: file.count)
            slot.fileHash = file.hash
        }
        if let hash = versionsHash([version]) { slot.versionsHash = hash } else { slot.flags.insert(.unnumbered) }
        slots[index] = slot
    }

    /// Makes slot `index` hold `state`: in the slot when it is one packable version, else in
    /// ``complex``.
    private mutating func store(_ state: RecordState, at index: Int) {
        if state.versions.count == 1, pack(state.winner.version) != nil {
            let winner = state.winner
            let file = complexFiles.removeValue(forKey: winner.sequence)
            complex[index] = nil
            slots[index].flags.remove(.complex)
            store(winner, file: file, at: index, lastSequence: state.lastSequence)
            return
        }
        complex[index] = state
        var slot = slots[index]
        slot.lastSequence = state.lastSequence
        slot.winnerSequence = state.winner.sequence
        slot.flags = .complex
        if state.isLive { slot.flags.insert(.live) }
        if state.isConflicted { slot.flags.insert(.conflicted) }
        if let hash = versionsHash(state.versions) { slot.versionsHash = hash } else { slot.flags.insert(.unnumbered) }
        slots[index] = slot
    }

    // MARK: Reading

    /// The fingerprint of the file the record's winner should have (see ``FileFingerprint``).
    func expectedFile(at index: Int) -> FileFingerprint? {
        let slot = slots[index]
        guard slot.flags.contains(.complex) else { return slot.file }
        return complex[index].flatMap { complexFiles[$0.winner.sequence] }
    }

    /// The record's state as ``StoreIndex`` holds it; a simple record's version is read again
    /// with `version` (from the journal, by sequence).
    func state(at index: Int, version: (UInt64) -> RecordVersion?) -> RecordState? {
        let slot = slots[index]
        if slot.flags.contains(.complex) { return complex[index] }
        guard let winner = version(slot.winnerSequence) else { return nil }
        return RecordState(versions: [winner], lastSequence: slot.lastSequence, file: nil)
    }

    // MARK: Vectors

    private static let counterMask: UInt64 = (1 << 48) - 1

    /// A vector of at most two replicas in two words, sorted by replica number; `nil` when it
    /// does not fit.
    private mutating func pack(_ vector: VersionVector) -> (UInt64, UInt64)? {
        let counters = vector.counters
        guard counters.count <= 2 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        for (replica, counter) in counters {
            let number = replicas.number(of: replica)
            guard number < 0xFFFF, counter <= Self.counterMask else { return nil }
            let word = UInt64(number + 1) << 48 | counter
            if words.0 == 0 { words.0 = word } else { words.1 = word }
        }
        if words.1 != 0 && words.1 < words.0 { words = (words.1, words.0) }
        return words
    }

    /// How a packed vector relates to `other` (see ``VersionVector/compare(to:)``).
    private func compare(_ packed: (UInt64, UInt64), to other: VersionVector) -> VersionVector.Order {
        var less = false
        var greater = false
        var shared = 0
        for word in [packed.0, packed.1] where word != 0 {
            let mine = word & Self.counterMask
            let theirs = other[replicas[Int(word >> 48) - 1]]
            if theirs > 0 { shared += 1 }
            if mine < theirs { less = true } else if mine > theirs { greater = true }
        }
        if other.counters.count > shared { less = true }
        switch (less, greater) {
        case (false, false): return .equal
        case (true, false): return .before
        case (false, true): return .after
        case (true, true): return .concurrent
        }
    }

    /// The fingerprint of the versions field of the index line for `versions` (see
    /// ``IndexComparison/VersionsText``); `nil` when there is no index or a replica has no
    /// number in it.
    private func versionsHash(_ versions: [RecordVersion]) -> Int? {
        guard let lineNumbers else { return 0 }
        return IndexComparison.VersionsText.fingerprint(versions, numbers: lineNumbers)
    }
}

extension ReplayTable.Entry {
    /// What replaying `entry` reads of it.
    init(_ entry: JournalEntry) {
        let change = entry.change
        self.init(
            key: change.key, origin: change.origin, counter: change.counter, timestamp: change.timestamp,
            version: change.version, isDelete: change.isDelete, sequence: entry.sequence)
    }
}
