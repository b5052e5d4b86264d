/// Hashing for keys that are hashed far more often than they are made (``RecordKey``): the
/// key works out a `Hasher` digest of its bytes once, and each table lookup only mixes that
/// digest with the table's seed.
///
/// It costs eight bytes per key. ``ReplicaID`` does without: its lookups were a sixth of
/// record keys' and its extra bytes, in every version of every record, took the store bench
/// over its memory target.
///
/// Starting a `Hasher` for every lookup cost more than the rest of the lookup in a large
/// batch. The digest comes from `Hasher`, which is seeded at random per process, so keys
/// chosen to collide (an import or a peer controls record ids) still cannot be found; the mix
/// is a bijection (splitmix64's finalizer), so it spreads the digest without losing any of it.
enum PrecomputedHash {
    /// The digest of what `feed` gives a hasher.
    static func digest(_ feed: (inout Hasher) -> Void) -> Int {
        var hasher = Hasher()
        feed(&hasher)
        return hasher.finalize()
    }

    /// The value for `_rawHashValue(seed:)`: `digest` mixed with a table's `seed`.
    @inline(__always)
    static func rawHashValue(_ digest: Int, seed: Int) -> Int {
        var mixed = UInt64(UInt(bitPattern: digest)) ^ UInt64(UInt(bitPattern: seed))
        mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 31))
    }
}
