/// A unix timestamp written in decimal: `-?digits(.digits)?`.
struct UnixTimestamp {
    var negative: Bool
    var wholeDigits: [UInt8]
    var fractionDigits: [UInt8]

    /// `nil` unless `text` is a plain decimal number.
    init?(text: String) {
        var bytes = Array(text.utf8)[...]
        negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        let whole = bytes.prefix { $0.isASCIIDigit }
        bytes = bytes.dropFirst(whole.count)
        var fraction: ArraySlice<UInt8> = []
        if bytes.first == UInt8(ascii: ".") {
            fraction = bytes.dropFirst().prefix { $0.isASCIIDigit }
            guard !fraction.isEmpty else { return nil }
            bytes = bytes.dropFirst(1 + fraction.count)
        }
        guard !whole.isEmpty, bytes.isEmpty else { return nil }
        wholeDigits = Array(whole)
        fractionDigits = Array(fraction)
    }

    func date(for text: String) throws(ImportError) -> ImportDate {
        // More than 10 whole digits: milliseconds or microseconds; the digits past the tenth
        // are a fraction of a second.
        guard wholeDigits.count <= 19 else {
            throw .invalidDate(text, reason: "a timestamp has at most 19 digits (nanoseconds)")
        }
        var seconds = wholeDigits
        var fraction = fractionDigits
        if seconds.count > 10 {
            fraction = Array(seconds[10...]) + fraction
            seconds = Array(seconds[..<10])
        }
        let wholeSeconds = seconds.reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        var milliseconds = Int64(0)
        for position in 0..<3 {
            let digit = position < fraction.count ? Int64(fraction[position] - UInt8(ascii: "0")) : 0
            milliseconds = milliseconds * 10 + digit
        }
        let truncated = fraction.count > 3 && fraction[3...].contains { $0 != UInt8(ascii: "0") }
        var total = wholeSeconds * 1000 + milliseconds
        if negative {
            // Truncation toward the past: -0.0015 s is -2 ms, like the positive side's floor.
            total = -total - (truncated ? 1 : 0)
        }
        guard let date = ImportDate(millisecondsSince1970: total) else {
            throw .invalidDate(text, reason: "it is outside the years 0000–9999")
        }
        return date
    }
}
