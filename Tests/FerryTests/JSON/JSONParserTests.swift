import Testing

@testable import Ferry

@Suite struct JSONParserTests {
    // MARK: - Accepted documents

    @Test func parsesScalarsAtTheTopLevel() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse("true") == .bool(true))
        #expect(try JSONParser.parse(" false\n") == .bool(false))
        #expect(try JSONParser.parse("\"hi\"") == .string("hi"))
        #expect(try JSONParser.parse("42") == .integer(42))
        #expect(try JSONParser.parse("-0") == .integer(0))
        #expect(try JSONParser.parse("2.5") == .double(2.5))
    }

    @Test func parsesNestedContainersWithAllWhitespaceKinds() throws {
        let text = " {\t\"a\" : [ 1 ,\r\n 2.5 , {\"b\" :null} , [ ] , { } ] ,\n\"c\":\"d\" } \n"
        let expected: JSONValue = ["a": [1, 2.5, ["b": nil], [], [:]], "c": "d"]
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test func everyOverloadAgrees() throws {
        let text = #"{"k":[1,"v",true]}"#
        let bytes = Array(text.utf8)
        let fromString = try JSONParser.parse(text)
        let fromArray = try JSONParser.parse(bytes)
        let fromRaw = try bytes.withUnsafeBytes { raw throws(JSONParseError) in try JSONParser.parse(raw) }
        #expect(fromString == fromArray)
        #expect(fromArray == fromRaw)
    }

    @Test func emptyRawBufferIsAnEmptyDocument() {
        #expect(throws: JSONParseError(line: 1, column: 1, reason: "the document is empty")) {
            try JSONParser.parse(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    @Test func parsesASliceOfALargerBuffer() throws {
        let journal = Array("{\"n\":1}\n{\"n\":2}\n".utf8)
        let second = try journal.withUnsafeBytes { raw throws(JSONParseError) in
            try JSONParser.parse(UnsafeRawBufferPointer(rebasing: raw[8..<15]))
        }
        #expect(second == ["n": 2])
    }

    // MARK: - Numbers

    @Test func integersAtInt64BoundsAreExact() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .integer(.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .integer(.min))
        #expect(try JSONParser.parse("9007199254740993") == .integer(9_007_199_254_740_993))
        #expect(try JSONParser.parse("-9007199254740993") == .integer(-9_007_199_254_740_993))
    }

    @Test func integersBeyondInt64BecomeDoubles() throws {
        #expect(try JSONParser.parse("9223372036854775808") == .double(9_223_372_036_854_775_808))
        // The nearest double to this literal is -2^63, which is Int64.min exactly.
        #expect(try JSONParser.parse("-9223372036854775809") == .integer(.min))
        #expect(try JSONParser.parse("-9223372036854777856") == .double(-9_223_372_036_854_777_856))
        #expect(try JSONParser.parse("100000000000000000000000") == .double(1e23))
    }

    @Test func numbersWithFractionOrExponentAreNormalized() throws {
        #expect(try JSONParser.parse("1.0") == .integer(1))
        #expect(try JSONParser.parse("1e2") == .integer(100))
        #expect(try JSONParser.parse("-0.0") == .integer(0))
        #expect(try JSONParser.parse("1E-2") == .double(0.01))
        #expect(try JSONParser.parse("1e-400") == .integer(0))
        #expect(try JSONParser.parse("0e99999999999999999999") == .integer(0))
        #expect(try JSONParser.parse("9007199254740993.0") == .integer(9_007_199_254_740_992))
    }

    @Test func integralDoublesThatFitInt64BecomeIntegers() throws {
        #expect(try JSONParser.parse("1e18") == .integer(1_000_000_000_000_000_000))
        #expect(try JSONParser.parse("1152921504606846976.0") == .integer(1_152_921_504_606_846_976))
        #expect(try JSONParser.parse("-9223372036854775808.0") == .integer(.min))
        #expect(try JSONParser.parse("9.3e18") == .double(9.3e18))
        #expect(try JSONParser.parse("1e19") == .double(1e19))
        for text in ["1e18", "1e19", "1152921504606846976.0", "4.5e15", "-7.0e0"] {
            let value = try JSONParser.parse(text)
            #expect(try JSONParser.parse(value.canonicalBytes()) == value, "\(text)")
        }
    }

    @Test(arguments: [
        "0.1", "0.3", "2.5e-3", "123456.789e3", "1.7976931348623157e308", "5e-324", "4.9e-324",
        "2.2250738585072014e-308", "333333333.33333329", "0.000000000000000000000000001",
        "9007199254740993.5", "1.00000000000000011102230246251565404236316680908203125",
        "12345678901234567890.123", "-7.25e+21", "1e23", "8.41e21", "0.1e-5",
    ])
    func doublesAreCorrectlyRounded(text: String) throws {
        let expected = try #require(Double(text))
        #expect(try JSONParser.parse(text) == .parsedNumber(expected))
    }

    // MARK: - Strings

    @Test func decodesEveryEscape() throws {
        let text = #""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\ud83d\ude00""#
        #expect(try JSONParser.parse(text) == .string("\"\\/\u{8}\u{C}\n\r\tAé€😀"))
    }

    @Test func decodesEveryEscapedControlCharacter() throws {
        for value in 0..<0x20 {
            let hexDigits = String(value, radix: 16)
            let text = "\"<\\u00\(hexDigits.count == 1 ? "0" : "")\(hexDigits)>\""
            let scalar = try #require(Unicode.Scalar(value))
            #expect(try JSONParser.parse(text) == .string("<\(Character(scalar))>"))
        }
    }

    @Test func keepsRawUTF8AndDeleteCharacter() throws {
        let text = "[\"é€😀𝄞\u{7F}\", \"e\u{301}\"]"
        #expect(try JSONParser.parse(text) == ["é€😀𝄞\u{7F}", "e\u{301}"])
        // The decomposed form keeps its scalars: no normalization on the way in.
        let decomposed = try JSONParser.parse("\"e\u{301}\"").stringValue
        #expect(decomposed.map { Array($0.unicodeScalars) } == ["e", "\u{301}"])
    }

    @Test func acceptsEveryValidUTF8Length() throws {
        let text = "\"\u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{10FFFF}\""
        #expect(try JSONParser.parse(text).stringValue == String(text.dropFirst().dropLast()))
    }

    @Test func stringsWithMixedRunsAndEscapes() throws {
        let text = #"{"long key with spaces and é":"prefix \n middle \u00e9 suffix é and more","":""}"#
        let expected: JSONValue = ["long key with spaces and é": "prefix \n middle é suffix é and more", "": ""]
        #expect(try JSONParser.parse(text) == expected)
    }

    // MARK: - Limits

    @Test func hostileNestingIsRejectedWithoutCrashing() {
        let arrays = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError(line: 1, column: 513, reason: "nesting deeper than 512 levels")) {
            try JSONParser.parse(arrays)
        }
        let objects = String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: JSONParseError(line: 1, column: 512 * 5 + 1, reason: "nesting deeper than 512 levels")) {
            try JSONParser.parse(objects)
        }
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let text = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        var value = try JSONParser.parse(text)
        var depth = 0
        while case .array(let elements) = value {
            depth += 1
            value = elements.first ?? .null
        }
        #expect(depth == 512)
    }

    @Test func customDepthLimit() {
        let options = JSONParser.Options(maximumDepth: 2)
        #expect((try? JSONParser.parse("[[1]]", options: options)) == [[1]])
        #expect(throws: JSONParseError(line: 1, column: 3, reason: "nesting deeper than 2 levels")) {
            try JSONParser.parse("[[[1]]]", options: options)
        }
    }

    @Test func documentSizeLimit() {
        let options = JSONParser.Options(maximumByteCount: 10)
        #expect((try? JSONParser.parse("[1,2,3,45]", options: options)) == [1, 2, 3, 45])
        #expect(throws: JSONParseError(line: 1, column: 1, reason: "document is 11 bytes; the limit is 10")) {
            try JSONParser.parse("[1,2,3,456]", options: options)
        }
    }

    @Test func defaultSizeLimitIsSixteenMebibytes() {
        let bytes = [UInt8](repeating: UInt8(ascii: " "), count: 17_000_000)
        #expect(throws: JSONParseError(line: 1, column: 1, reason: "document is 17000000 bytes; the limit is 16777216")) {
            try JSONParser.parse(bytes)
        }
    }
}
