import FerryTestSupport
import Testing

@testable import Ferry

/// An array read at a path inside objects (`{"data": [...]}` at `data`) must give what the
/// parser gives of the whole document and the value at that path: the same elements, or the
/// same first error at the same line and column, wherever the chunks split the text. Where the
/// path leads to no array, the stream leaves the document to a whole-document reader.
@Suite struct JSONArrayStreamPathTests {
    /// What reading at a path gives: the elements or the first error, or "left to the caller".
    enum Outcome: Equatable {
        case read(Result<[JSONValue], JSONArrayStream.Failure>)
        case leftToCaller
    }

    static func streamed(
        _ bytes: [UInt8], at path: [String], chunk: Int, batch: Int, maximumDepth: Int = 512, elementLimit: Int = 1 << 20
    ) -> (outcome: Outcome, highWater: Int) {
        var stream = JSONArrayStream(
            source: .bytes(bytes), options: .init(maximumDepth: maximumDepth, maximumElementBytes: elementLimit, chunkBytes: chunk))
        var isArray = true
        let result = Result { () throws(JSONArrayStream.Failure) -> [JSONValue] in
            guard try stream.openArray(at: path) else {
                isArray = false
                return []
            }
            var all: [JSONValue] = []
            while true {
                let elements = try stream.nextElements(upTo: batch)
                if elements.isEmpty { return all }
                all += elements
            }
        }
        return (isArray ? .read(result) : .leftToCaller, stream.highWaterBytes)
    }

