/// Lowercase hexadecimal text of bytes, and back: how keys and signatures are written in JSON.
enum HexText {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Appends two lowercase digits a byte.
    static func append(_ bytes: some Collection<UInt8>, to output: inout [UInt8]) {
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0f)])
        }
    }

    /// The text of `bytes`.
    static func string(_ bytes: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        append(bytes, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of an even number of hex digits (either case); `nil` for anything else.
    static func bytes(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(text.count / 2)
        var high: UInt8?
        for character in text {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let first = high {
                result.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return result
    }

    /// The bytes of a hex string.
    static func bytes(_ text: String) -> [UInt8]? { bytes(Array(text.utf8)) }
}
