extension ImportDate {
    /// Parses an ISO 8601 / RFC 3339 date in the shapes APIs write.
    ///
    /// Accepted, and all read as UTC unless a zone says otherwise:
    /// - date only: `2024-03-05` (midnight UTC);
    /// - date and time separated by `T`, `t` or a space: `2024-03-05T08:15`, `2024-03-05 08:15:30`;
    /// - a fraction of a second after `.` or `,`, 1 to 9 digits, truncated to milliseconds:
    ///   `08:15:30.123456` is `08:15:30.123`;
    /// - no zone (UTC), `Z`/`z`, `UTC`, or an offset `+02:00`, `+0200`, `+02`, `-05:30`, optionally
    ///   after one space (`2024-03-05 08:15:30 +0000`, as Ruby writes it).
    ///
    /// Ranges are checked: month 1–12, day within its month (29 February only in leap years),
    /// hour 0–23, minute 0–59, second 0–60 (a leap second `:60` becomes `:59.999`), offsets up to
    /// ±23:59. Years are 0000–9999 after conversion to UTC.
    ///
    /// ```swift
    /// try ImportDate(iso8601: "2024-03-05T10:15:30.5-05:30").canonicalText // "2024-03-05T15:45:30.500Z"
    /// ```
    /// - Throws: ``ImportError/invalidDate(_:reason:)`` naming what is wrong.
    public init(iso8601 text: String) throws(ImportError) {
        var scanner = DateScanner(text: text)
        self = try scanner.scanISO8601()
    }

    /// Parses any date text an import accepts: the ISO 8601 shapes of ``init(iso8601:)``, or a
    /// unix timestamp written as a numeric string.
    ///
    /// A numeric string (`"1709626530"`, `"-86400"`, `"1709626530.25"`) counts seconds since 1970.
    /// When its whole part has 11 to 19 digits it is taken as milliseconds, microseconds or nanoseconds:
    /// the first 10 digits are the seconds and the rest a fraction, truncated to milliseconds
    /// (`"1709626530123456"` is `2024-03-05T08:15:30.123Z`).
    ///
    /// - Throws: ``ImportError/invalidDate(_:reason:)``.
    public init(parsing text: String) throws(ImportError) {
        if let timestamp = UnixTimestamp(text: text) {
            self = try timestamp.date(for: text)
        } else {
            self = try ImportDate(iso8601: text)
        }
    }

    /// Parses a JSON value as a date: a string as ``init(parsing:)-(String)``, a number as a unix
    /// timestamp in seconds (more than 10 digits: milliseconds or microseconds, as for strings).
    ///
    /// ```swift
    /// try ImportDate(parsing: JSONValue.integer(1_709_626_530_123)).canonicalText // "2024-03-05T08:15:30.123Z"
    /// ```
    /// - Throws: ``ImportError/invalidDate(_:reason:)`` for other kinds and for non-dates.
    public init(parsing value: JSONValue) throws(ImportError) {
        switch value {
        case .string(let text):
            self = try ImportDate(parsing: text)
        case .integer(let integer):
            let text = String(integer)
            guard let timestamp = UnixTimestamp(text: text) else {
                throw .invalidDate(text, reason: "not a timestamp")
            }
            self = try timestamp.date(for: text)
        case .double(let double):
            let text = String(double)
            guard double.isFinite, abs(double) < 1e15 else {
                throw .invalidDate(text, reason: "the number is too large to be a timestamp")
            }
            let whole = Int64(double.rounded(.towardZero))
            if String(abs(whole)).count > 10 {
                self = try ImportDate(parsing: .integer(whole))
            } else {
                let milliseconds = (double * 1000).rounded(.down)
                guard let date = ImportDate(millisecondsSince1970: Int64(milliseconds)) else {
                    throw .invalidDate(text, reason: "it is outside the years 0000–9999")
                }
                self = date
            }
        default:
            throw .invalidDate(value.kindName, reason: "a date is a string or a number, not \(value.kindName == "array" || value.kindName == "object" ? "an" : "a") \(value.kindName)")
        }
    }
}

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

