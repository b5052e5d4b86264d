/// Reads the date of an HTTP `Date` header (RFC 9110's IMF-fixdate, `Wed, 25 Nov 2026
/// 09:22:11 GMT`): a server's clock, which a backend sync compares the backend's own
/// timestamps with rather than the local clock.
enum HTTPDate {
    /// Milliseconds since 1970; `nil` for anything but an IMF-fixdate.
    static func milliseconds(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int64(parts[1]), let year = Int64(parts[3]),
              let month = months.firstIndex(of: String(parts[2])).map({ Int64($0) + 1 })
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int64(clock[0]), let minute = Int64(clock[1]), let second = Int64(clock[2]),
              (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = ISO8601Milliseconds.daysFromCivil(year: year, month: month, day: day)
        return days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
