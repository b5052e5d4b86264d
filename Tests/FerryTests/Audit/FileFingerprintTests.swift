import Testing
@testable import Ferry

/// Verify matches record files against the journal by fingerprints of canonical bytes: a file
/// Ferry wrote (the pretty form) must compact to exactly the canonical bytes, and whitespace
/// that could join two tokens must not be taken out.
@Suite struct FileFingerprintTests {
    func canonical(_ document: JSONValue) -> FileFingerprint {
        document.canonicalBytes().withUnsafeBytes { FileFingerprint($0) }
    }

    @Test(arguments: [1, 2, 3])
    func prettyFilesCompactToTheirCanonicalBytes(seed: UInt64) {
        var random = CanonicalEntryDecoderTests.Random(state: seed)
        let generator = CanonicalEntryDecoderTests()
        for _ in 0..<300 {
            let document = generator.object(&random, depth: 1)
            #expect(FileFingerprint(compacting: document.prettyBytes()) == canonical(document), "seed \(seed): \(document)")
        }
    }

    @Test func tricky() {
        let document: JSONValue = [
            "a b": "x  y\n\t", "q": "say \"hi\" \\ ", "e": [:], "l": [], "n": [1, -2.5, 1e21, 0], "t": [true, false, .null],
            "deep": ["x": [["y": " "]]],
        ]
        #expect(FileFingerprint(compacting: document.prettyBytes()) == canonical(document))
        #expect(FileFingerprint(compacting: Array("  {\"a\" : 1 ,\r\n\"b\":[ 2 ] }\n\n".utf8)) == canonical(["a": 1, "b": [2]]))
        // Whitespace between two plain tokens would join them when taken out.
        for text in [#"{"a":tr ue}"#, #"{"a":1 2}"#, #"{"a":"x" "y"}"#, #"{"a":"unterminated}"#] {
            #expect(FileFingerprint(compacting: Array(text.utf8)) == nil, "\(text)")
        }
        // Another layout of other content does not match.
        #expect(FileFingerprint(compacting: Array(#"{"a": 2}"#.utf8)) != canonical(["a": 1]))
    }
}
