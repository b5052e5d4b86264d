import FerryTestSupport
import Testing

@testable import Ferry

/// The streamed reader of a top-level array must accept exactly what the parser accepts, give
/// the same elements, and report the same first error at the same line and column, wherever
/// the chunks it reads happen to split the text.
@Suite struct JSONArrayStreamTests {
    /// Every element of `bytes` read through a stream of `chunk`-byte reads, at most `batch`
    /// per call, or its error.
    static func streamed(
        _ bytes: [UInt8], chunk: Int, batch: Int = 3, maximumDepth: Int = 512, elementLimit: Int = 1 << 20
    ) -> (result: Result<[JSONValue], JSONArrayStream.Failure>, highWater: Int) {
        var stream = JSONArrayStream(
            source: .bytes(bytes),
            options: .init(maximumDepth: maximumDepth, maximumElementBytes: elementLimit, chunkBytes: chunk))
        let result = Result { () throws(JSONArrayStream.Failure) -> [JSONValue] in
            guard try stream.openArray() else { return [] }
            var all: [JSONValue] = []
            while true {
                let elements = try stream.nextElements(upTo: batch)
                if elements.isEmpty { return all }
                all += elements
            }
        }
        return (result, stream.highWaterBytes)
    }

    /// What the parser says of the whole document, in the stream's terms.
    static func reference(_ bytes: [UInt8], maximumDepth: Int = 512) -> Result<[JSONValue], JSONArrayStream.Failure> {
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                var scanner = JSONScanner(input: buffer, maximumDepth: maximumDepth)
                return try scanner.parseDocument()
            }
        }
        return parsed.map { $0.arrayValue ?? [] }.mapError { .invalidJSON($0) }
    }

    /// Checks `text` at every chunk size from 1 to its length (so every split point of every
    /// string, escape, number and UTF-8 sequence is met) and a few batch sizes.
    static func expectSameAsParser(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(text.utf8)
        let expected = reference(bytes)
        for chunk in Array(1...max(1, min(bytes.count, 40))) + [64, 4_096] {
            for batch in [1, 2, 1_000] {
                let (result, _) = streamed(bytes, chunk: chunk, batch: batch)
                #expect(result == expected, "chunk \(chunk), batch \(batch): \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func validArraysGiveTheParsersElements() {
        Self.expectSameAsParser("[]")
        Self.expectSameAsParser(" \n[ \t]\n ")
        Self.expectSameAsParser("[1]")
        Self.expectSameAsParser("[1,2,3]")
        Self.expectSameAsParser("[ -12.5e3 , 0 , 1e2 , true,false ,null ]")
        Self.expectSameAsParser(#"["a,b]", "c\"],", "\\", "\\\"", "\u00e9\ud83d\ude00", "é✓😀"]"#)
        Self.expectSameAsParser(#"[[1,[2,[3]]],{"a":[{"b":"]}"}],"x":{}},[],{}]"#)
        Self.expectSameAsParser("[\n  {\"id\": 1,\n   \"name\": \"Ana\"},\n  {\"id\": 2}\n]\n")
    }

    @Test func invalidDocumentsGiveTheParsersFirstError() {
        for text in [
            "", "   ", "\n\n", "[", "[1", "[1,", "[1, ", "[1,]", "[1 ,\n ]", "[,1]", "[1 2]", "[1}", "[{]", "[{\"a\":1]",
            "[1] x", "[1] // c", "[1]]", "[1],", "[\"abc", "[\"a\\", "[\"a\\u12\"]", "[\"\u{1}\"]", "[tru]", "[-]", "[01]",
            "[1.]", "[NaN]", "[{\"a\":1,\"a\":2}]", "[{\"a\" 1}]", "[1]\n\n  garbage", "[\"é\", x]", "\u{FEFF}[1]",
            "[{\"k\": [1, 2}, 3]", "[1}, 2]", "[\n{\"a\":\n  [1,\n   2,]}]", "[1 2,]", "[[1]\n 2 , ]", "[1, 2 3, ]",
        ] {
            Self.expectSameAsParser(text)
        }
    }

    @Test func invalidUTF8IsFoundWhereverTheChunksSplitIt() {
        let bytes: [UInt8] = Array(#"["ok", "a"#.utf8) + [0xC3] + Array(#"", 1]"#.utf8)
        let expected = Self.reference(bytes)
        guard case .failure = expected else {
            Issue.record("the parser accepted invalid UTF-8")
            return
        }
        for chunk in 1...bytes.count { #expect(Self.streamed(bytes, chunk: chunk).result == expected, "chunk \(chunk)") }
    }

    @Test func depthCountsTheArrayAroundEachElement() {
        let ok = "[" + String(repeating: "[", count: 3) + String(repeating: "]", count: 3) + "]"
        let deep = "[" + String(repeating: "[", count: 4) + String(repeating: "]", count: 4) + "]"
        for text in [ok, deep] {
            let bytes = Array(text.utf8)
            for chunk in [1, 2, 100] {
                #expect(Self.streamed(bytes, chunk: chunk, maximumDepth: 4).result == Self.reference(bytes, maximumDepth: 4))
            }
        }
        guard case .failure(.invalidJSON(let error)) = Self.streamed(Array(deep.utf8), chunk: 3, maximumDepth: 4).result else {
            Issue.record("five levels passed a limit of four")
            return
        }
        #expect(error.reason == "nesting deeper than 4 levels")
    }

    @Test func aTopLevelThatIsNotAnArrayIsLeftToTheCaller() throws {
        for text in [#"{"data": []}"#, "12", #""x""#] {
            var stream = JSONArrayStream(source: .bytes(Array(text.utf8)), options: .init(chunkBytes: 2))
            #expect(try stream.openArray() == false)
        }
    }

    @Test func anElementLargerThanTheLimitIsRefusedNamingIt() {
        let text = #"[1, "# + "\"" + String(repeating: "x", count: 200) + "\"]"
        guard case .failure(.invalidJSON(let error)) = Self.streamed(Array(text.utf8), chunk: 16, elementLimit: 100).result else {
            Issue.record("a 202-byte element passed a 100-byte limit")
            return
        }
        #expect(error == JSONParseError(line: 1, column: 5, reason: "array element 1 is larger than the limit of 100 bytes"))
    }

    /// Random arrays, pretty or compact, read with random chunk sizes: the elements are the
    /// parser's and the window never holds much more than a chunk and an element.
    @Test func randomArraysReadInRandomChunks() {
        var random = RandomJSONValues(seed: RandomJSONValues.seedFromEnvironment())
        for round in 0..<60 {
            let elements = (0..<Int.random(in: 0...30, using: &random.generator)).map { _ in random.value(maximumDepth: 3) }
            let value = JSONValue.array(elements)
            let bytes = round.isMultiple(of: 2) ? value.canonicalBytes() : value.prettyBytes()
            let chunk = Int.random(in: 1...64, using: &random.generator)
            let (result, highWater) = Self.streamed(bytes, chunk: chunk, batch: Int.random(in: 1...8, using: &random.generator))
            #expect(result == .success(elements), "seed \(random.seed), round \(round), chunk \(chunk)")
            // An element's bytes as the array holds it (pretty, one level in).
            let largest = elements.map { JSONValue.array([$0]).prettyBytes().count }.max() ?? 0
            #expect(highWater <= 2 * chunk + largest + 8, "seed \(random.seed), round \(round)")
        }
    }

    /// A document of a few megabytes read through a 64 KiB window never holds more than the
    /// window and one element.
    @Test func aLargeArrayIsReadThroughASmallWindow() throws {
        let element = #"{"id": 123456, "name": "Somebody with a long name", "tags": ["a", "b", "c"], "n": 1.5}"#
        let count = 40_000
        let bytes = Array(("[" + Array(repeating: element, count: count).joined(separator: ",\n") + "]").utf8)
        #expect(bytes.count > 3_000_000)
        var stream = JSONArrayStream(source: .bytes(bytes), options: .init(chunkBytes: 64 << 10))
        #expect(try stream.openArray())
        var read = 0
        let expected = try JSONParser.parse(element)
        while case let elements = try stream.nextElements(upTo: 500), !elements.isEmpty {
            #expect(elements.allSatisfy { $0 == expected })
            read += elements.count
        }
        #expect(read == count)
        #expect(stream.elementCount == count)
        #expect(stream.highWaterBytes <= 64 << 10 + element.utf8.count + 2)
    }
}
