/// The distinct records of a batch of writes, numbered in the order they first appear.
///
/// A batch keeps several facts per record while it is planned and written: its state before
/// the batch, the hash a put must have to change nothing, its new file, its pending version.
/// Kept in dictionaries keyed by record, each fact costs a hash of the key per lookup, and a
/// table sized for the whole batch with the fact stored inline in every bucket: for 100k new
/// records, tens of megabytes each. Numbered once here, each fact is an array indexed by slot,
/// and each write finds its slot without hashing.
///
/// ```swift
/// let slots = BatchSlots(writes)
/// var before = [RecordState?](repeating: nil, count: slots.count)
/// before[slots.ofWrite[0]] = index.records[writes[0].key]
/// ```
struct BatchSlots {
    /// The slot of each write, by the write's offset in the batch.
    let ofWrite: [Int]
    /// The number of distinct records.
    let count: Int
    private let slotByKey: [RecordKey: Int]

    /// Numbers the records of `writes`.
    init(_ writes: [RecordWrite]) {
        self.init(count: writes.count) { writes[$0].key }
    }

    /// Numbers the records of `count` writes, the one at each offset writing `key(offset)`.
    init(count: Int, key: (Int) -> RecordKey) {
        var slotByKey: [RecordKey: Int] = [:]
        slotByKey.reserveCapacity(count)
        var ofWrite: [Int] = []
        ofWrite.reserveCapacity(count)
        // One lookup per write: a new key takes the next slot as it is inserted.
        func slot(_ stored: inout Int) -> Int { stored }
        for offset in 0..<count {
            let next = slotByKey.count
            ofWrite.append(slot(&slotByKey[key(offset), default: next]))
        }
        self.ofWrite = ofWrite
        self.count = slotByKey.count
        self.slotByKey = slotByKey
    }

    /// The slot of `key`, or `nil` when the batch does not write it.
    func slot(of key: RecordKey) -> Int? {
        slotByKey[key]
    }
}
