/// A decimal number read from text exactly: sign, significant digits and a power of ten.
///
/// Accepts `[+-]digits[.digits][e[+-]digits]` (also `.5` and `5.`); no spaces, no `NaN`.
/// `"0012.500"` is digits `125`, exponent `-1`.
struct DecimalText: Equatable {
    /// The canonical text is refused past this length, so that `1e1000000` cannot fill memory.
    static let maximumTextLength = 100

    var negative: Bool
    /// The significant digits, no leading or trailing zeros (`[]` for zero), as values 0–9.
    var digits: [UInt8]
    /// The value is `digits × 10^exponent`.
    var exponent: Int

    init?(_ text: String) {
        var bytes = Array(text.utf8)[...]
        negative = bytes.first == UInt8(ascii: "-")
        if negative || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        let whole = bytes.prefix { $0.isASCIIDigit }
        bytes = bytes.dropFirst(whole.count)
        var fraction: ArraySlice<UInt8> = []
        if bytes.first == UInt8(ascii: ".") {
            fraction = bytes.dropFirst().prefix { $0.isASCIIDigit }
            bytes = bytes.dropFirst(1 + fraction.count)
        }
        guard !(whole.isEmpty && fraction.isEmpty) else { return nil }
        var exponent = 0
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            let exponentNegative = bytes.first == UInt8(ascii: "-")
            if exponentNegative || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            let exponentDigits = bytes.prefix { $0.isASCIIDigit }
            guard !exponentDigits.isEmpty, exponentDigits.count <= 6 else { return nil }
            bytes = bytes.dropFirst(exponentDigits.count)
            exponent = exponentDigits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
            if exponentNegative { exponent = -exponent }
        }
        guard bytes.isEmpty else { return nil }
        var all = (whole + fraction).map { $0 - UInt8(ascii: "0") }
        exponent -= fraction.count
        while all.first == 0 { all.removeFirst() }
        while all.last == 0 {
            all.removeLast()
            exponent += 1
        }
        digits = all
        self.exponent = all.isEmpty ? 0 : exponent
        if all.isEmpty { negative = false }
    }

    var significantDigitCount: Int { digits.count }

    var isWhole: Bool { exponent >= 0 }

    /// The value as an `Int64` when it is whole and fits.
    var int64Value: Int64? {
        guard isWhole, digits.count + exponent <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for digit in digits + [UInt8](repeating: 0, count: exponent) {
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            magnitude = sum
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return Int64(exactly: magnitude)
    }

    /// Plain decimal notation: `-1234.5`, `0.001`, `1200`; `0` for zero.
    var canonicalText: String {
        guard !digits.isEmpty else { return "0" }
        let characters = digits.map { Character(Unicode.Scalar($0 + UInt8(ascii: "0"))) }
        var text = negative ? "-" : ""
        if exponent >= 0 {
            text += String(characters) + String(repeating: "0", count: min(exponent, Self.maximumTextLength + 1))
        } else if -exponent >= characters.count {
            text += "0." + String(repeating: "0", count: min(-exponent - characters.count, Self.maximumTextLength + 1))
                + String(characters)
        } else {
            let point = characters.count + exponent
            text += String(characters[..<point]) + "." + String(characters[point...])
        }
        return text
    }
}
