import Testing
@testable import Ferry

/// Record files made from canonical bytes (``JSONWriter/prettyBytes(fromCanonical:)``) must be
/// byte for byte the pretty form written from the value.
@Suite struct PrettyFromCanonicalTests {
    @Test(arguments: [
        #"{}"#, #"[]"#, #"{"a":[]}"#, #"{"a":{},"b":[[],{}],"c":[1,[2,[3]]]}"#,
        #"{"s":"a,b:{c}[d]","t":"quote \" and \\ and \\\" end","u":"é😀\u0001"}"#,
        #"[null,true,false,-0.5,1e+300,12,"x"]"#, #""just a string""#, #"42"#,
    ])
    func handPickedValues(text: String) throws {
        let value = try JSONParser.parse(text)
        #expect(JSONWriter.prettyBytes(fromCanonical: value.canonicalBytes()) == value.prettyBytes(), "\(text)")
    }

    @Test(arguments: [11, 12, 13])
    func randomValues(seed: UInt64) {
        let generator = CanonicalEntryDecoderTests()
        var random = CanonicalEntryDecoderTests.Random(state: seed)
        for _ in 0..<500 {
            let value = generator.value(&random, depth: 0)
            #expect(
                JSONWriter.prettyBytes(fromCanonical: value.canonicalBytes()) == value.prettyBytes(),
                "seed \(seed): \(String(decoding: value.canonicalBytes(), as: UTF8.self))")
        }
    }
}
