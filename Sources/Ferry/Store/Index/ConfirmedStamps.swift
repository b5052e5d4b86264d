import Foundation

/// File stamps that a status scan confirmed for records otherwise unchanged since the image,
/// sorted by the records. index sort keys (see ``IndexRecordLine/sortKey(_:)``).
///
/// The first scan after a large batch confirms every file the batch wrote (their stamps were
/// taken within the timestamp granularity of the write, see ``FileStamp``). Holding each
/// confirmation as a decoded ``RecordState`` in the table's memory cost about 700 bytes per
/// record; a sort key and a stamp cost about a sixth of that, and a image or delta written
/// later copies the record's line with only its stamp field replaced
/// (``IndexRecordLine/line(_:withStamp:)``).
///
/// A record's state in memory always wins over its confirmed stamp.
struct ConfirmedStamps: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        var sortKey: [UInt8]
        var stamp: FileStamp
    }

    /// Sorted by sort key (``ByteOrder/precedes(_:_:)``), one entry per key.
    private(set) var entries: [Entry] = []

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    /// The confirmed stamp of the record with `sortKey`, if any.
    func stamp<Key: ContiguousBytes>(forSortKey sortKey: Key) -> FileStamp? {
        let position = insertionPoint(of: sortKey)
        guard position < entries.count, ByteOrder.compare(entries[position].sortKey, sortKey) == 0 else { return nil }
        return entries[position].stamp
    }

    /// Adds confirmations, sorted by sort key; a new stamp replaces an older one of its record.
    mutating func add(_ sorted: [Entry]) {
        guard !sorted.isEmpty else { return }
        guard !entries.isEmpty else {
            entries = sorted
            return
        }
        var merged: [Entry] = []
        merged.reserveCapacity(entries.count + sorted.count)
        var old = 0
        var new = 0
        while old < entries.count || new < sorted.count {
            guard old < entries.count else {
                merged.append(sorted[new])
                new += 1
                continue
            }
            guard new < sorted.count else {
                merged.append(entries[old])
                old += 1
                continue
            }
            let order = ByteOrder.compare(entries[old].sortKey, sorted[new].sortKey)
            if order < 0 {
                merged.append(entries[old])
                old += 1
            } else {
                if order == 0 { old += 1 }
                merged.append(sorted[new])
                new += 1
            }
        }
        entries = merged
    }

    /// The confirmations not in `earlier` (a different stamp for the same record counts as
    /// new): what was confirmed after `earlier` was copied.
    func subtracting(_ earlier: ConfirmedStamps) -> ConfirmedStamps {
        var result = ConfirmedStamps()
        var other = 0
        for entry in entries {
            while other < earlier.entries.count && ByteOrder.precedes(earlier.entries[other].sortKey, entry.sortKey) { other += 1 }
            if other < earlier.entries.count && earlier.entries[other] == entry { continue }
            result.entries.append(entry)
        }
        return result
    }

    /// A walk over the stamps alongside lines visited in sort order (a image's), cheaper
    /// than a search per line.
    struct Walk {
        fileprivate let entries: [Entry]
        private var next = 0

        fileprivate init(entries: [Entry]) { self.entries = entries }

        /// The stamp of the record with `sortKey`, if any; each call's key must not precede
        /// the previous call's.
        mutating func stamp<Key: ContiguousBytes>(forSortKey sortKey: Key) -> FileStamp? {
            while next < entries.count && ByteOrder.compare(entries[next].sortKey, sortKey) < 0 { next += 1 }
            guard next < entries.count, ByteOrder.compare(entries[next].sortKey, sortKey) == 0 else { return nil }
            return entries[next].stamp
        }
    }

    /// A walk from the first stamp (see ``Walk``).
    func walk() -> Walk { Walk(entries: entries) }

    /// The position of the first entry whose sort key does not precede `sortKey`.
    private func insertionPoint<Key: ContiguousBytes>(of sortKey: Key) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if ByteOrder.compare(entries[middle].sortKey, sortKey) < 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
