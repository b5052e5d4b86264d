extension JSONScanner {
    /// Parses a number starting at `offset` (a `-` or a digit).
    ///
    /// A literal without fraction or exponent that fits in `Int64` is returned exactly. Any
    /// other number becomes the nearest `Double` (see ``JSONValue/parsedNumber(_:)`` for how it
    /// is stored): directly when the decimal significand has at
    /// most 19 digits and is at most 2^53 and the power of ten is within ±22 (both are then
    /// exact doubles and one multiplication or division rounds correctly), otherwise through
    /// the standard library's correctly rounded, locale-independent `Double(_:)`.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = offset
        var index = offset
        let negative = input[index] == UInt8(ascii: "-")
        if negative { index += 1 }

        let integerStart = index
        guard index < input.count else { throw failure("expected a digit after '-'", at: index) }
        switch input[index] {
        case UInt8(ascii: "0"):
            index += 1
            if index < input.count, isDigit(input[index]) {
                throw failure("leading zeros are not allowed", at: integerStart)
            }
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            index += 1
            while index < input.count, isDigit(input[index]) { index += 1 }
        case UInt8(ascii: "I") where has(prefix: "Infinity", at: index):
            throw failure("-Infinity is not valid JSON", at: start)
        default:
            throw failure("expected a digit after '-'", at: index)
        }
        let integerEnd = index

        var fractionEnd = index
        if index < input.count, input[index] == UInt8(ascii: ".") {
            index += 1
            guard index < input.count, isDigit(input[index]) else {
                throw failure("expected a digit after the decimal point", at: index)
            }
            while index < input.count, isDigit(input[index]) { index += 1 }
            fractionEnd = index
        }

        var exponent = 0
        var hasExponent = false
        var exponentIsHuge = false
        if index < input.count, input[index] == UInt8(ascii: "e") || input[index] == UInt8(ascii: "E") {
            hasExponent = true
            index += 1
            var exponentIsNegative = false
            if index < input.count, input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") {
                exponentIsNegative = input[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < input.count, isDigit(input[index]) else {
                throw failure("expected a digit in the exponent", at: index)
            }
            while index < input.count, isDigit(input[index]) {
                if exponent < 1_000_000_000 {
                    exponent = exponent * 10 + Int(input[index] &- UInt8(ascii: "0"))
                } else {
                    exponentIsHuge = true
                }
                index += 1
            }
            if exponentIsNegative { exponent = -exponent }
        }
        offset = index

        if fractionEnd == integerEnd, !hasExponent,
            let integer = exactInteger(digits: integerStart..<integerEnd, negative: negative)
        {
            return .integer(integer)
        }
        let fraction = fractionEnd == integerEnd ? integerEnd..<integerEnd : (integerEnd + 1)..<fractionEnd
        if !exponentIsHuge,
            let double = fastDouble(
                integer: integerStart..<integerEnd, fraction: fraction, exponent: exponent, negative: negative)
        {
            return .parsedNumber(double)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<index]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            let shown = text.count > 40 ? text.prefix(40) + "…" : Substring(text)
            throw failure("number \(shown) is out of range for a double", at: start)
        }
        return .parsedNumber(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// The integer written by the decimal digits in `digits`, or `nil` if it overflows `Int64`.
    private func exactInteger(digits: Range<Int>, negative: Bool) -> Int64? {
        guard digits.count <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for index in digits {
            magnitude = magnitude &* 10 &+ UInt64(input[index] &- UInt8(ascii: "0"))
        }
        // 19 digits cannot overflow UInt64 (its maximum has 20), so only the sign range matters.
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// Clinger's fast path: the exact result when significand and power of ten are both exact.
    private func fastDouble(integer: Range<Int>, fraction: Range<Int>, exponent: Int, negative: Bool) -> Double? {
        var significand: UInt64 = 0
        var significantDigits = 0
        for index in integer.lowerBound..<fraction.upperBound where index != integer.upperBound || fraction.isEmpty {
            let digit = UInt64(input[index] &- UInt8(ascii: "0"))
            if significand == 0 && digit == 0 { continue }
            significantDigits += 1
            guard significantDigits <= 19 else { return nil }
            significand = significand * 10 + digit
        }
        if significand == 0 { return negative ? -0.0 : 0.0 }
        let power = exponent - fraction.count
        guard significand <= 1 << 53, power >= -22, power <= 22 else { return nil }
        var value = Double(significand)
        if power < 0 {
            value /= Self.powersOfTen[-power]
        } else {
            value *= Self.powersOfTen[power]
        }
        return negative ? -value : value
    }

    /// 10^0 through 10^22: the powers of ten a `Double` holds exactly.
    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}

extension JSONValue {
    /// A number read as a `Double`, stored as the parser stores it: an integral value that fits
    /// in `Int64` becomes ``integer(_:)`` (`1e18`, `2.0`, `-0.0`), anything else ``double(_:)``.
    ///
    /// This extends ``number(_:)``, which stops at ±2^53, to the whole `Int64` range. Without
    /// it `1e18` would read as `.double(1e18)`, whose canonical digits `1000000000000000000`
    /// read back as an integer, and parse → canonical → parse would not be the identity.
    static func parsedNumber(_ value: Double) -> JSONValue {
        if let integer = Int64(exactly: value) { return .integer(integer) }
        return .double(value)
    }
}
