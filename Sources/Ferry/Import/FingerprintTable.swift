/// A set of 64-bit fingerprints, each with three bits of flags, in 8 bytes a slot: an
/// open-addressing table with linear probing, kept at most 70% full (about 11 bytes an entry;
/// a `Dictionary` of a 128-bit key and its bookkeeping took about 40).
///
/// A fingerprint keeps its high 61 bits; two that differ only in the low three are one entry
/// (and one whose high bits are all zero is kept as 8).
/// The caller decides what a shared entry means (``ImportTouchLedger`` treats one as a possible
/// dependency, which is safe).
struct FingerprintTable {
    private var slots: [UInt64]
    private(set) var count = 0

    /// An empty table with room for about `capacity` entries before it grows.
    init(capacity: Int = 1_024) {
        var size = 16
        while size * 7 / 10 < capacity { size *= 2 }
        slots = [UInt64](repeating: 0, count: size)
    }

    /// The flags of `fingerprint`, or `nil` when it is not in the table.
    func flags(of fingerprint: UInt64) -> UInt8? {
        let key = Self.key(fingerprint)
        let mask = slots.count - 1
        var index = Self.start(key, mask: mask)
        while true {
            let slot = slots[index]
            if slot == 0 { return nil }
            if slot & ~7 == key { return UInt8(truncatingIfNeeded: slot & 7) }
            index = (index + 1) & mask
        }
    }

    /// Adds `flags` to those of `fingerprint`, adding it when it is not in the table.
    mutating func insert(_ fingerprint: UInt64, flags: UInt8) {
        if (count + 1) * 10 > slots.count * 7 { grow() }
        let key = Self.key(fingerprint)
        let mask = slots.count - 1
        var index = Self.start(key, mask: mask)
        while true {
            let slot = slots[index]
            if slot == 0 {
                slots[index] = key | UInt64(flags & 7)
                count += 1
                return
            }
            if slot & ~7 == key {
                slots[index] = slot | UInt64(flags & 7)
                return
            }
            index = (index + 1) & mask
        }
    }

    /// The high 61 bits of a fingerprint, never zero (zero marks an empty slot).
    private static func key(_ fingerprint: UInt64) -> UInt64 {
        let key = fingerprint & ~7
        return key == 0 ? 8 : key
    }

    /// Where the probe for `key` starts: its bits mixed again, since the low ones are flags.
    private static func start(_ key: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 20) & mask
    }

    /// Doubles the table, placing every entry again.
    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        count = 0
        let mask = slots.count - 1
        for slot in old where slot != 0 {
            var index = Self.start(slot & ~7, mask: mask)
            while slots[index] != 0 { index = (index + 1) & mask }
            slots[index] = slot
            count += 1
        }
    }
}
