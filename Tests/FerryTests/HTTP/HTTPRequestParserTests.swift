import Testing
@testable import Ferry

@Suite struct HTTPRequestParserTests {
    static let limits = HTTPRequestParser.Limits(maximumHeaderBytes: 1024, maximumHeaderCount: 20, maximumBodyBytes: 100)

    /// Feeds `input` in pieces of the given sizes (cycled) and collects the requests.
    func parse(_ input: String, pieces: [Int] = [Int.max]) throws(HTTPRequestError) -> [(HTTPRequestHead, String)] {
        var parser = HTTPRequestParser(limits: Self.limits)
        var requests: [(HTTPRequestHead, String)] = []
        let bytes = Array(input.utf8)
        var offset = 0, piece = 0
        repeat {
            let size = min(pieces[piece % pieces.count], bytes.count - offset)
            parser.append(Array(bytes[offset..<offset + size]))
            offset += size
            piece += 1
            loop: while true {
                switch try parser.next() {
                case .needMoreData: break loop
                case .sendContinue: continue
                case .head: _ = try parser.admit(maximumBodyBytes: .max)
                case .request(let head, let body): requests.append((head, String(decoding: body, as: UTF8.self)))
                }
            }
        } while offset < bytes.count
        return requests
    }

    @Test func simpleGetWithQuery() throws {
        let requests = try parse("GET /v1/pull?after=12&entity=User%20Profile&plus=a+b&flag HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try #require(requests.first?.0)
        #expect(head.method == .get)
        #expect(head.path == "/v1/pull")
        #expect(head.query == ["after": "12", "entity": "User Profile", "plus": "a+b", "flag": ""])
        #expect(head.keepAlive)
        #expect(head.headers["HOST"] == "x")
    }

    @Test func pipelinedRequestsComeOutInOrderWhateverTheSplit() throws {
        let input = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
            + "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
            + "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nTrailer: t\r\n\r\n"
            + "\r\nGET /d HTTP/1.0\n\n"
        var seed = UInt64.random(in: 0...UInt64.max)
        for _ in 0..<50 {
            var generator = SplitMix(seed: seed)
            let pieces = (0..<8).map { _ in Int(generator.next() % 20) + 1 }
            let requests = try parse(input, pieces: pieces)
            #expect(requests.map(\.0.path) == ["/a", "/b", "/c", "/d"], "seed \(seed)")
            #expect(requests.map(\.1) == ["", "hello", "abcde", ""], "seed \(seed)")
            #expect(requests[3].0.keepAlive == false)
            seed &+= 1
        }
    }

    @Test func expectContinueAsksForTheBody() throws {
        var parser = HTTPRequestParser(limits: Self.limits)
        parser.append(Array("PUT /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n".utf8))
        // The head comes first, for the server to decide on; 100 Continue only once it is admitted.
        guard case .head = try parser.next() else { Issue.record("no head"); return }
        #expect(try parser.next() == .needMoreData)
        #expect(try parser.admit(maximumBodyBytes: 10) == .sendContinue)
        #expect(try parser.next() == .needMoreData)
        parser.append(Array("ok".utf8))
        guard case .request(_, let body) = try parser.next() else { Issue.record("no request"); return }
        #expect(body == Array("ok".utf8))
        #expect(parser.isIdle)
    }

    @Test(arguments: [
        ("GET /\r\n\r\n", HTTPRequestError.malformedRequestLine),
        ("GET  / HTTP/1.1\r\nHost: x\r\n\r\n", .malformedRequestLine),
        ("GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n", .malformedRequestLine),
        ("G(T / HTTP/1.1\r\nHost: x\r\n\r\n", .invalidMethod),
        ("BREW / HTTP/1.1\r\nHost: x\r\n\r\n", .methodNotImplemented("BREW")),
        ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", .unsupportedVersion("HTTP/2.0")),
        ("GET / HTTP/9.9\r\nHost: x\r\n\r\n", .unsupportedVersion("HTTP/9.9")),
        ("GET / HTTP/1.x\r\nHost: x\r\n\r\n", .malformedRequestLine),
        ("GET nopath HTTP/1.1\r\nHost: x\r\n\r\n", .invalidTarget),
        ("GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n", .invalidPercentEncoding),
        ("GET /%ff HTTP/1.1\r\nHost: x\r\n\r\n", .invalidPercentEncoding),
        ("GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n", .headerWithoutColon),
        ("GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost : x\r\n\r\n", .invalidHeaderName),
        ("GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n  folded\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\nHost: x\r\nA: b\0c\r\n\r\n", .nulByte),
        ("GET / HTTP/1.1\r\nHost: x\r\nA: b\rc\r\n\r\n", .invalidHeaderValue),
        ("GET / HTTP/1.1\r\n\r\n", .invalidHost),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .invalidHost),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", .duplicateContentLength),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", .duplicateContentLength),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 1\r\n\r\n", .duplicateContentLength),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", .conflictingFraming),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferEncoding),
        ("POST / HTTP/1.1\r\nHost: x\r\n\r\n", .lengthRequired),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n", .bodyTooLarge(limit: 100)),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .malformedChunkedBody),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY", .malformedChunkedBody),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n65\r\n", .bodyTooLarge(limit: 100)),
        ("GET /" + String(repeating: "a", count: 2000), .headersTooLarge(limit: 1024)),
        ("GET / HTTP/1.1\r\nHost: x\r\n" + String(repeating: "A: b\r\n", count: 21) + "\r\n", .headersTooLarge(limit: 1024)),
    ])
    func malformedInputIsRejected(input: String, expected: HTTPRequestError) {
        #expect(throws: expected) { try parse(input) }
        #expect(throws: expected) { try parse(input, pieces: [1]) }
    }
}

/// A small seeded generator, so a failing split can be replayed from its printed seed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
