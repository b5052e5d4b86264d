import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FerryTestSupport
import Testing
@testable import Ferry

@Suite(.eachTestOnItsOwnThread) struct HTTPServerTests {
    func session() -> URLSession { URLSession(configuration: .ephemeral) }

    @Test func getAndPostWithURLSession() async throws {
        let server = try TestServer()
        defer { Task { await server.stop() } }
        let (data, response) = try await session().data(from: server.baseURL.appendingPathComponent("hello"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "hello\n")

        var request = URLRequest(url: server.baseURL.appendingPathComponent("echo"))
        request.httpMethod = "POST"
        let payload = Data((0..<100_000).map { UInt8($0 % 251) })
        request.httpBody = payload
        let (echoed, echoResponse) = try await session().data(for: request)
        let http = try #require(echoResponse as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "x-body-length") == "100000")
        #expect(echoed == payload)

        let (_, missing) = try await session().data(from: server.baseURL.appendingPathComponent("nowhere"))
        #expect((missing as? HTTPURLResponse)?.statusCode == 404)
        await server.stop()
    }

    @Test func queryIsPercentDecoded() async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        try await client.send("GET /query?b=two%20words&a=%C3%A9t%C3%A9&c HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try #require(try await client.readResponse())
        #expect(response.text == "a=été\nb=two words\nc=")
        await server.stop()
    }

    @Test func keepAliveReusesTheConnection() async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        for _ in 0..<3 {
            try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try #require(try await client.readResponse())
            #expect(response.code == 200)
            #expect(response.text == "hello\n")
            #expect(response.headers["Connection"] == nil)
        }
        #expect(server.requestsHandled == 3)
        await server.stop()
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        try await client.send(
            "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nfirst"
                + "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsecond")
        var texts: [String] = []
        while let response = try await client.readResponse() { texts.append(response.text) }
        #expect(texts == ["slow\n", "first", "hello\n", "second"])
        await server.stop()
    }

    @Test func connectionCloseIsHonoured() async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = try #require(try await client.readResponse())
        #expect(response.headers["Connection"] == "close")
        #expect(await client.isClosedByServer())
        await server.stop()
    }

    @Test func http10ClosesUnlessAskedToKeepAlive() async throws {
        let server = try TestServer()
        let plain = try RawClient(port: server.port)
        try await plain.send("GET /hello HTTP/1.0\r\n\r\n")
        #expect(try await plain.readResponse()?.code == 200)
        #expect(await plain.isClosedByServer())

        let kept = try RawClient(port: server.port)
        for _ in 0..<2 {
            try await kept.send("GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let response = try #require(try await kept.readResponse())
            #expect(response.headers["Connection"] == "keep-alive")
        }
        await server.stop()
    }

    @Test func headRequestsGetNoBody() async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        try await client.send("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try #require(try await client.readResponse(forHead: true))
        #expect(response.headers["Content-Length"] == "6")
        try await client.send("GET /no-content HTTP/1.1\r\nHost: x\r\n\r\n")
        let empty = try #require(try await client.readResponse())
        #expect(empty.code == 204 && empty.headers["Content-Length"] == nil)
        try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await client.readResponse()?.text == "hello\n")  // nothing stray was left on the wire
        await server.stop()
    }

    @Test func chunkedRequestBodyIsDecoded() async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        try await client.send("6\r\n world\r\n0\r\n\r\n")
        let response = try #require(try await client.readResponse())
        #expect(response.text == "hello world")
        await server.stop()
    }

    @Test func streamedResponseIsChunked() async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        try await client.send("GET /stream?chunks=4&size=3 HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try #require(try await client.readResponse())
        #expect(response.headers["Transfer-Encoding"] == "chunked")
        #expect(response.chunkSizes == [3, 3, 3, 3])
        #expect(response.text == "aaabbbcccddd")
        try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")  // the connection is still usable
        #expect(try await client.readResponse()?.text == "hello\n")

        // An HTTP/1.0 client gets the stream unframed, ended by the close.
        let old = try RawClient(port: server.port)
        try await old.send("GET /stream?chunks=2&size=2 HTTP/1.0\r\n\r\n")
        let unframed = try #require(try await old.readResponse())
        #expect(unframed.text == "aabb" && unframed.headers["Transfer-Encoding"] == nil)
        await server.stop()
    }

    @Test func largeStreamedResponseWithURLSession() async throws {
        let server = try TestServer()
        let url = URL(string: "http://127.0.0.1:\(server.port)/stream?chunks=200&size=65536")!
        let (data, response) = try await session().data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data.count == 200 * 65536)
        #expect(data.prefix(3) == Data("aaa".utf8) && data.suffix(1) == Data([UInt8(ascii: "a") + 199 % 26]))
        await server.stop()
    }

    @Test func oneLogLinePerRequest() async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        try await client.send("GET /hello?token=secret HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer hunter2\r\n\r\n")
        _ = try await client.readResponse()
        try await client.send("GET /bad HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n")
        _ = try await client.readResponse()
        await server.stop()
        let lines = server.logged
        #expect(lines.count == 2)
        let first = try #require(lines.first)
        #expect(first.hasPrefix("GET /hello 200 6B "))
        #expect(first.contains("ms 127.0.0.1:"))
        #expect(!first.contains("secret") && !first.contains("hunter2"))
        #expect(lines.last?.contains(" 400 ") == true)
    }

    @Test func startFailsOnABusyPortAndTwice() async throws {
        let server = try TestServer()
        let second = HTTPServer(configuration: .init(port: server.port), handler: HTTPClosureHandler { _ in HTTPResponse() })
        #expect(throws: HTTPServerError.self) { try second.start() }
        #expect(throws: HTTPServerError.alreadyStarted) { try server.server.start() }
        await server.stop()
        #expect(server.server.port == nil)
    }
}
