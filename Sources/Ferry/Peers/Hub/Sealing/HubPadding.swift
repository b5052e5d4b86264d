/// How an encrypted hub pads what it seals, so that an object's size says less about what it
/// holds (see docs/FORMAT.md, "Sealed objects"). Chosen at `ferry hub init --encrypt --pad`,
/// kept in the hub's keys, and applied by every writer.
public enum HubPadding: String, Sendable, Hashable, CaseIterable {
    /// No padding: an object is 56 bytes larger than what it holds.
    case none
    /// Up to the next power of two (at least 1 KiB): sizes fall into about 30 classes, at a
    /// cost of up to twice the bytes (a third more on average).
    case powerOfTwo = "power-of-two"
    /// Up to the next multiple of 64 KiB: small objects all look alike, at a cost of up to 64 KiB each.
    case blocks = "64KiB"

    /// The padded length of `count` bytes of content (with its 8-byte length).
    func paddedLength(of count: Int) -> Int {
        switch self {
        case .none:
            return count
        case .powerOfTwo:
            var size = 1024
            while size < count { size <<= 1 }
            return size
        case .blocks:
            let block = 1 << 16
            return max(block, (count + block - 1) / block * block)
        }
    }
}
