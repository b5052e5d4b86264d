/// Which of ``count`` partitions a record belongs to: FNV-1a of its index sort key
/// (`<entity><tab><encoded id>`), the same whether it is read from a journal entry, an index
/// line or a file name.
struct ReplayPartitioning: Sendable {
    let count: Int

    init(count: Int) { self.count = max(1, count) }

    /// The partition of an index line's sort key.
    func partition<Bytes: Sequence>(ofSortKey bytes: Bytes) -> Int where Bytes.Element == UInt8 {
        guard count > 1 else { return 0 }
        return Int(FNV1a.hash(bytes) % UInt64(count))
    }

    /// The partition of `key`.
    func partition(of key: RecordKey) -> Int {
        guard count > 1 else { return 0 }
        return partition(ofSortKey: IndexRecordLine.sortKey(key))
    }
}
