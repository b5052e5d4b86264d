/// An instant as import stores it: milliseconds since 1970 in UTC, written in one canonical
/// form, `yyyy-MM-ddTHH:mm:ss.SSSZ`.
///
/// Remote APIs write dates in many shapes; import turns every one of them into the canonical
/// form so that stored dates compare as text and diff cleanly:
///
/// ```swift
/// try ImportDate(parsing: "2024-03-05T10:15:30+02:00").canonicalText // "2024-03-05T08:15:30.000Z"
/// try ImportDate(parsing: "2024-03-05").canonicalText                 // "2024-03-05T00:00:00.000Z"
/// try ImportDate(parsing: .integer(1_709_626_530)).canonicalText      // "2024-03-05T08:15:30.000Z"
/// ```
///
/// The parsers work on UTF-8 bytes by hand: no `DateFormatter`, no locale, no time zone
/// database. See ``init(iso8601:)`` and ``init(parsing:)-(String)`` for the accepted shapes.
public struct ImportDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z; negative before.
    public let millisecondsSince1970: Int64

    /// The instants the canonical form can write: years 0000 to 9999.
    public static let representableMilliseconds: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// Wraps a number of milliseconds; `nil` outside ``representableMilliseconds``.
    public init?(millisecondsSince1970: Int64) {
        guard Self.representableMilliseconds.contains(millisecondsSince1970) else { return nil }
        self.millisecondsSince1970 = millisecondsSince1970
    }

    init(uncheckedMilliseconds: Int64) { millisecondsSince1970 = uncheckedMilliseconds }

    /// Parses only the canonical form, `yyyy-MM-ddTHH:mm:ss.SSSZ` (24 characters), as stored
    /// records hold it; for comparing stored dates without guessing.
    ///
    /// ```swift
    /// try ImportDate(canonical: "1970-01-01T00:00:01.500Z").millisecondsSince1970 // 1500
    /// ```
    /// - Throws: ``ImportError/invalidDate(_:reason:)`` for any other text.
    public init(canonical text: String) throws(ImportError) {
        let bytes = Array(text.utf8)
        let shape: [UInt8] = Array("dddd-dd-ddTdd:dd:dd.dddZ".utf8)
        guard bytes.count == shape.count else {
            throw .invalidDate(text, reason: "the canonical form is yyyy-MM-ddTHH:mm:ss.SSSZ")
        }
        for (byte, expected) in zip(bytes, shape) {
            let matches = expected == UInt8(ascii: "d") ? byte.isASCIIDigit : byte == expected
            guard matches else { throw .invalidDate(text, reason: "the canonical form is yyyy-MM-ddTHH:mm:ss.SSSZ") }
        }
        func number(_ range: Range<Int>) -> Int64 {
            bytes[range].reduce(0) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        }
        let fields = DateFields(
            year: number(0..<4), month: number(5..<7), day: number(8..<10),
            hour: number(11..<13), minute: number(14..<16), second: number(17..<19),
            millisecond: number(20..<23), offsetMinutes: 0)
        self = try fields.date(for: text)
    }

    /// The canonical text, `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC.
    public var canonicalText: String {
        let days = Self.floorDivide(millisecondsSince1970, 86_400_000)
        let millisecondOfDay = millisecondsSince1970 - days * 86_400_000
        let (year, month, day) = Self.civil(fromDays: days)
        let second = millisecondOfDay / 1000
        return Self.padded(year, 4) + "-" + Self.padded(month, 2) + "-" + Self.padded(day, 2)
            + "T" + Self.padded(second / 3600, 2) + ":" + Self.padded(second / 60 % 60, 2)
            + ":" + Self.padded(second % 60, 2) + "." + Self.padded(millisecondOfDay % 1000, 3) + "Z"
    }

    public var description: String { canonicalText }

    public static func < (lhs: ImportDate, rhs: ImportDate) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }
}

// MARK: - Calendar arithmetic (proleptic Gregorian; the algorithms live in ISO8601Milliseconds)

extension ImportDate {
    /// Days since 1970-01-01 of a valid civil date.
    static func days(fromCivilYear year: Int64, month: Int64, day: Int64) -> Int64 {
        ISO8601Milliseconds.daysFromCivil(year: year, month: month, day: day)
    }

    /// The civil date of a number of days since 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        ISO8601Milliseconds.civilDate(fromDays: days)
    }

    static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        ISO8601Milliseconds.daysInMonth(year: year, month: month)
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
