/// The fields of a date as written, before validation and conversion to UTC.
struct DateFields {
    var year: Int64
    var month: Int64
    var day: Int64
    var hour: Int64 = 0
    var minute: Int64 = 0
    var second: Int64 = 0
    var millisecond: Int64 = 0
    /// The written offset from UTC: `+02:00` is 120.
    var offsetMinutes: Int64 = 0

    static let monthNames = [
        "January", "February", "March", "April", "May", "June",
        "July", "August", "September", "October", "November", "December",
    ]

    /// Validates the ranges and converts to an instant; `text` is only for the error.
    func date(for text: String) throws(ImportError) -> ImportDate {
        guard (1...12).contains(month) else { throw .invalidDate(text, reason: "month \(month) is not 1–12") }
        let monthLength = ImportDate.daysInMonth(month, year: year)
        guard (1...monthLength).contains(day) else {
            throw .invalidDate(text, reason: "day \(day) is not in \(Self.monthNames[Int(month) - 1]) \(year)")
        }
        guard (0...23).contains(hour) else { throw .invalidDate(text, reason: "hour \(hour) is not 0–23") }
        guard (0...59).contains(minute) else { throw .invalidDate(text, reason: "minute \(minute) is not 0–59") }
        guard (0...60).contains(second) else { throw .invalidDate(text, reason: "second \(second) is not 0–60") }
        // A leap second (:60) is kept as the last millisecond of its minute.
        let (second, millisecond) = second == 60 ? (Int64(59), Int64(999)) : (second, millisecond)
        let days = ImportDate.days(fromCivilYear: year, month: month, day: day)
        let local = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond
        let milliseconds = local - offsetMinutes * 60_000
        guard let date = ImportDate(millisecondsSince1970: milliseconds) else {
            throw .invalidDate(text, reason: "it is outside the years 0000–9999 in UTC")
        }
        return date
    }
}
