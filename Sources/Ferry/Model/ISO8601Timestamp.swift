import Foundation

/// The timestamp form Ferry's JSON uses for dates: ISO 8601 in UTC with milliseconds,
/// `2024-05-01T12:30:00.250Z`.
///
/// Formatting and parsing are plain arithmetic on the proleptic Gregorian calendar (no
/// `DateFormatter`, no locale, no time zone database), so every replica writes the same text.
enum ISO8601Timestamp {
    private static let millisecondsPerDay: Int64 = 86_400_000
    /// 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    private static let representableMilliseconds: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`, rounded to the nearest millisecond; `nil` for dates
    /// outside the years 0001–9999.
    static func string(from date: Date) -> String? {
        let scaled = (date.timeIntervalSince1970 * 1000).rounded()
        guard let milliseconds = Int64(exactly: scaled), representableMilliseconds.contains(milliseconds) else {
            return nil
        }
        let days = floorDivide(milliseconds, millisecondsPerDay)
        let timeOfDay = milliseconds - days * millisecondsPerDay
        let (year, month, day) = civilDate(fromDaysSince1970: days)
        return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2) + "T"
            + padded(timeOfDay / 3_600_000, 2) + ":" + padded(timeOfDay / 60_000 % 60, 2) + ":"
            + padded(timeOfDay / 1000 % 60, 2) + "." + padded(timeOfDay % 1000, 3) + "Z"
    }

    /// Reads `yyyy-MM-ddTHH:mm:ss`, optionally followed by a fraction of 1–9 digits, then `Z`
    /// or an offset `±HH:MM`; `nil` for anything else or an impossible date.
    static func date(from text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<(index + width)] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            index += width
            return value
        }
        func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2),
            skip("T"), let hour = number(2), skip(":"), let minute = number(2), skip(":"),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }

        var nanoseconds: Int64 = 0
        if skip(".") {
            var digits = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                digits += 1
                guard digits <= 9 else { return nil }
                nanoseconds = nanoseconds * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<9 { nanoseconds *= 10 }
        }

        var offsetSeconds: Int64 = 0
        if skip("Z") {
            offsetSeconds = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(2), skip(":"), let offsetMinutes = number(2),
                offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }

        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }

    // MARK: - Calendar arithmetic (shared with ISO8601Milliseconds)

    private static func civilDate(fromDaysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        ISO8601Milliseconds.civilDate(fromDays: days)
    }

    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        ISO8601Milliseconds.daysFromCivil(year: year, month: month, day: day)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        ISO8601Milliseconds.daysInMonth(year: year, month: month)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    private static func padded(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
