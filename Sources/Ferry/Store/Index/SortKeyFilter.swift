/// A Bloom filter of the sort keys (`<entity>\t<encoded id>`) an index file holds: it answers
/// "certainly not here" for most keys a file lacks, without reading the file.
///
/// A sync into a new store, or an import of new records, looks up every record it writes
/// before writing it, and almost all of those lookups miss. In a image too large to load,
/// each miss read a 16 KB block from the delta and another from the image, which was a
/// third of a million-record join's main thread. The filter is built while the file is read
/// for its sparse index, at about 12 bits per key (1.5 MB for a million records), and lets
/// about one miss in a hundred through to the block.
struct SortKeyFilter {
    private var words: [UInt64]
    private let mask: UInt64
    private static let probes = 7

    /// An empty filter sized for `expectedCount` keys.
    init(expectedCount: Int) {
        var bits: UInt64 = 1 << 10
        let wanted = UInt64(max(1, expectedCount)) &* 12
        while bits < wanted && bits < 1 << 40 { bits <<= 1 }
        words = [UInt64](repeating: 0, count: Int(bits / 64))
        mask = bits - 1
    }

    /// Adds a key.
    mutating func insert<Bytes: Collection>(_ sortKey: Bytes) where Bytes.Element == UInt8 {
        var (position, step) = Self.hashes(sortKey)
        for _ in 0..<Self.probes {
            let bit = position & mask
            words[Int(bit >> 6)] |= 1 << (bit & 63)
            position &+= step
        }
    }

    /// Whether the key may have been added: `false` means it was not.
    func mayContain<Bytes: Collection>(_ sortKey: Bytes) -> Bool where Bytes.Element == UInt8 {
        var (position, step) = Self.hashes(sortKey)
        for _ in 0..<Self.probes {
            let bit = position & mask
            if words[Int(bit >> 6)] & (1 << (bit & 63)) == 0 { return false }
            position &+= step
        }
        return true
    }

    /// Two hashes for double hashing: FNV-1a of the bytes, mixed by splitmix64's finalizer,
    /// and a second mix of it, odd so that the probes of a key are all distinct bits.
    private static func hashes<Bytes: Collection>(_ bytes: Bytes) -> (UInt64, UInt64) where Bytes.Element == UInt8 {
        let first = mix(FNV1a.hash(bytes))
        return (first, mix(first ^ 0x9e37_79b9_7f4a_7c15) | 1)
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
