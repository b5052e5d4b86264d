extension SHA256Digest {
    /// Parses 64 hexadecimal digits from raw bytes (no String on the way), as the index
    /// snapshot reader needs for speed.
    init?<Digits: Collection>(hexDigits: Digits) where Digits.Element == UInt8 {
        guard hexDigits.count == 64 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count = 0
        for character in hexDigits {
            guard let nibble = Self.nibble(character) else { return nil }
            let shifted = UInt64(nibble)
            switch count >> 4 {
            case 0: words.0 = words.0 << 4 | shifted
            case 1: words.1 = words.1 << 4 | shifted
            case 2: words.2 = words.2 << 4 | shifted
            default: words.3 = words.3 << 4 | shifted
            }
            count += 1
        }
        self.init(words.0, words.1, words.2, words.3)
    }
}
