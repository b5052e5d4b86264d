import Testing
@testable import Ferry

@Suite struct ImportDateTests {
    static let shapes: [(String, String)] = [
        ("2024-03-05", "2024-03-05T00:00:00.000Z"),
        ("2024-03-05T08:15:30", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05 08:15:30", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05t08:15:30z", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05T08:15", "2024-03-05T08:15:00.000Z"),
        ("2024-03-05T08:15:30Z", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05T08:15:30+00:00", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05T08:15:30+0000", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05T10:15:30+02:00", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05T10:15:30+02", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05T02:45:30-05:30", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05 08:15:30 +0000", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05 08:15:30 UTC", "2024-03-05T08:15:30.000Z"),
        ("2024-03-05T08:15:30.1Z", "2024-03-05T08:15:30.100Z"),
        ("2024-03-05T08:15:30.12Z", "2024-03-05T08:15:30.120Z"),
        ("2024-03-05T08:15:30.123Z", "2024-03-05T08:15:30.123Z"),
        ("2024-03-05T08:15:30.1239Z", "2024-03-05T08:15:30.123Z"),
        ("2024-03-05T08:15:30.123456Z", "2024-03-05T08:15:30.123Z"),
        ("2024-03-05T08:15:30.999999999Z", "2024-03-05T08:15:30.999Z"),
        ("2024-03-05T08:15:30,5+01:00", "2024-03-05T07:15:30.500Z"),
        ("2024-01-01T01:00:00+02:00", "2023-12-31T23:00:00.000Z"),
        ("2016-12-31T23:59:60Z", "2016-12-31T23:59:59.999Z"),
        ("0001-01-01", "0001-01-01T00:00:00.000Z"),
        ("1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"),
        ("2000-02-29", "2000-02-29T00:00:00.000Z"),
    ]

    @Test(arguments: shapes)
    func everyShapeBecomesTheCanonicalForm(text: String, canonical: String) throws {
        #expect(try ImportDate(parsing: text).canonicalText == canonical)
    }

    @Test func unixTimestamps() throws {
        #expect(try ImportDate(parsing: .integer(1_709_626_530)).canonicalText == "2024-03-05T08:15:30.000Z")
        #expect(try ImportDate(parsing: "1709626530").canonicalText == "2024-03-05T08:15:30.000Z")
        #expect(try ImportDate(parsing: "1709626530123").canonicalText == "2024-03-05T08:15:30.123Z")
        #expect(try ImportDate(parsing: "1709626530123456").canonicalText == "2024-03-05T08:15:30.123Z")
        #expect(try ImportDate(parsing: .integer(1_709_626_530_123)).canonicalText == "2024-03-05T08:15:30.123Z")
        #expect(try ImportDate(parsing: .double(1_709_626_530.25)).canonicalText == "2024-03-05T08:15:30.250Z")
        #expect(try ImportDate(parsing: "1709626530.5").canonicalText == "2024-03-05T08:15:30.500Z")
        #expect(try ImportDate(parsing: "0").canonicalText == "1970-01-01T00:00:00.000Z")
        #expect(try ImportDate(parsing: "-86400").canonicalText == "1969-12-31T00:00:00.000Z")
        #expect(try ImportDate(parsing: .double(-0.0015)).millisecondsSince1970 == -2)
    }

    static let nonDates: [(String, String)] = [
        ("2024-13-01", "month 13 is not 1–12"),
        ("2024-00-10", "month 0 is not 1–12"),
        ("2023-02-29", "day 29 is not in February 2023"),
        ("1900-02-29", "day 29 is not in February 1900"),
        ("2024-04-31", "day 31 is not in April 2024"),
        ("2024-03-05T24:00:00Z", "hour 24 is not 0–23"),
        ("2024-03-05T23:60:00Z", "minute 60 is not 0–59"),
        ("2024-03-05T23:59:61Z", "second 61 is not 0–60"),
        ("2024-03-05T08:15:30+24:00", "the offset is not between -23:59 and +23:59"),
        ("2024-03-05T08:15:30.Z", "expected digits after the decimal point"),
        ("2024-03-05T08:15:30.1234567890Z", "more than 9 fraction digits"),
        ("2024-3-5", "expected a two-digit month"),
        ("yesterday", "expected a four-digit year"),
        ("", "expected a four-digit year"),
        ("2024-03-05T08:15:30Z trailing", "unexpected text after the date"),
        ("2024-03-05X08:15", "expected 'T' or a space after the date"),
        ("0000-01-01T00:00:00+01:00", "it is outside the years 0000–9999 in UTC"),
    ]

    @Test(arguments: nonDates)
    func nonDatesAreTypedErrors(text: String, reason: String) {
        #expect(throws: ImportError.invalidDate(text, reason: reason)) { try ImportDate(parsing: text) }
    }

    @Test func otherKindsAreNotDates() {
        #expect(throws: ImportError.self) { try ImportDate(parsing: JSONValue.bool(true)) }
        #expect(throws: ImportError.self) { try ImportDate(parsing: JSONValue.array([])) }
        #expect(throws: ImportError.self) { try ImportDate(parsing: "99999999999999999999") }
    }

    @Test func iso8601RefusesNumericStrings() {
        #expect(throws: ImportError.self) { try ImportDate(iso8601: "1709626530") }
    }

    @Test func canonicalFormParsesBackToMilliseconds() throws {
        #expect(try ImportDate(canonical: "1970-01-01T00:00:01.500Z").millisecondsSince1970 == 1500)
        #expect(try ImportDate(canonical: "2024-03-05T08:15:30.123Z").millisecondsSince1970 == 1_709_626_530_123)
        #expect(throws: ImportError.self) { try ImportDate(canonical: "2024-03-05T08:15:30Z") }
        #expect(throws: ImportError.self) { try ImportDate(canonical: "2024-02-30T08:15:30.000Z") }
    }

    @Test func canonicalTextRoundTripsAcrossTheCalendar() throws {
        // Every 7919th hour from 1600 to 2400 (leap centuries and eras included), deterministic.
        var milliseconds: Int64 = -11_676_096_000_000
        while milliseconds < 13_569_465_600_000 {
            let date = try #require(ImportDate(millisecondsSince1970: milliseconds + 123))
            #expect(try ImportDate(canonical: date.canonicalText) == date)
            milliseconds += 7919 * 3_600_000
        }
    }

    @Test func representableRangeIsYears0000To9999() throws {
        #expect(ImportDate(millisecondsSince1970: 253_402_300_800_000) == nil)
        let last = try #require(ImportDate(millisecondsSince1970: 253_402_300_799_999))
        #expect(last.canonicalText == "9999-12-31T23:59:59.999Z")
        let first = try #require(ImportDate(millisecondsSince1970: -62_167_219_200_000))
        #expect(first.canonicalText == "0000-01-01T00:00:00.000Z")
    }
}
