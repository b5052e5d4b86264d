extension ScopeParser {
    /// A JSON string after its opening quote, with JSON's escapes.
    mutating func scanString() throws(ImportError) -> String {
        let openColumn = position + 1
        position += 1
        var result = String.UnicodeScalarView()
        while position < scalars.count {
            let scalar = scalars[position]
            position += 1
            switch scalar {
            case "\"":
                return String(result)
            case "\\":
                let escapeColumn = position
                guard position < scalars.count else { break }
                let escaped = scalars[position]
                position += 1
                switch escaped {
                case "\"", "\\", "/": result.append(escaped)
                case "b": result.append("\u{08}")
                case "f": result.append("\u{0C}")
                case "n": result.append("\n")
                case "r": result.append("\r")
                case "t": result.append("\t")
                case "u": result.append(try scanUnicodeEscape(column: escapeColumn))
                default: throw failure("invalid escape '\\\(escaped.escaped(asASCII: false))'", at: escapeColumn)
                }
            default:
                guard scalar.value >= 0x20 else { throw failure("control character in a string", at: position) }
                result.append(scalar)
            }
        }
        throw failure("unterminated string", at: openColumn)
    }

    /// After `\u`: four hex digits, and a low surrogate's `\uXXXX` after a high one.
    mutating func scanUnicodeEscape(column: Int) throws(ImportError) -> Unicode.Scalar {
        let high = try scanHex4(column: column)
        if (0xD800...0xDBFF).contains(high) {
            guard position + 1 < scalars.count, scalars[position] == "\\", scalars[position + 1] == "u" else {
                throw failure("a high surrogate must be followed by a low one", at: column)
            }
            position += 2
            let low = try scanHex4(column: column)
            guard (0xDC00...0xDFFF).contains(low),
                let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            else { throw failure("invalid surrogate pair", at: column) }
            return scalar
        }
        guard let scalar = Unicode.Scalar(high) else { throw failure("a lone low surrogate", at: column) }
        return scalar
    }

    mutating func scanHex4(column: Int) throws(ImportError) -> UInt32 {
        guard position + 4 <= scalars.count,
            let value = UInt32(String(String.UnicodeScalarView(scalars[position..<(position + 4)])), radix: 16)
        else { throw failure("expected four hex digits after \\u", at: column) }
        position += 4
        return value
    }

    /// A JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    mutating func scanNumber() throws(ImportError) -> JSONValue {
        let column = position + 1
        let start = position
        func digits() -> Int {
            let begin = position
            while position < scalars.count, ("0"..."9").contains(scalars[position]) { position += 1 }
            return position - begin
        }
        if scalars[position] == "-" { position += 1 }
        let wholeStart = position
        let wholeCount = digits()
        guard wholeCount > 0 else { throw failure("expected a digit after '-'", at: position + 1) }
        if wholeCount > 1, scalars[wholeStart] == "0" { throw failure("a number cannot start with 0", at: wholeStart + 1) }
        var isInteger = true
        if position < scalars.count, scalars[position] == "." {
            position += 1
            isInteger = false
            guard digits() > 0 else { throw failure("expected a digit after '.'", at: position + 1) }
        }
        if position < scalars.count, scalars[position] == "e" || scalars[position] == "E" {
            position += 1
            isInteger = false
            if position < scalars.count, scalars[position] == "+" || scalars[position] == "-" { position += 1 }
            guard digits() > 0 else { throw failure("expected a digit in the exponent", at: position + 1) }
        }
        if position < scalars.count, Self.isWordScalar(scalars[position]) {
            throw failure("unexpected character after a number", at: position + 1)
        }
        let literal = String(String.UnicodeScalarView(scalars[start..<position]))
        if isInteger, let integer = Int64(literal) { return .integer(integer) }
        guard let double = Double(literal), double.isFinite else { throw failure("the number is out of range", at: column) }
        return .number(double)
    }

    /// A literal written back in the scope language (JSON text).
    static func literalText(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let integer): return String(integer)
        case .double(let double): return String(double)
        case .string(let text):
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\t": result += "\\t"
                case "\r": result += "\\r"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result + "\""
        case .array, .object: return "null"
        }
    }

    /// `now`, or `now-24h` with the largest unit that divides the offset.
    static func relativeTimeText(_ offset: Int64) -> String {
        guard offset != 0 else { return "now" }
        let magnitude = offset.magnitude
        let units: [(String, UInt64)] = [("w", 604_800_000), ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        let (unit, size) = units.first { magnitude % $0.1 == 0 } ?? ("s", 1000)
        return "now" + (offset < 0 ? "-" : "+") + String(magnitude / size) + unit
    }
}