    /// The parser's verdict on the whole document, and the array at `path` when there is one.
    static func reference(_ bytes: [UInt8], at path: [String], maximumDepth: Int = 512) -> Outcome {
        let parsed = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                var scanner = JSONScanner(input: buffer, maximumDepth: maximumDepth)
                return try scanner.parseDocument()
            }
        }
        switch parsed {
        case .failure(let error): return .read(.failure(.invalidJSON(error)))
        case .success(var value):
            for key in path {
                guard let next = value.objectValue?[key] else { return .leftToCaller }
                value = next
            }
            guard let elements = value.arrayValue else { return .leftToCaller }
            return .read(.success(elements))
        }
    }

    /// Checks `text` at every chunk size up to 40 bytes and a few batch sizes: a valid document
    /// with an array at `path` gives its elements; an invalid one gives the parser's first
    /// error, or is left to the caller when the path leads nowhere before the error is met.
    static func expectSameAsParser(_ text: String, at path: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(text.utf8)
        let expected = reference(bytes, at: path)
        for chunk in Array(1...max(1, min(bytes.count, 40))) + [64, 4_096] {
            for batch in [1, 2, 1_000] {
                let (outcome, _) = streamed(bytes, at: path, chunk: chunk, batch: batch)
                if case .read(.failure) = expected, outcome == .leftToCaller { continue }
                #expect(outcome == expected, "chunk \(chunk), batch \(batch): \(text)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func validDocumentsGiveTheArrayAtThePath() {
        Self.expectSameAsParser(#"{"data": [1, 2, 3]}"#, at: ["data"])
        Self.expectSameAsParser(#"{"data":[]}"#, at: ["data"])
        Self.expectSameAsParser(" \n{ \"data\" :\n [ {\"id\": 1} ,{\"id\":2}\n]\n }\n ", at: ["data"])
        Self.expectSameAsParser(
            #"{"meta": {"next": "}],\"x", "n": [1, {"a": "]"}]}, "data": [{"id": "a,b"}], "links": {"self": "/x?a=[1]"}}"#,
            at: ["data"])
        Self.expectSameAsParser(#"{"a": 1, "response": {"total": 2, "items": [[1], {"x": {}}], "z": []}, "b": [true]}"#, at: ["response", "items"])
        // A key written with escapes is the key it spells, as for the parser.
        Self.expectSameAsParser(#"{"\u0064ata": [1], "x\"y": 2}"#, at: ["data"])
        Self.expectSameAsParser(#"{"é✓": ["😀"], "e\u0301": 1}"#, at: ["é✓"])
    }

    @Test func invalidDocumentsGiveTheParsersFirstError() {
        for text in [
            #"{"data": [1, 2]"#, #"{"data": [1, 2]]"#, #"{"data": [1, 2],}"#, #"{"data": [1, 2] "x": 1}"#,
            #"{"data": [1, 2]} x"#, #"{"data": [1, 2]} // c"#, #"{"x": 1 "data": []}"#, #"{"x" 1, "data": []}"#,
            #"{x: 1, "data": []}"#, #"{'x': 1, "data": []}"#, #"{"x": 1,, "data": []}"#, #"{"x": 1, "data": [1,]}"#,
            #"{"x": [1}, "data": []}"#, #"{"x": tru, "data": []}"#, #"{"data": [1, {"a": 1, "a": 2}]}"#,
            #"{"x": 1, "x": 2, "data": [3]}"#, #"{"data": [1], "data": [2]}"#, #"{"data": [1], "y": 1, "y": 2}"#,
            #"{"é": 1, "e\u0301": 2, "data": []}"#, #"{"x": 1, "x": 2, "data": [1, 2,]}"#, #"{"data": [1], "z": {"a": 1, "a": 2}}"#,
            #"{"data": [1], "z": "\u12"}"#, #"{"data": [1], "#, #"{"data": [1]  "#, "{\"data\": [1], \"z\": \"\u{1}\"}",
            #"{"x": "abc"#, #"{"data": ["#, "\u{FEFF}{\"data\": []}", #"{"data": [1], "z": [1, 2}"#,
        ] {
            Self.expectSameAsParser(text, at: ["data"])
        }
        Self.expectSameAsParser(#"{"a": {"b": [1], "b": [2]}, "c": 1}"#, at: ["a", "b"])
        Self.expectSameAsParser(#"{"a": {"b": [1]}, "c": 1,}"#, at: ["a", "b"])
        Self.expectSameAsParser(#"{"a": {"b": [1], "c": 1 ], "d": 2}"#, at: ["a", "b"])
    }

    @Test func aPathThatLeadsToNoArrayIsLeftToTheCaller() {
        for (text, path) in [
            (#"{"data": {"id": 1}}"#, ["data"]), (#"{"data": 1}"#, ["data"]), (#"{"other": []}"#, ["data"]), ("{}", ["data"]),
            ("[1, 2]", ["data"]), (#"{"data": []}"#, ["data", "items"]), (#"{"a": [1]}"#, ["a", "b"]), (#""data""#, ["data"]),
        ] {
            for chunk in [1, 3, 100] {
                #expect(Self.streamed(Array(text.utf8), at: path, chunk: chunk, batch: 2).outcome == .leftToCaller, "\(text) at \(path)")
            }
            #expect(Self.reference(Array(text.utf8), at: path) == .leftToCaller)
        }
    }

    @Test func depthCountsTheObjectsAroundTheArray() {
        // Two objects and the array leave room for one more level under a limit of four.
        let ok = #"{"a": {"b": [[1]]}}"#
        let deep = #"{"a": {"b": [[[1]]]}}"#
        for text in [ok, deep] {
            let bytes = Array(text.utf8)
            for chunk in [1, 2, 100] {
                let expected = Self.reference(bytes, at: ["a", "b"], maximumDepth: 4)
                #expect(Self.streamed(bytes, at: ["a", "b"], chunk: chunk, batch: 1, maximumDepth: 4).outcome == expected)
            }
        }
        guard case .read(.failure(.invalidJSON(let error))) = Self.streamed(Array(deep.utf8), at: ["a", "b"], chunk: 3, batch: 1, maximumDepth: 4).outcome
        else {
            Issue.record("five levels passed a limit of four")
            return
        }
        #expect(error.reason == "nesting deeper than 4 levels")
    }

    /// A member before the array larger than the element limit leaves the document to the
    /// caller; one after it is refused by name (its elements were handed out already).
    @Test func largeMembersBesideTheArray() {
        let large = "\"" + String(repeating: "x", count: 300) + "\""
        let before = Array(#"{"blob": \#(large), "data": [1]}"#.utf8)
        #expect(Self.streamed(before, at: ["data"], chunk: 16, batch: 1, elementLimit: 100).outcome == .leftToCaller)
        let after = Array(#"{"data": [1], "blob": \#(large)}"#.utf8)
        guard case .read(.failure(.invalidJSON(let error))) = Self.streamed(after, at: ["data"], chunk: 16, batch: 1, elementLimit: 100).outcome
        else {
            Issue.record("a 302-byte member passed a 100-byte limit")
            return
        }
        #expect(error.reason == "an object member after the array is larger than the limit of 100 bytes")
        #expect(error.line == 1 && error.column == 23)
    }

    /// Wrapped documents with a byte changed, inserted or removed at random: the stream never
    /// crashes, hands out a valid document's elements, and reports an invalid one's first
    /// error (or leaves it to the caller when the path leads nowhere before the error).
    /// (Every other round mutates a bare array read at the top level, the streamed import's
    /// other form.)
    @Test func mutatedWrappedDocumentsGiveTheParsersVerdict() {
        var random = RandomJSONValues(seed: RandomJSONValues.seedFromEnvironment())
        let alphabet = Array(#"{}[]",:\ "0123456789.eE-+tfnul"#.utf8) + [0x0A, 0x09, 0xC3, 0xA9, 0x80]
        var compared = (valid: 0, invalid: 0)
        for round in 0..<300 {
            let elements = (0..<Int.random(in: 0...4, using: &random.generator)).map { _ in random.value(maximumDepth: 2) }
            let isBare = round % 4 >= 2
            let path = isBare ? [] : ["data", "items"]
            let value = isBare ? JSONValue.array(elements) : JSONValue.object([
                "before": random.value(maximumDepth: 2), "data": .object(["items": .array(elements), "n": .integer(1)]),
                "after": random.value(maximumDepth: 2),
            ])
            var bytes = round.isMultiple(of: 2) ? value.canonicalBytes() : value.prettyBytes()
            for _ in 0..<Int.random(in: 1...3, using: &random.generator) {
                let at = Int.random(in: 0..<max(1, bytes.count), using: &random.generator)
                let byte = alphabet[Int.random(in: 0..<alphabet.count, using: &random.generator)]
                switch Int.random(in: 0..<3, using: &random.generator) {
                case 0 where !bytes.isEmpty: bytes[at] = byte
                case 1: bytes.insert(byte, at: min(at, bytes.count))
                default: if !bytes.isEmpty { bytes.remove(at: at) }
                }
            }
            let expected = Self.reference(bytes, at: path)
            let chunk = Int.random(in: 1...48, using: &random.generator)
            let (outcome, _) = Self.streamed(bytes, at: path, chunk: chunk, batch: Int.random(in: 1...4, using: &random.generator))
            if case .read(.failure) = expected, outcome == .leftToCaller { continue }
            #expect(outcome == expected, "seed \(random.seed), round \(round), chunk \(chunk): \(String(decoding: bytes, as: UTF8.self))")
            if case .read(.success) = expected { compared.valid += 1 } else if case .read(.failure) = expected { compared.invalid += 1 }
        }
        // Most mutations break the document; enough of both kinds must have been compared.
        #expect(compared.invalid >= 150 && compared.valid >= 10, "seed \(random.seed): \(compared)")
    }

    /// Random arrays wrapped in objects with random members before and after, pretty or
    /// compact, read in random chunks: the elements are the parser's, and the window never
    /// holds much more than a chunk and the largest element or member.
    @Test func randomWrappedArraysReadInRandomChunks() {
        var random = RandomJSONValues(seed: RandomJSONValues.seedFromEnvironment())
        for round in 0..<60 {
            let elements = (0..<Int.random(in: 0...30, using: &random.generator)).map { _ in random.value(maximumDepth: 3) }
            var inner: [String: JSONValue] = ["items": .array(elements)]
            var outer: [String: JSONValue] = [:]
            for index in 0..<Int.random(in: 0...4, using: &random.generator) {
                inner["m\(index)"] = random.value(maximumDepth: 3)
                outer["k\(index)"] = random.value(maximumDepth: 3)
            }
            outer["response"] = .object(inner)
            let value = JSONValue.object(outer)
            let bytes = round.isMultiple(of: 2) ? value.canonicalBytes() : value.prettyBytes()
            let chunk = Int.random(in: 1...64, using: &random.generator)
            let batch = Int.random(in: 1...8, using: &random.generator)
            let (outcome, highWater) = Self.streamed(bytes, at: ["response", "items"], chunk: chunk, batch: batch)
            #expect(outcome == .read(.success(elements)), "seed \(random.seed), round \(round), chunk \(chunk)")
            let members = Array(inner.filter { $0.key != "items" }.values) + Array(outer.filter { $0.key != "response" }.values)
            let largest = (elements + members).map { JSONValue.array([$0]).prettyBytes().count }.max() ?? 0
            #expect(highWater <= 2 * chunk + 2 * largest + 64, "seed \(random.seed), round \(round)")
        }
    }
}
