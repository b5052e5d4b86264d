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
