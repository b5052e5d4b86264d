/// The 64-bit FNV-1a hash of a byte sequence: quick, stable across runs and platforms, and
/// good enough to spread sort keys over partitions or a filter's bits (mix it for the latter).
enum FNV1a {
    static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
