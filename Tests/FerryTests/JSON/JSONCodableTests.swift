import Foundation
import Testing

@testable import Ferry

@Suite struct JSONCodableTests {
    struct Product: Codable, Equatable {
        var name: String
        var price: Double
        var stock: Int
        var tags: [String]
        var added: Date
        var note: String?
    }

    struct Order: Codable, Equatable {
        var items: [Product]
    }

    struct Event: Codable, Equatable {
        var kind: String
        var payload: JSONValue
    }

    let added = Date(timeIntervalSince1970: 1_714_566_600.25)  // 2024-05-01T12:30:00.250Z

    @Test func encodesAModel() throws {
        let product = Product(name: "Lamp", price: 12.5, stock: 3, tags: ["home"], added: added, note: nil)
        let value = try JSONValue(encoding: product)
        #expect(value == ["name": "Lamp", "price": 12.5, "stock": 3, "tags": ["home"], "added": "2024-05-01T12:30:00.250Z"])
    }

    @Test func modelsRoundTrip() throws {
        let order = Order(items: [
            Product(name: "Lamp", price: 12.5, stock: 3, tags: [], added: added, note: "é 😀"),
            Product(name: "Desk", price: 120, stock: 0, tags: ["a", "b"], added: Date(timeIntervalSince1970: -0.5), note: nil),
        ])
        let value = try JSONValue(encoding: order)
        #expect(try value.decode(Order.self) == order)
        let inferred: Order = try value.decode()
        #expect(inferred == order)
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (-0.5, "1969-12-31T23:59:59.500Z"),
        (1_700_000_000.123, "2023-11-14T22:13:20.123Z"),
        (951_782_400, "2000-02-29T00:00:00.000Z"),
        (1_709_251_199.9996, "2024-03-01T00:00:00.000Z"),
        (-62_135_596_800, "0001-01-01T00:00:00.000Z"),
        (253_402_300_799.999, "9999-12-31T23:59:59.999Z"),
    ])
    func datesAreISO8601WithMilliseconds(seconds: Double, expected: String) throws {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(try JSONValue(encoding: date) == .string(expected))
        let decoded = try JSONValue.string(expected).decode(Date.self)
        #expect(abs(decoded.timeIntervalSince1970 - seconds) < 0.001)
    }

    @Test(arguments: [
        ("2024-05-01T12:30:00Z", 1_714_566_600.0),
        ("2024-05-01T12:30:00.25Z", 1_714_566_600.25),
        ("2024-05-01T12:30:00.123456789Z", 1_714_566_600.123456789),
        ("2024-05-01T14:30:00+02:00", 1_714_566_600.0),
        ("2024-05-01T07:00:00.500-05:30", 1_714_566_600.5),
    ])
    func datesDecodeFromISO8601Variants(text: String, seconds: Double) throws {
        let date = try JSONValue.string(text).decode(Date.self)
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test(arguments: [
        "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2024-05-01 12:30:00Z", "2024-05-01T24:00:00Z",
        "2024-05-01T12:30:00", "2024-05-01T12:30:00.Z", "2024-05-01T12:30:00.1234567890Z", "1714566600",
    ])
    func malformedDatesAreRejected(text: String) {
        #expect(throws: JSONCodingError.self) { try JSONValue.string(text).decode(Date.self) }
    }

    @Test func datesOutsideFourDigitYearsAreRejected() {
        #expect(throws: JSONCodingError.self) { try JSONValue(encoding: Date(timeIntervalSince1970: -1e12)) }
        #expect(throws: JSONCodingError.self) { try JSONValue(encoding: Date(timeIntervalSince1970: 1e12)) }
    }

    @Test func decodingErrorsNameThePath() throws {
        let value: JSONValue = ["items": [
            ["name": "Lamp", "price": 1, "stock": 1, "tags": [], "added": "2024-05-01T12:30:00Z"],
            ["name": "Desk", "price": "cheap", "stock": 1, "tags": [], "added": "2024-05-01T12:30:00Z"],
        ]]
        let error = try #require(throws: JSONCodingError.self) { try value.decode(Order.self) }
        #expect(error.operation == .decoding)
        #expect(error.typeName == "Order")
        #expect(error.path == "items[1].price")
        #expect(error.description.hasPrefix("cannot decode Order at items[1].price: "))
    }

    @Test func missingKeysAreNamed() throws {
        let value: JSONValue = ["kind": "x"]
        let error = try #require(throws: JSONCodingError.self) { try value.decode(Event.self) }
        #expect(error.reason == #"missing key "payload""#)
        #expect(error.description == #"cannot decode Event: missing key "payload""#)
    }

    @Test func nonFiniteNumbersCannotBeEncoded() throws {
        let error = try #require(throws: JSONCodingError.self) { try JSONValue(encoding: [1.0, .nan]) }
        #expect(error.operation == .encoding)
        #expect(error.path == "[1]")
    }

    @Test func jsonValueEmbedsInModels() throws {
        let payload: JSONValue = ["n": [1, 2.5, "x", nil, true, [:]], "big": 9_007_199_254_740_993, "e": "é"]
        let event = Event(kind: "update", payload: payload)
        let value = try JSONValue(encoding: event)
        #expect(value == ["kind": "update", "payload": payload])
        #expect(try value.decode(Event.self) == event)

        let data = try JSONEncoder().encode(event)
        #expect(try JSONDecoder().decode(Event.self, from: data) == event)
    }

    @Test func jsonValueDecodesEveryKindThroughFoundation() throws {
        let text = #"[null, true, false, 0, -12, 9223372036854775807, 1.5, 1e300, "s", [], {}, {"k": [1]}]"#
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(decoded == (try JSONParser.parse(text)))
    }

    @Test func jsonValuePassesThroughUnchanged() throws {
        let value: JSONValue = ["a": .double(1.0)]
        #expect(try JSONValue(encoding: value) == value)
        #expect(try value.decode(JSONValue.self) == value)
    }
}
