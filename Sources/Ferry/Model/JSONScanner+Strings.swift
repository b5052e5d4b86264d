extension JSONScanner {
    /// Parses a string whose opening quote is at `offset`, leaving `offset` after the closing one.
    ///
    /// Plain ASCII runs are scanned without copying and become a `String` in one step; only a
    /// string with escapes is assembled in ``scratch``. Non-ASCII bytes are validated as UTF-8
    /// here, so the final `String(decoding:as:)` never has anything to repair.
    mutating func parseString() throws(JSONParseError) -> String {
        let start = offset + 1
        let index = JSONByteScan.firstSpecialParserByte(in: input, from: start)
        if index < input.count, input[index] == UInt8(ascii: "\"") {
            offset = index + 1
            return makeString(start..<index)
        }
        offset = index
        return try parseStringSlowly(from: start)
    }

    private mutating func parseStringSlowly(from start: Int) throws(JSONParseError) -> String {
        var usesScratch = false
        var runStart = start
        while offset < input.count {
            let byte = input[offset]
            if byte == UInt8(ascii: "\"") {
                defer { offset += 1 }
                guard usesScratch else { return makeString(start..<offset) }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<offset]))
                return String(decoding: scratch, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                if !usesScratch {
                    scratch.removeAll(keepingCapacity: true)
                    usesScratch = true
                }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<offset]))
                guard offset + 1 < input.count else { break }
                try parseEscape()
                runStart = offset
            } else if byte < 0x20 {
                throw failure(
                    "control character U+00\(Self.hex(byte).uppercased()) must be escaped in a string", at: offset)
            } else if byte < 0x80 {
                offset = JSONByteScan.firstSpecialParserByte(in: input, from: offset + 1)
            } else {
                try skipUTF8Sequence()
            }
        }
        throw failure("unterminated string", at: start - 1)
    }

    private func makeString(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: input[range]), as: UTF8.self)
    }

    /// Decodes the escape whose backslash is at `offset`, with at least one byte after it,
    /// into ``scratch``.
    private mutating func parseEscape() throws(JSONParseError) {
        let start = offset
        let simple: UInt8
        switch input[offset + 1] {
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            try parseUnicodeEscape()
            return
        default:
            let byte = input[offset + 1]
            let shown = byte >= 0x21 && byte < 0x7F ? String(Unicode.Scalar(byte)) : "<byte 0x\(Self.hex(byte))>"
            throw failure("invalid escape sequence \\\(shown)", at: start)
        }
        scratch.append(simple)
        offset += 2
    }

    /// Decodes `\uXXXX`, or a surrogate pair `\uD83D\uDE00`, at `offset` into ``scratch``.
    private mutating func parseUnicodeEscape() throws(JSONParseError) {
        let start = offset
        guard let unit = hexQuad(at: offset + 2) else {
            throw failure("invalid \\u escape; expected four hex digits", at: start)
        }
        offset += 6
        let scalarValue: UInt32
        switch unit {
        case 0xD800...0xDBFF:
            guard offset + 1 < input.count, input[offset] == UInt8(ascii: "\\"),
                input[offset + 1] == UInt8(ascii: "u"),
                let low = hexQuad(at: offset + 2), (0xDC00...0xDFFF).contains(low)
            else {
                throw failure("unpaired surrogate \\u\(hexQuadText(unit))", at: start)
            }
            offset += 6
            scalarValue = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        case 0xDC00...0xDFFF:
            throw failure("unpaired surrogate \\u\(hexQuadText(unit))", at: start)
        default:
            scalarValue = unit
        }
        appendUTF8(scalarValue)
    }

    /// The value of four hex digits at `index`, or `nil`.
    private func hexQuad(at index: Int) -> UInt32? {
        guard index + 4 <= input.count else { return nil }
        var value: UInt32 = 0
        for position in index..<(index + 4) {
            let byte = input[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private func hexQuadText(_ unit: UInt32) -> String {
        let digits = String(unit, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private mutating func appendUTF8(_ value: UInt32) {
        switch value {
        case 0..<0x80:
            scratch.append(UInt8(value))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | value >> 6))
            scratch.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | value >> 12))
            scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | value >> 18))
            scratch.append(UInt8(0x80 | value >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | value >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        }
    }

    /// Checks the multi-byte UTF-8 sequence whose lead byte is at `offset` and skips it.
    ///
    /// Follows the well-formed table of Unicode §3.9 (D92): no overlong forms, no encoded
    /// surrogates, nothing above U+10FFFF.
    private mutating func skipUTF8Sequence() throws(JSONParseError) {
        let lead = input[offset]
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        var rangeProblem = ""
        switch lead {
        case 0xC2...0xDF:
            length = 2
        case 0xE0:
            length = 3
            secondRange = 0xA0...0xBF
            rangeProblem = "overlong encoding"
        case 0xE1...0xEC, 0xEE...0xEF:
            length = 3
        case 0xED:
            length = 3
            secondRange = 0x80...0x9F
            rangeProblem = "encodes a surrogate code point"
        case 0xF0:
            length = 4
            secondRange = 0x90...0xBF
            rangeProblem = "overlong encoding"
        case 0xF1...0xF3:
            length = 4
        case 0xF4:
            length = 4
            secondRange = 0x80...0x8F
            rangeProblem = "encodes a code point above U+10FFFF"
        case 0x80...0xBF:
            throw failure("invalid UTF-8 byte 0x\(Self.hex(lead)): unexpected continuation byte", at: offset)
        case 0xC0, 0xC1:
            throw failure("invalid UTF-8 byte 0x\(Self.hex(lead)): overlong encoding", at: offset)
        default:
            throw failure("invalid UTF-8 byte 0x\(Self.hex(lead))", at: offset)
        }
        for position in (offset + 1)..<(offset + length) {
            guard position < input.count, input[position] & 0xC0 == 0x80 else {
                throw failure("invalid UTF-8 byte 0x\(Self.hex(lead)): incomplete multi-byte sequence", at: offset)
            }
        }
        guard secondRange.contains(input[offset + 1]) else {
            throw failure("invalid UTF-8 byte 0x\(Self.hex(lead)): \(rangeProblem)", at: offset)
        }
        offset += length
    }
}
