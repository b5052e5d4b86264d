import Testing
@testable import Ferry

@Suite struct AttributeCoercionTests {
    static let accepted: [(JSONValue, Schema.AttributeType, JSONValue)] = [
        ("hello", .string, "hello"),
        (42, .string, "42"),
        (12.2, .string, "12.2"),
        (true, .string, "true"),
        (42, .integer, 42),
        ("42", .integer, 42),
        ("-7", .integer, -7),
        ("4.0", .integer, 4),
        ("9223372036854775807", .integer, .integer(Int64.max)),
        (12.5, .double, 12.5),
        ("12.5", .double, 12.5),
        ("1e3", .double, 1000),
        (true, .bool, true),
        ("false", .bool, false),
        ("TRUE", .bool, true),
        (0, .bool, false),
        (1, .bool, true),
        ("1", .bool, true),
        ("2024-03-05T10:15:30+02:00", .date, "2024-03-05T08:15:30.000Z"),
        (1_709_626_530, .date, "2024-03-05T08:15:30.000Z"),
        ("1709626530", .date, "2024-03-05T08:15:30.000Z"),
        ("6F9619FF-8B86-D011-B42D-00CF4FC964FF", .uuid, "6f9619ff-8b86-d011-b42d-00cf4fc964ff"),
        ("https://northwind.example.com", .url, "https://northwind.example.com"),
        ("http://atlas-maps.example.com/about?x=1#top", .url, "http://atlas-maps.example.com/about?x=1#top"),
        ("mailto:ana@example.com", .url, "mailto:ana@example.com"),
        (["a": [1, 2]], .json, ["a": [1, 2]]),
        (nil, .integer, nil),
        (nil, .date, nil),
    ]

    @Test(arguments: accepted)
    func convertsToTheDeclaredType(value: JSONValue, type: Schema.AttributeType, expected: JSONValue) throws {
        #expect(try AttributeCoercion.coerce(value, to: type) == expected)
    }

    @Test func decimalsStayExact() throws {
        // Up to 15 significant digits a decimal is a JSON number whose shortest text is its own.
        #expect(try AttributeCoercion.coerce("12.2", to: .decimal) == .double(12.2))
        #expect(try AttributeCoercion.coerce(12.2, to: .decimal) == .double(12.2))
        #expect(try AttributeCoercion.coerce("12.20", to: .decimal) == .double(12.2))
        #expect(String(12.2) == "12.2")
        #expect(try AttributeCoercion.coerce("0.1", to: .decimal) == .double(0.1))
        #expect(try AttributeCoercion.coerce("19.99", to: .decimal) == .double(19.99))
        #expect(try AttributeCoercion.coerce("12", to: .decimal) == .integer(12))
        #expect(try AttributeCoercion.coerce("-0.000", to: .decimal) == .integer(0))
        #expect(try AttributeCoercion.coerce("999999999999.999", to: .decimal) == .double(999_999_999_999.999))
        // More digits than a double holds: the exact text, canonical, as a string.
        #expect(try AttributeCoercion.coerce("1234567890.123456789", to: .decimal) == "1234567890.123456789")
        #expect(try AttributeCoercion.coerce("0001234567890.1234567890", to: .decimal) == "1234567890.123456789")
        #expect(try AttributeCoercion.coerce("-0.00000000000000000001", to: .decimal) == .double(-1e-20))
        #expect(try AttributeCoercion.coerce("123456789012345678901234", to: .decimal) == "123456789012345678901234")
        #expect(try AttributeCoercion.coerce("1.5e2", to: .decimal) == 150)
    }

    @Test func everyShortDecimalRoundTripsThroughItsShortestText() throws {
        // Deterministic sweep of prices with 1 to 15 significant digits.
        var seed: UInt64 = 0x5EED
        for _ in 0..<2000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let cents = Int64(seed >> 20) % 100_000_000_000_000
            let text = String(cents / 100) + "." + (cents % 100 < 10 ? "0" : "") + String(cents % 100)
            let stored = try AttributeCoercion.coerce(.string(text), to: .decimal)
            let expected = try #require(DecimalText(text)).canonicalText
            switch stored {
            case .double(let double): #expect(String(double) == expected, "seed \(seed)")
            case .integer(let integer): #expect(String(integer) == expected, "seed \(seed)")
            default: Issue.record("\(text) stored as \(stored)")
            }
        }
    }

    static let refused: [(JSONValue, Schema.AttributeType, String)] = [
        ("abc", .integer, #"cannot store "abc" (a string) as integer: it is not a number"#),
        (12.5, .integer, "cannot store 12.5 (a number) as integer: it is not a whole number"),
        ("9223372036854775808", .integer, #"cannot store "9223372036854775808" (a string) as integer: it does not fit 64 bits"#),
        (true, .integer, "cannot store true (a boolean) as integer: expected a number"),
        ("12,5", .decimal, #"cannot store "12,5" (a string) as decimal: it is not a number"#),
        (" 12", .double, #"cannot store " 12" (a string) as double: it is not a finite number"#),
        ("yes", .bool, #"cannot store "yes" (a string) as bool: expected true, false, "true", "false", 0 or 1"#),
        (2, .bool, #"cannot store 2 (a number) as bool: expected true, false, "true", "false", 0 or 1"#),
        ("tomorrow", .date, #"cannot store "tomorrow" (a string) as date: expected a four-digit year"#),
        ("2024-02-30", .date, #"cannot store "2024-02-30" (a string) as date: day 30 is not in February 2024"#),
        ("6F9619FF8B86D011B42D00CF4FC964FF", .uuid, #"cannot store "6F9619FF8B86D011B42D00CF4FC964FF" (a string) as uuid: expected 8-4-4-4-12 hexadecimal digits"#),
        ("northwind.example.com", .url, #"cannot store "northwind.example.com" (a string) as url: expected an absolute URL such as https://example.com"#),
        ("https://exa mple.com", .url, #"cannot store "https://exa mple.com" (a string) as url: it contains a space"#),
        ("https:///path", .url, #"cannot store "https:///path" (a string) as url: the host is missing"#),
        (["x"], .string, "cannot store […] (an array) as string: only strings, numbers and booleans can be stored as text"),
    ]

    @Test(arguments: refused)
    func errorsNameTheValueAndTheType(value: JSONValue, type: Schema.AttributeType, message: String) {
        do {
            let stored = try AttributeCoercion.coerce(value, to: type)
            Issue.record("\(value) was stored as \(stored)")
        } catch {
            #expect(error.description == message)
        }
    }
}
