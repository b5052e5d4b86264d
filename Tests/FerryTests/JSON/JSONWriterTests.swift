import FerryTestSupport
import Testing

@testable import Ferry

@Suite struct JSONWriterTests {
    // MARK: - Canonical numbers (RFC 8785 §3.2.2.3 and Appendix B)

    @Test(arguments: [
        (1e21, "1e+21"), (1e20, "100000000000000000000"), (1e-7, "1e-7"), (0.000001, "0.000001"),
        (333333333.33333329, "333333333.3333333"), (1e30, "1e+30"), (-0.0, "0"), (0.0, "0"),
        (.leastNonzeroMagnitude, "5e-324"), (-.leastNonzeroMagnitude, "-5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
        (-1.7976931348623157e308, "-1.7976931348623157e+308"), (4.5, "4.5"), (0.002, "0.002"),
        (1e-27, "1e-27"), (0.1, "0.1"), (-0.5, "-0.5"), (123456789012345680000.0, "123456789012345680000"),
        (1.5e300, "1.5e+300"), (2.5e-7, "2.5e-7"), (1.25e-6, "0.00000125"), (9007199254740994.0, "9007199254740994"),
        (1e18, "1000000000000000000"), (295147905179352830000.0, "295147905179352830000"),
        (4.35, "4.35"), (0.3, "0.3"), (0.1 + 0.2, "0.30000000000000004"), (1e16, "10000000000000000"),
        (2.0, "2"), (-1.0, "-1"),
    ])
    func doublesUseTheECMAScriptForm(value: Double, expected: String) {
        #expect(JSONValue.double(value).canonicalText == expected)
    }

    @Test func nonFiniteDoublesAreWrittenAsNull() {
        #expect(JSONValue.double(.nan).canonicalText == "null")
        #expect(JSONValue.double(.infinity).canonicalText == "null")
        #expect(JSONValue.double(-.infinity).canonicalText == "null")
    }

    @Test func integersArePlainDecimal() {
        #expect(JSONValue.integer(0).canonicalText == "0")
        #expect(JSONValue.integer(-7).canonicalText == "-7")
        #expect(JSONValue.integer(.max).canonicalText == "9223372036854775807")
        #expect(JSONValue.integer(.min).canonicalText == "-9223372036854775808")
        #expect(JSONValue.integer(9_007_199_254_740_993).canonicalText == "9007199254740993")
    }

    @Test func largeIntegersSurviveARoundTrip() throws {
        for integer: Int64 in [.max, .min, .max - 1, .min + 1, 9_007_199_254_740_993, -9_007_199_254_740_993] {
            #expect(try JSONParser.parse(JSONValue.integer(integer).canonicalBytes()) == .integer(integer))
        }
    }

    @Test func shortestDigitsReadBackAsTheSameDouble() throws {
        var generator = RandomJSONValues.SplitMix64(seed: 0x5EED_F00D)
        for _ in 0..<20_000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            let text = JSONValue.double(value).canonicalText
            let reread = try #require(Double(text), "\(text) from \(value.bitPattern)")
            #expect(reread == value || (reread == 0 && value == 0), "\(text) from bit pattern \(value.bitPattern)")
            #expect(!text.contains("E") && !text.contains("+0") && !text.hasSuffix(".0"), "\(text)")
        }
    }

    @Test func fastAndGeneralDoubleLayoutsAgree() {
        var generator = RandomJSONValues.SplitMix64(seed: 0xD0_0B1E)
        for _ in 0..<20_000 {
            let value = Double(bitPattern: generator.next())
            let scaled = value * Double(sign: .plus, exponent: -Int(generator.next() % 80), significand: 1)
            for candidate in [value, scaled, (scaled * 1e6).rounded() / 1e6] where candidate.isFinite && candidate != 0 {
                var general: [UInt8] = []
                JSONWriter.writeDoubleLayingOutDigits(candidate, to: &general)
                #expect(JSONValue.double(candidate).canonicalBytes() == general, "bit pattern \(candidate.bitPattern)")
            }
        }
    }

    // MARK: - Canonical strings and keys

    @Test func stringsEscapeOnlyQuoteBackslashAndControls() {
        let value = JSONValue.string("a\"b\\c/d é € 😀 \u{7F}")
        #expect(value.canonicalText == "\"a\\\"b\\\\c/d é € 😀 \u{7F}\"")
    }

    @Test func everyControlCharacterHasItsEscape() {
        let controls = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        let expected = #""\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f"#
            + #"\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f""#
        #expect(JSONValue.string(controls).canonicalText == expected)
        #expect((try? JSONParser.parse(expected)) == .string(controls))
    }

