/// A 32-byte SHA-256 digest, stored inline as four words (no heap allocation), so millions of
/// them can be kept in memory cheaply.
///
/// ```swift
/// let digest = SHA256.hash(Array("abc".utf8))
/// print(digest)                                   // ba7816bf…f20015ad (64 hex digits)
/// SHA256Digest(hex: digest.hex) == digest         // true
/// ```
public struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    // The digest's bytes in order, eight to a word, big-endian: `word0`'s high byte is byte 0.
    private let word0: UInt64
    private let word1: UInt64
    private let word2: UInt64
    private let word3: UInt64

    /// The digest as four big-endian words, for compact binary storage (see ``init(_:_:_:_:)``).
    var words: (UInt64, UInt64, UInt64, UInt64) { (word0, word1, word2, word3) }

    /// The number of bytes in a digest.
    public static let byteCount = 32

    /// The digest of all zero bytes, used where a chain has no predecessor.
    public static let zero = SHA256Digest(0, 0, 0, 0)

    init(_ word0: UInt64, _ word1: UInt64, _ word2: UInt64, _ word3: UInt64) {
        self.word0 = word0
        self.word1 = word1
        self.word2 = word2
        self.word3 = word3
    }

    /// Wraps 32 raw digest bytes, as read back from storage.
    ///
    /// - Parameter bytes: Exactly 32 bytes.
    /// - Returns: `nil` when `bytes` is not 32 bytes long.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        func word(_ index: Int) -> UInt64 {
            var value: UInt64 = 0
            for byte in bytes[(index * 8)..<(index * 8 + 8)] { value = value << 8 | UInt64(byte) }
            return value
        }
        self.init(word(0), word(1), word(2), word(3))
    }

    /// Parses 64 hexadecimal digits, upper or lower case.
    ///
    /// ```swift
    /// SHA256Digest(hex: String(repeating: "0", count: 64)) == .zero  // true
    /// SHA256Digest(hex: "abc")                                       // nil
    /// ```
    /// - Parameter hex: The digits, with nothing around them.
    /// - Returns: `nil` when `hex` is not exactly 64 hexadecimal digits.
    public init?(hex: String) {
        // Fast path over the string's contiguous UTF-8: journal replay reads two digests a line.
        if let parsed = hex.utf8.withContiguousStorageIfAvailable({ Self.parse(hexDigits: $0) }) {
            guard let parsed else { return nil }
            self = parsed
            return
        }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count = 0
        for character in hex.utf8 {
            guard count < 64, let nibble = Self.nibble(character) else { return nil }
            let shifted = UInt64(nibble)
            switch count / 16 {
            case 0: words.0 = words.0 << 4 | shifted
            case 1: words.1 = words.1 << 4 | shifted
            case 2: words.2 = words.2 << 4 | shifted
            default: words.3 = words.3 << 4 | shifted
            }
            count += 1
        }
        guard count == 64 else { return nil }
        self.init(words.0, words.1, words.2, words.3)
    }

    /// Parses 64 hexadecimal digits from raw bytes by table (the generic byte reader's fast
    /// path, for verify's and the index reader's millions of digests).
    init?(hexDigits: UnsafeRawBufferPointer) {
        guard let parsed = Self.parse(hexDigits: hexDigits.assumingMemoryBound(to: UInt8.self)) else { return nil }
        self = parsed
    }

    /// Parses 64 hexadecimal digits from a slice of bytes by table.
    init?(hexDigits: ArraySlice<UInt8>) {
        guard let parsed = hexDigits.withUnsafeBufferPointer({ Self.parse(hexDigits: $0) }) else { return nil }
        self = parsed
    }

    /// The 32 digest bytes, in order.
    public var bytes: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(Self.byteCount)
        for word in [word0, word1, word2, word3] {
            for shift in stride(from: 56, through: 0, by: -8) { result.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return result
    }

    /// The digest as 64 lowercase hexadecimal digits.
    public var hex: String {
        String(unsafeUninitializedCapacity: 64) { buffer in
            writeHexDigits(to: buffer)
            return 64
        }
    }

    /// Appends the 64 lowercase hexadecimal digits to `output`, without making a String (for
    /// writers of many digests, such as verify's expected index lines).
    func appendHexDigits(to output: inout [UInt8]) {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: 64))
        output.withUnsafeMutableBufferPointer { buffer in
            writeHexDigits(to: UnsafeMutableBufferPointer(rebasing: buffer[start..<(start + 64)]))
        }
    }

    /// Writes the 64 digits into `buffer` (at least 64 bytes).
    private func writeHexDigits(to buffer: UnsafeMutableBufferPointer<UInt8>) {
        let digits: StaticString = "0123456789abcdef"
        digits.withUTF8Buffer { table in
            func write(_ word: UInt64, at start: Int) {
                for offset in 0..<16 { buffer[start + offset] = table[Int((word >> UInt64(60 - 4 * offset)) & 0xF)] }
            }
            write(word0, at: 0)
            write(word1, at: 16)
            write(word2, at: 32)
            write(word3, at: 48)
        }
    }

    /// The same as ``hex``.
    public var description: String { hex }

    /// Reads exactly 64 hexadecimal digits.
    private static func parse(hexDigits digits: UnsafeBufferPointer<UInt8>) -> SHA256Digest? {
        guard digits.count == 64 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var invalid: UInt8 = 0
        hexValues.withUnsafeBufferPointer { table in
            func word(_ index: Int) -> UInt64 {
                var value: UInt64 = 0
                for offset in (index &* 16)..<(index &* 16 &+ 16) {
                    let nibble = table[Int(digits[offset])]
                    invalid |= nibble
                    value = value &<< 4 | UInt64(nibble & 0x0F)
                }
                return value
            }
            words = (word(0), word(1), word(2), word(3))
        }
        guard invalid & 0x10 == 0 else { return nil }
        return SHA256Digest(words.0, words.1, words.2, words.3)
    }

    static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// Each byte's value as a hexadecimal digit, or 0x10 for a byte that is not one: a table, so
/// reading a digest needs no branches.
private let hexValues: [UInt8] = {
    var table = [UInt8](repeating: 0x10, count: 256)
    for (offset, digit) in "0123456789".utf8.enumerated() { table[Int(digit)] = UInt8(offset) }
    for (offset, digit) in "abcdef".utf8.enumerated() { table[Int(digit)] = UInt8(10 + offset) }
    for (offset, digit) in "ABCDEF".utf8.enumerated() { table[Int(digit)] = UInt8(10 + offset) }
    return table
}()
