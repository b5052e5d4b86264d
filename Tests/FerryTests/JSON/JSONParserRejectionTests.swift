import Testing

@testable import Ferry

@Suite struct JSONParserRejectionTests {
    /// A document the parser must refuse, with the exact error it must give.
    struct Rejection: Sendable, CustomTestStringConvertible {
        let bytes: [UInt8]
        let line: Int
        let column: Int
        let reason: String

        init(_ text: String, _ line: Int, _ column: Int, _ reason: String) {
            self.init(bytes: Array(text.utf8), line, column, reason)
        }

        init(bytes: [UInt8], _ line: Int, _ column: Int, _ reason: String) {
            self.bytes = bytes
            self.line = line
            self.column = column
            self.reason = reason
        }

        var testDescription: String {
            String(decoding: bytes, as: UTF8.self).debugDescription
        }
    }

    static let syntax: [Rejection] = [
        Rejection("", 1, 1, "the document is empty"),
        Rejection(" \n ", 2, 2, "the document contains only whitespace"),
        Rejection("[1,2,]", 1, 5, "trailing comma is not allowed"),
        Rejection(#"{"a":1,}"#, 1, 7, "trailing comma is not allowed"),
        Rejection("{\"a\":1,\n \"b\":2,\n}", 2, 7, "trailing comma is not allowed"),
        Rejection("[\r\n1,\r\n]", 2, 2, "trailing comma is not allowed"),
        Rejection("// note\n1", 1, 1, "comments are not allowed"),
        Rejection("[1 /* two */, 2]", 1, 4, "comments are not allowed"),
        Rejection("{} // done", 1, 4, "comments are not allowed"),
        Rejection("[1,,2]", 1, 4, "unexpected ','; expected a value"),
        Rejection("[1 2]", 1, 4, "expected ',' or ']' after array element, found '2'"),
        Rejection(#"{"a":1 "b":2}"#, 1, 8, #"expected ',' or '}' after object member, found '"'"#),
        Rejection(#"{"a" 1}"#, 1, 6, "expected ':' after object key, found '1'"),
        Rejection("{a:1}", 1, 2, "object keys must be strings in double quotes"),
        Rejection("{1:1}", 1, 2, "expected a string key, found '1'"),
        Rejection("['a']", 1, 2, "strings must be in double quotes, not single quotes"),
        Rejection(#"{"a":1,"b":2"#, 1, 13, "unexpected end of input; expected ',' or '}' after object member"),
        Rejection("[1", 1, 3, "unexpected end of input; expected ',' or ']' after array element"),
        Rejection("[", 1, 2, "unexpected end of input; expected a value"),
        Rejection("{", 1, 2, "unexpected end of input; expected a string key"),
        Rejection(#"{"a""#, 1, 5, "unexpected end of input; expected ':' after object key"),
        Rejection("{} x", 1, 4, "unexpected data after the JSON value"),
        Rejection("1 2", 1, 3, "unexpected data after the JSON value"),
        Rejection("[1]]", 1, 4, "unexpected data after the JSON value"),
        Rejection("tru", 1, 1, "invalid literal; expected 'true'"),
        Rejection("[nul]", 1, 2, "invalid literal; expected 'null'"),
        Rejection("True", 1, 1, "expected a value, found 'T'"),
        Rejection("[1,\u{0C}2]", 1, 4, "expected a value, found byte 0x0c"),
        Rejection("[\n  \"😀\", x]", 2, 8, "expected a value, found 'x'"),
        Rejection(bytes: [0xEF, 0xBB, 0xBF] + Array("{}".utf8), 1, 1,
                  "a byte order mark (BOM) is not allowed; JSON text must start with a value"),
    ]

    static let numbers: [Rejection] = [
        Rejection("NaN", 1, 1, "NaN is not valid JSON"),
        Rejection("[Infinity]", 1, 2, "Infinity is not valid JSON"),
        Rejection("-Infinity", 1, 1, "-Infinity is not valid JSON"),
        Rejection("01", 1, 1, "leading zeros are not allowed"),
        Rejection("[-012]", 1, 3, "leading zeros are not allowed"),
        Rejection("+1", 1, 1, "a leading '+' is not allowed in numbers"),
        Rejection(".5", 1, 1, "a number must start with a digit, not '.'"),
        Rejection("-", 1, 2, "expected a digit after '-'"),
        Rejection("-a", 1, 2, "expected a digit after '-'"),
        Rejection("[1.]", 1, 4, "expected a digit after the decimal point"),
        Rejection("1.e5", 1, 3, "expected a digit after the decimal point"),
        Rejection("[1e]", 1, 4, "expected a digit in the exponent"),
        Rejection("1e+", 1, 4, "expected a digit in the exponent"),
        Rejection("0x1F", 1, 2, "unexpected data after the JSON value"),
        Rejection("1e400", 1, 1, "number 1e400 is out of range for a double"),
        Rejection("[0, -1.5e308999]", 1, 5, "number -1.5e308999 is out of range for a double"),
    ]

    static let strings: [Rejection] = [
        Rejection(#""\ud800""#, 1, 2, #"unpaired surrogate \ud800"#),
        Rejection(#""\udc00x""#, 1, 2, #"unpaired surrogate \udc00"#),
        Rejection(#""a\uD800\u0041""#, 1, 3, #"unpaired surrogate \ud800"#),
        Rejection(#""\ud83d\ud83d""#, 1, 2, #"unpaired surrogate \ud83d"#),
        Rejection(#""\ud83d"#, 1, 2, #"unpaired surrogate \ud83d"#),
        Rejection(#""\u12G4""#, 1, 2, #"invalid \u escape; expected four hex digits"#),
        Rejection(#""\u12"#, 1, 2, #"invalid \u escape; expected four hex digits"#),
        Rejection(#""\x""#, 1, 2, #"invalid escape sequence \x"#),
        Rejection(#""\'""#, 1, 2, #"invalid escape sequence \'"#),
        Rejection("\"a\nb\"", 1, 3, "control character U+000A must be escaped in a string"),
        Rejection("[\"\t\"]", 1, 3, "control character U+0009 must be escaped in a string"),
        Rejection("\"\u{0}\"", 1, 2, "control character U+0000 must be escaped in a string"),
        Rejection("\"\u{1F}\"", 1, 2, "control character U+001F must be escaped in a string"),
        Rejection(#""abc"#, 1, 1, "unterminated string"),
        Rejection(#"["abc\"]"#, 1, 2, "unterminated string"),
        Rejection(#""abc\"#, 1, 1, "unterminated string"),
        Rejection(#"{"name":1,"name":2}"#, 1, 11, #"duplicate key "name""#),
        Rejection("{\n  \"a\": {\"x\": 1, \"x\": 2}\n}", 2, 17, #"duplicate key "x""#),
    ]

    static let utf8: [Rejection] = [
        Rejection(bytes: [0x22, 0xFF, 0x22], 1, 2, "invalid UTF-8 byte 0xff"),
        Rejection(bytes: [0x22, 0x61, 0xFE, 0x22], 1, 3, "invalid UTF-8 byte 0xfe"),
        Rejection(bytes: [0x22, 0x80, 0x22], 1, 2, "invalid UTF-8 byte 0x80: unexpected continuation byte"),
        Rejection(bytes: [0x22, 0xC3, 0x28, 0x22], 1, 2, "invalid UTF-8 byte 0xc3: incomplete multi-byte sequence"),
        Rejection(bytes: [0x22, 0xE2, 0x82, 0x22], 1, 2, "invalid UTF-8 byte 0xe2: incomplete multi-byte sequence"),
        Rejection(bytes: [0x22, 0xF0, 0x9F, 0x98], 1, 2, "invalid UTF-8 byte 0xf0: incomplete multi-byte sequence"),
        Rejection(bytes: [0x22, 0xC0, 0xAF, 0x22], 1, 2, "invalid UTF-8 byte 0xc0: overlong encoding"),
        Rejection(bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], 1, 2, "invalid UTF-8 byte 0xe0: overlong encoding"),
        Rejection(bytes: [0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], 1, 2, "invalid UTF-8 byte 0xf0: overlong encoding"),
        Rejection(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], 1, 2, "invalid UTF-8 byte 0xed: encodes a surrogate code point"),
        Rejection(bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1, 2, "invalid UTF-8 byte 0xf4: encodes a code point above U+10FFFF"),
        Rejection(bytes: [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1, 2, "invalid UTF-8 byte 0xf5"),
        Rejection(bytes: Array("[\"é\",\"".utf8) + [0xFF, 0x22, 0x5D], 1, 7, "invalid UTF-8 byte 0xff"),
        Rejection(bytes: [0x5B, 0xC3, 0xA9, 0x5D], 1, 2, "expected a value, found byte 0xc3"),
    ]

    @Test(arguments: syntax) func rejectsSyntax(_ rejection: Rejection) {
        check(rejection)
    }

    @Test(arguments: numbers) func rejectsNumbers(_ rejection: Rejection) {
        check(rejection)
    }

    @Test(arguments: strings) func rejectsStrings(_ rejection: Rejection) {
        check(rejection)
    }

    @Test(arguments: utf8) func rejectsInvalidUTF8(_ rejection: Rejection) {
        check(rejection)
    }

    @Test func duplicateKeysThatAreUnicodeEquivalentAreRejected() throws {
        // JSONValue's dictionary keys compare like Swift strings, so it could not hold both.
        let error = try #require(throws: JSONParseError.self) {
            try JSONParser.parse("{\"é\":1,\"e\u{301}\":2}")
        }
        #expect(error.line == 1 && error.column == 8)
        #expect(error.reason.hasPrefix("duplicate key \"e\u{301}\""))
        #expect(error.reason.contains("Unicode-equivalent to the earlier key"))
    }

    @Test func duplicateKeyIsReportedWhenItsObjectCloses() {
        #expect(throws: JSONParseError(line: 1, column: 13, reason: "trailing comma is not allowed")) {
            try JSONParser.parse(#"{"a":1,"a":2,}"#)
        }
        #expect(throws: JSONParseError(line: 1, column: 8, reason: #"duplicate key "a""#)) {
            try JSONParser.parse(#"{"a":1,"a":{"b":[1]}}"#)
        }
    }

    @Test func escapedDuplicateKeyIsRejected() {
        #expect(throws: JSONParseError(line: 1, column: 8, reason: #"duplicate key "a""#)) {
            try JSONParser.parse(#"{"a":1,"\u0061":2}"#)
        }
    }

    @Test func descriptionNamesLineAndColumn() {
        let error = JSONParseError(line: 3, column: 7, reason: "expected ',' or '}' after object member")
        #expect(error.description == "line 3, column 7: expected ',' or '}' after object member")
    }

    private func check(_ rejection: Rejection, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = JSONParseError(line: rejection.line, column: rejection.column, reason: rejection.reason)
        #expect(throws: expected, sourceLocation: sourceLocation) {
            try JSONParser.parse(rejection.bytes)
        }
    }
}
