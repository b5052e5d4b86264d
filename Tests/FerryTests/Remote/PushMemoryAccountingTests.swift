import Testing
@testable import Ferry

/// A push is counted as it is parsed, and a change is refused as soon as it can be (issue 49,
/// item 2): over the document limit while its bytes are scanned, altered as soon as it ends.
@Suite struct PushMemoryAccountingTests {
    @Test func aChangeOverTheDocumentLimitIsRefusedWhileItsBytesArrive() throws {
        var decoder = PushRequestDecoder(maximumDocumentBytes: 1000)
        try decoder.feed(Array(#"{"changes":[{"doc":{"a":""#.utf8))
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        var refused: RemoteMessageError?
        var fed = 0
        while refused == nil && fed < 4 << 20 {
            do throws(RemoteMessageError) { try decoder.feed(piece) } catch { refused = error }
            fed += piece.count
        }
        let error = try #require(refused, "the change was never refused")
        #expect(fed <= PushRequestDecoder.changeOverheadBytes + 1000 + piece.count)
        #expect(error.description.contains("changes[0]") && error.description.contains("larger than"), "\(error)")
    }

    @Test func aDocumentOverTheLimitOnceCanonicalIsRefusedWhenItsChangeEnds() throws {
        let change = try #require(try PushRequestDecoderTests.changes().first)
        var decoder = PushRequestDecoder(maximumDocumentBytes: 20)
        var bytes: [UInt8] = Array(#"{"changes":["#.utf8)
        change.writeCanonicalJSON(to: &bytes)
        #expect(throws: RemoteMessageError.self) { try decoder.feed(bytes) }
    }

    @Test func anAlteredChangeIsRefusedAtItsLastByteNotAtTheEndOfThePush() throws {
        var change = try #require(try PushRequestDecoderTests.changes().first)
        change.operation = .put(["t": "altered"])
        var bytes: [UInt8] = Array(#"{"changes":["#.utf8)
        change.writeCanonicalJSON(to: &bytes)
        bytes.append(UInt8(ascii: ","))  // more to come: the push is not over
        var decoder = PushRequestDecoder()
        do throws(RemoteMessageError) {
            try decoder.feed(bytes)
            Issue.record("the altered change was taken")
        } catch {
            #expect(error.description.contains("changes[0] does not match its digest") && error.isRefusedClaim, "\(error)")
        }
    }

    @Test func whatAParseWillTakeIsCountedBeforeTheParse() throws {
        // The amplifying shape: tiny values, each a node once parsed.
        var decoder = PushRequestDecoder()
        try decoder.feed(Array(#"{"changes":[{"doc":{"a":["#.utf8))
        let elements = 100_000
        try decoder.feed(Array(String(repeating: #"{"":0},"#, count: elements).utf8))
        // 700 KB received; the parse of what it holds would take far more, and that is counted.
        #expect(decoder.retainedBytes >= elements * 3 * PushRequestDecoder.bytesPerParsedValue)
    }
}
