/// Finds the bytes that end a plain run of string text, eight bytes at a time.
///
/// The parser and the writer both spend most of their time walking over string contents that
/// need no attention. Each word of eight bytes is tested at once with the classic SWAR tests
/// ("does any byte equal c", "is any byte below n"); only a word that may hold a byte of
/// interest is looked at byte by byte. The tests are exact about *whether* a word has such a
/// byte, so no byte is missed, and the byte-by-byte pass finds exactly which one.
enum JSONByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The index of the first byte at or after `start` that the parser must look at inside a
    /// string: `"`, `\`, a control character or any non-ASCII byte; `bytes.count` if none.
    @inline(__always)
    static func firstSpecialParserByte(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let special = hasByte(0x22, in: word) || hasByte(0x5C, in: word) || hasByteBelow0x20(word)
                if special || word & highBits != 0 { break }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { return index }
            index += 1
        }
        return index
    }

    /// The index of the first byte at or after `start` that the canonical form escapes:
    /// `"`, `\` or a control character; `bytes.count` if none.
    static func firstByteToEscape(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        guard let base = bytes.baseAddress else { return index }
        let raw = UnsafeRawPointer(base)
        while true {
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if hasByte(0x22, in: word) || hasByte(0x5C, in: word) || hasByteBelow0x20(word) { break }
                index += 8
            }
            let end = min(index + 8, bytes.count)
            while index < end {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return index }
                index += 1
            }
            if index == bytes.count { return index }
        }
    }

    @inline(__always)
    private static func hasByte(_ value: UInt8, in word: UInt64) -> Bool {
        let spread = word ^ (ones &* UInt64(value))
        return (spread &- ones) & ~spread & highBits != 0
    }

    @inline(__always)
    private static func hasByteBelow0x20(_ word: UInt64) -> Bool {
        (word &- ones &* 0x20) & ~word & highBits != 0
    }
}