    @Test func keysAreSortedByCodePoint() {
        let value: JSONValue = ["😀": 4, "z": 2, "é": 3, "a": 1, "Z": 0, "": -1]
        #expect(value.canonicalText == #"{"":-1,"Z":0,"a":1,"z":2,"é":3,"😀":4}"#)
    }

    @Test func keysAreSortedByBytesNotBySwiftStringOrder() {
        // Swift's `<` compares "e\u{301}" as "é", which sorts after "f"; code points put it first.
        let value: JSONValue = ["f": 1, "e\u{301}": 2]
        #expect(value.canonicalText == "{\"e\u{301}\":2,\"f\":1}")
    }

    @Test func rfc8785SortingVectorInCodePointOrder() throws {
        let text = #"""
            {"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh",
             "1":"One","\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control",
             "\u00f6":"Latin Small Letter O With Diaeresis"}
            """#
        let keys = try #require(try JSONParser.parse(text).objectValue).keys
        let sorted = keys.sorted { JSONWriter.precedesInCodePointOrder($0, $1) }
        // RFC 8785 sorts by UTF-16 code units and puts U+1F600 before U+FB33; Ferry uses code points.
        #expect(sorted == ["\r", "1", "\u{80}", "ö", "€", "\u{FB33}", "😀"])
    }

    @Test func rfc8785Example() throws {
        let text = #"""
            {
              "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
              "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
              "literals": [null, true, false]
            }
            """#
        let expected = #"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"#
            + #""string":"€$\u000f\nA'B\"\\\\\"/"}"#
        #expect(try JSONParser.parse(text).canonicalText == expected)
    }

    @Test func containersAndLiterals() {
        let value: JSONValue = ["a": [], "b": [:], "c": [nil, true, false, 1, "x"], "d": ["e": ["f": []]]]
        #expect(value.canonicalText == #"{"a":[],"b":{},"c":[null,true,false,1,"x"],"d":{"e":{"f":[]}}}"#)
        #expect(value.description == value.canonicalText)
        #expect("\(value)" == value.canonicalText)
    }

    @Test func writeCanonicalAppends() {
        var output = Array("prefix ".utf8)
        JSONValue.array([1, 2]).writeCanonical(to: &output)
        #expect(String(decoding: output, as: UTF8.self) == "prefix [1,2]")
    }

    @Test func layoutOfTheSourceDoesNotChangeTheCanonicalBytes() throws {
        let compact = try JSONParser.parse(#"{"b":[1,2.50,{"y":null,"x":"\u00e9"}],"a":1E2}"#)
        let spread = try JSONParser.parse("{\n  \"a\" : 100.0,\n  \"b\" : [ 1, 25e-1, { \"x\" : \"é\", \"y\" : null } ]\n}\n")
        #expect(compact.canonicalBytes() == spread.canonicalBytes())
        #expect(compact.canonicalText == #"{"a":100,"b":[1,2.5,{"x":"é","y":null}]}"#)
    }

    @Test func integralDoublesWriteLikeIntegers() {
        // `.double(1.0)` is not normalized, but its canonical bytes match `.integer(1)`.
        #expect(JSONValue.double(1.0).canonicalBytes() == JSONValue.integer(1).canonicalBytes())
        #expect(JSONValue.double(1e18).canonicalBytes() == JSONValue.integer(1_000_000_000_000_000_000).canonicalBytes())
    }

    // MARK: - Pretty form

    @Test func prettyFormMatchesJSONStringifyWithSortedKeys() {
        let value: JSONValue = ["name": "Lamp", "tags": ["home", 2.5], "extra": [:], "none": [], "n": ["b": nil, "a": true]]
        let expected = """
            {
              "extra": {},
              "n": {
                "a": true,
                "b": null
              },
              "name": "Lamp",
              "none": [],
              "tags": [
                "home",
                2.5
              ]
            }

            """
        #expect(String(decoding: value.prettyBytes(), as: UTF8.self) == expected)
    }

    @Test func prettyScalarsAndEmptyContainers() {
        #expect(String(decoding: JSONValue.integer(3).prettyBytes(), as: UTF8.self) == "3\n")
        #expect(String(decoding: JSONValue.object([:]).prettyBytes(), as: UTF8.self) == "{}\n")
        #expect(String(decoding: JSONValue.array([]).prettyBytes(), as: UTF8.self) == "[]\n")
        #expect(String(decoding: JSONValue.array([[]]).prettyBytes(), as: UTF8.self) == "[\n  []\n]\n")
    }

    @Test func prettyFormParsesBackToTheSameValue() throws {
        let value: JSONValue = ["a": [1, ["b": "c\n"]], "d": -0.25]
        #expect(try JSONParser.parse(value.prettyBytes()) == value)
    }
}