/// A cursor over the UTF-8 bytes of an ISO 8601 date.
struct DateScanner {
    let text: String
    let bytes: [UInt8]
    var position = 0

    init(text: String) {
        self.text = text
        bytes = Array(text.utf8)
    }

    mutating func scanISO8601() throws(ImportError) -> ImportDate {
        var fields = DateFields(
            year: try number(digits: 4, what: "a four-digit year"), month: 0, day: 0)
        try expect("-", what: "'-' after the year")
        fields.month = try number(digits: 2, what: "a two-digit month")
        try expect("-", what: "'-' after the month")
        fields.day = try number(digits: 2, what: "a two-digit day")
        if position < bytes.count {
            let separator = bytes[position]
            guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == UInt8(ascii: " ") else {
                throw failure("expected 'T' or a space after the date")
            }
            position += 1
            try scanTime(into: &fields)
            try scanZone(into: &fields)
        }
        guard position == bytes.count else { throw failure("unexpected text after the date") }
        return try fields.date(for: text)
    }

    mutating func scanTime(into fields: inout DateFields) throws(ImportError) {
        fields.hour = try number(digits: 2, what: "a two-digit hour")
        try expect(":", what: "':' after the hour")
        fields.minute = try number(digits: 2, what: "two-digit minutes")
        guard consume(":") else { return }
        fields.second = try number(digits: 2, what: "two-digit seconds")
        guard consume(".") || consume(",") else { return }
        let start = position
        while position < bytes.count, bytes[position].isASCIIDigit { position += 1 }
        let count = position - start
        guard (1...9).contains(count) else {
            throw failure(count == 0 ? "expected digits after the decimal point" : "more than 9 fraction digits")
        }
        var milliseconds = Int64(0)
        for index in 0..<3 {
            let digit = start + index < position ? Int64(bytes[start + index] - UInt8(ascii: "0")) : 0
            milliseconds = milliseconds * 10 + digit
        }
        fields.millisecond = milliseconds
    }

    mutating func scanZone(into fields: inout DateFields) throws(ImportError) {
        guard position < bytes.count else { return }
        let afterSpace = consume(" ")
        guard position < bytes.count else { throw failure("expected a zone after the space") }
        if consume("Z") || consume("z") { return }
        if bytes[position...].elementsEqual("UTC".utf8) {
            position += 3
            return
        }
        let sign = bytes[position]
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else {
            throw failure(afterSpace ? "expected a zone such as Z or +02:00" : "unexpected text after the time")
        }
        position += 1
        let hours = try number(digits: 2, what: "a two-digit offset hour")
        var minutes = Int64(0)
        if consume(":") {
            minutes = try number(digits: 2, what: "two-digit offset minutes")
        } else if position < bytes.count {
            minutes = try number(digits: 2, what: "two-digit offset minutes")
        }
        guard hours <= 23, minutes <= 59 else { throw failure("the offset is not between -23:59 and +23:59") }
        fields.offsetMinutes = (hours * 60 + minutes) * (sign == UInt8(ascii: "-") ? -1 : 1)
    }

    mutating func number(digits count: Int, what: String) throws(ImportError) -> Int64 {
        guard position + count <= bytes.count,
            bytes[position..<(position + count)].allSatisfy({ $0.isASCIIDigit })
        else { throw failure("expected \(what)") }
        let value = bytes[position..<(position + count)].reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        position += count
        return value
    }

    mutating func expect(_ character: Unicode.Scalar, what: String) throws(ImportError) {
        guard consume(character) else { throw failure("expected \(what)") }
    }

    mutating func consume(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.count, bytes[position] == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    func failure(_ reason: String) -> ImportError {
        .invalidDate(text, reason: reason)
    }
}
