import Testing

@testable import Ferry

/// ``PercentEncoding``: the one encoder and the two decoders every client and the server use.
@Suite struct PercentEncodingTests {
    @Test func encodingKeepsOnlyTheUnreservedCharacters() {
        #expect(PercentEncoding.encode("AZaz09-_.~") == "AZaz09-_.~")
        #expect(PercentEncoding.encode("a b/c?d=e&f+g%") == "a%20b%2Fc%3Fd%3De%26f%2Bg%25")
        #expect(PercentEncoding.encode("a b/c", keepingSlashes: true) == "a%20b/c")
        #expect(PercentEncoding.encode("é€😀") == "%C3%A9%E2%82%AC%F0%9F%98%80")
        #expect(PercentEncoding.encode(bytes: [0, 0x7F, 0xFF]) == "%00%7F%FF")
    }

    @Test func everyStringComesBackFromItsEncoding() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("aZ9 -_.~/%?#&=+é€😀\u{0}\t")
        for _ in 0..<500 {
            let text = String((0..<Int.random(in: 0...20, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            for slashes in [false, true] {
                let encoded = PercentEncoding.encode(text, keepingSlashes: slashes)
                #expect(PercentEncoding.decode(encoded[...]) == text, "\(text)")
                #expect(PercentEncoding.decodeLeniently(Array(encoded.utf8)) == Array(text.utf8), "\(text)")
            }
        }
    }

    @Test func strictDecodingRefusesBrokenEscapesAndInvalidUTF8() {
        #expect(PercentEncoding.decode("plain") == "plain")
        #expect(PercentEncoding.decode("a%2fb%2F") == "a/b/")
        for bad in ["%", "%2", "%zz", "a%g0", "%C3", "%FF"] {
            #expect(PercentEncoding.decode(bad[...]) == nil, "\(bad)")
        }
    }

    @Test func lenientDecodingLeavesABrokenEscapeAsItIs() {
        #expect(PercentEncoding.decodeLeniently(Array("100%".utf8)) == Array("100%".utf8))
        #expect(PercentEncoding.decodeLeniently(Array("%zz%41%4".utf8)) == Array("%zzA%4".utf8))
    }
}
