import Foundation
import Testing

@testable import Ferry

/// A top-level array of a megabyte or more is parsed on every core: it must give exactly the
/// value and exactly the errors of the single pass.
@Suite struct JSONParallelParseTests {
    /// An element whose strings hold every byte that could fool the comma finder: brackets,
    /// braces, commas, escaped quotes and backslashes, and non-ASCII text.
    static func element(_ number: Int) -> String {
        #"{"id":\#(number),"name":"a, [b] {c} \"d\" \\","list":[1,[2,{"x":"],"}],{}],"# + #""text":"é ✓ \u00e9\\\"","n":-1.5e3,"ok":true,"none":null}"#
    }

    /// `count` elements between `[` and `]`, with a line break after each comma.
    static func array(_ count: Int, element: (Int) -> String = element) -> [UInt8] {
        Array(("[" + (0..<count).map(element).joined(separator: ",\n") + "]").utf8)
    }

    /// The single pass, as the parser ran before it had a parallel path.
    static func singlePass(_ bytes: [UInt8], options: JSONParser.Options = .init()) -> Result<JSONValue, JSONParseError> {
        bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) in
                var scanner = JSONScanner(input: buffer, maximumDepth: options.maximumDepth)
                return try scanner.parseDocument()
            }
        }
    }

    static func parallel(_ bytes: [UInt8], options: JSONParser.Options = .init()) -> JSONValue? {
        bytes.withUnsafeBufferPointer { JSONParser.parseArrayInParallel($0, options: options) }
    }

    @Test func aLargeArrayIsParsedInPiecesToTheSameValue() throws {
        let bytes = Self.array(20_000)
        #expect(bytes.count >= JSONParser.parallelThreshold)
        let value = try #require(Self.parallel(bytes))
        #expect(value == (try Self.singlePass(bytes).get()))
        #expect(value.arrayValue?.count == 20_000)
        #expect(value.arrayValue?[12_345]["id"] == .integer(12_345))
        #expect(try JSONParser.parse(bytes) == value)
    }

    @Test func thePiecesAreCutOnlyAtTopLevelCommas() {
        let bytes = Self.array(2_000)
        let runs = bytes.withUnsafeBufferPointer { JSONParser.elementRuns($0, from: 1, to: bytes.count - 1, count: 8) }
        #expect(runs.count == 8)
        #expect(runs.first?.lowerBound == 1)
        #expect(runs.last?.upperBound == bytes.count - 1)
        for (left, right) in zip(runs, runs.dropFirst()) {
            #expect(bytes[left.upperBound] == UInt8(ascii: ","))
            #expect(right.lowerBound == left.upperBound + 1)
            // Every run starts with a whole element.
            #expect(String(decoding: bytes[right].prefix(7), as: UTF8.self) == "\n{\"id\":")
        }
    }

    @Test func stringsEndingInBackslashesAreSkippedWhole() throws {
        // A quote after an even run of backslashes closes the string; after an odd run it is
        // part of it. Each element must leave the cuts at real top-level commas.
        let strings = [
            "\"\\\\\"",  // "\\"
            "\"\\\\\\\\\"",  // "\\\\"
            "\"\\\"\"",  // "\""
            "\"x\\\\\\\",\\\"y\"",  // "x\\\",\"y"
            "[\",\\\\\",{\"a\\\\\":\"]\"}]",  // [",\\",{"a\\":"]"}]
        ]
        let bytes = Self.array(120_000) { strings[$0 % strings.count] }
        #expect(bytes.count >= JSONParser.parallelThreshold)
        let value = try #require(Self.parallel(bytes))
        #expect(value == (try Self.singlePass(bytes).get()))
        #expect(value.arrayValue?[3] == .string("x\\\",\"y"))
        #expect(value.arrayValue?[4] == [",\\", ["a\\": "]"]])
    }

    @Test func smallDocumentsAndOtherShapesTakeTheSinglePass() {
        #expect(Self.parallel(Array("[1, 2, 3]".utf8)) == nil)
        let object = Array(("{\"items\":" + String(decoding: Self.array(20_000), as: UTF8.self) + "}").utf8)
        #expect(Self.parallel(object) == nil)
        let whitespace = Array(("[" + String(repeating: " ", count: 2 << 20) + "]").utf8)
        #expect(Self.parallel(whitespace) == nil)
        #expect((try? JSONParser.parse(whitespace)) == .array([]))
    }

    /// Large arrays with a problem somewhere in the middle: the error is the single pass's.
    static let damaged: [(String, [UInt8])] = {
        let good = array(12_000)
        let text = String(decoding: good, as: UTF8.self)
        func replacing(_ marker: String, in element: Int, with replacement: String) -> [UInt8] {
            let target = Self.element(element)
            let damaged = target.replacingFirst(marker, with: replacement)
            return Array(text.replacingFirst(target, with: damaged).utf8)
        }
        var invalidUTF8 = good
        let middle = good.count / 2
        let quote = invalidUTF8[middle...].firstIndex(of: UInt8(ascii: "a")) ?? middle
        invalidUTF8[quote] = 0xFF
        return [
            ("trailing comma at the end", Array((text.dropLast() + ",]").utf8)),
            ("duplicate key in a middle element", replacing(#""ok":true"#, in: 6_000, with: #""ok":true,"id":1"#)),
            ("missing comma between elements", Array(text.replacingFirst(",\n" + element(7_000), with: "\n" + element(7_000)).utf8)),
            ("a comment between elements", Array(text.replacingFirst(",\n" + element(9_000), with: ", /* x */" + element(9_000)).utf8)),
            ("an unclosed last element", Array(text.dropLast(2).utf8) + Array("]".utf8)),
            ("an extra closing bracket", Array(text.replacingFirst(element(3_000) + ",", with: element(3_000) + "],").utf8)),
            ("NaN in a middle element", replacing("-1.5e3", in: 8_000, with: "NaN")),
            ("an escaped quote left open", replacing(#"\"d\""#, in: 5_000, with: #"\"d\"#)),
            ("invalid UTF-8 in a string", invalidUTF8),
            ("garbage after the array", good + Array(" x".utf8)),
        ]
    }()

    @Test(arguments: damaged.indices)
    func aDamagedArrayGivesTheSinglePassError(_ index: Int) {
        let (name, bytes) = Self.damaged[index]
        #expect(bytes.count >= JSONParser.parallelThreshold, "\(name)")
        #expect(Self.parallel(bytes) == nil, "\(name)")
        guard case .failure(let expected) = Self.singlePass(bytes) else {
            Issue.record("the single pass accepted: \(name)")
            return
        }
        #expect(throws: expected, "\(name)") { try JSONParser.parse(bytes) }
    }

    @Test func theDepthLimitCountsTheArrayAroundTheElements() throws {
        // Each element nests three levels: with the array, four.
        let bytes = Self.array(60_000) { #"{"a":[{"b":\#($0)}]}"# }
        #expect(bytes.count >= JSONParser.parallelThreshold)
        let fits = JSONParser.Options(maximumDepth: 4, maximumByteCount: 1 << 30)
        #expect(Self.parallel(bytes, options: fits) == (try Self.singlePass(bytes, options: fits).get()))
        let tooShallow = JSONParser.Options(maximumDepth: 3, maximumByteCount: 1 << 30)
        #expect(Self.parallel(bytes, options: tooShallow) == nil)
        guard case .failure(let expected) = Self.singlePass(bytes, options: tooShallow) else {
            Issue.record("the single pass accepted nesting past the limit")
            return
        }
        #expect(expected.reason == "nesting deeper than 3 levels")
        #expect(throws: expected) { try JSONParser.parse(bytes, options: tooShallow) }
    }
}

extension String {
    /// The text with the first occurrence of `target` replaced.
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
