import Testing
@testable import Ferry

/// The change feed's client takes a chunked body apart however the network cuts it.
@Suite struct ChunkedBodyDecoderTests {
    /// Three chunks (one with an extension), the last chunk and a trailer field.
    let body = Array("5\r\nhello\r\n7;name=value\r\n, world\r\nB\r\n: keepalive\r\n0\r\nExpires: never\r\n\r\n".utf8)

    @Test func aBodyCutAtEveryPointDecodesToThePayload() throws {
        for cut in 0...body.count {
            var decoder = ChunkedBodyDecoder()
            var payload = try decoder.decode(body[..<cut])
            #expect(!decoder.isFinished || cut == body.count)
            payload += try decoder.decode(body[cut...])
            #expect(String(decoding: payload, as: UTF8.self) == "hello, world: keepalive", "cut at \(cut)")
            #expect(decoder.isFinished, "cut at \(cut)")
        }
    }

    @Test func aBodyFedOneByteAtATimeDecodesToThePayload() throws {
        var decoder = ChunkedBodyDecoder()
        var payload: [UInt8] = []
        for index in body.indices { payload += try decoder.decode(body[index...index]) }
        #expect(String(decoding: payload, as: UTF8.self) == "hello, world: keepalive")
        #expect(decoder.isFinished)
    }

    @Test func brokenFramingIsAnErrorNotAPayload() {
        for broken in ["zz\r\nhello\r\n", "5\r\nhello, world\r\n", "\r\n", String(repeating: "1", count: 2000) + "\r\n"] {
            var decoder = ChunkedBodyDecoder()
            #expect(throws: HTTPClientFailure.self, "\(broken.prefix(20))") { try decoder.decode(Array(broken.utf8)[...]) }
        }
    }
}
