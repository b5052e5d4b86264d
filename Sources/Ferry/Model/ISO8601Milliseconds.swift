/// Formats and reads Ferry's one timestamp form, ISO 8601 in UTC with milliseconds:
/// `2026-11-21T20:34:43.123Z`. Written by hand: no DateFormatter, no locale.
public enum ISO8601Milliseconds {
    /// Formats milliseconds since 1970 (UTC).
    public static func format(milliseconds: UInt64) -> String {
        format(signedMilliseconds: Int64(clamping: milliseconds))
    }

    /// Formats signed milliseconds since 1970 (UTC), for dates before 1970 too.
    public static func format(signedMilliseconds: Int64) -> String {
        let days = floorDivide(signedMilliseconds, 86_400_000)
        let withinDay = signedMilliseconds - days * 86_400_000
        let (year, month, day) = civilDate(fromDays: days)
        let hour = withinDay / 3_600_000
        let minute = withinDay / 60_000 % 60
        let second = withinDay / 1000 % 60
        let millisecond = withinDay % 1000
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(hour, 2) + ":" + pad(minute, 2)
            + ":" + pad(second, 2) + "." + pad(millisecond, 3) + "Z"
    }

    /// Reads the exact form `format` writes; `nil` for anything else.
    public static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58,
            bytes[16] == 58, bytes[19] == 46, bytes[23] == 90
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                guard bytes[index].isASCIIDigit else { return nil }
                value = value * 10 + Int64(bytes[index] - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            let millisecond = number(20..<23), (1...12).contains(month), day >= 1,
            day <= daysInMonth(year: year, month: month), hour < 24, minute < 60, second < 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + millisecond
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day number since 1970-01-01.
    public static func civilDate(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The number of days in a month, leap years included.
    public static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : (a - b + 1) / b
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
