import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// Every kind of malformed input, sent over a raw socket: the exact status, a one-line JSON
/// error, the connection closed, the handler never called, and the server still serving.
@Suite(.eachTestOnItsOwnThread) struct HTTPServerMalformedInputTests {
    @Test(arguments: [
        ("GET /\r\n\r\n", 400, "malformed request line"),
        ("GET / HTTP/1.1 x\r\nHost: x\r\n\r\n", 400, "malformed request line"),
        ("G@T / HTTP/1.1\r\nHost: x\r\n\r\n", 400, "invalid method token"),
        ("BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n", 501, "method BREW is not implemented"),
        ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505, "HTTP/2.0 is not supported; use HTTP/1.1"),
        ("GET / HTTP/9.9\r\nHost: x\r\n\r\n", 505, "HTTP/9.9 is not supported; use HTTP/1.1"),
        ("GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n", 400, "header line without a colon"),
        ("GET / HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n", 400, "obsolete header line folding is not allowed"),
        ("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\0b\r\n\r\n", 400, "NUL byte in request head"),
        ("GET /\0 HTTP/1.1\r\nHost: x\r\n\r\n", 400, "NUL byte in request head"),
        ("GET / HTTP/1.1\r\nX-A: 1\r\n\r\n", 400, "HTTP/1.1 request needs exactly one Host header"),
        ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 12x\r\n\r\n", 400, "invalid Content-Length"),
        ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n", 400, "invalid Content-Length"),
        ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400, "duplicate Content-Length"),
        ("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
         "both Content-Length and Transfer-Encoding"),
        ("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "only Transfer-Encoding: chunked is supported"),
        ("POST /echo HTTP/1.1\r\nHost: x\r\n\r\n", 411, "Content-Length required"),
        ("PUT /echo HTTP/1.1\r\nHost: x\r\n\r\n", 411, "Content-Length required"),
        ("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n", 400, "malformed chunked body"),
        ("GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400, "invalid percent-encoding in request target"),
    ])
    func malformedRequestGetsItsStatus(input: String, status: Int, message: String) async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        try await client.send(input)
        let response = try #require(try await client.readResponse())
        #expect(response.code == status)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Connection"] == "close")
        let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String]
        #expect(json == ["error": message])
        #expect(await client.isClosedByServer())
        #expect(server.requestsHandled == 0)
        try await expectStillServing(server)
        await server.stop()
    }

    @Test func oversizedHeadersGet431() async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        let big = String(repeating: "v", count: 17 * 1024)
        try? await client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\n\r\n")
        let response = try #require(try await client.readResponse())
        #expect(response.code == 431)
        #expect(await client.isClosedByServer())

        // Many small fields add up the same way; a long request line too.
        let many = try RawClient(port: server.port)
        try? await many.send("GET / HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-Field: value\r\n", count: 1200) + "\r\n")
        #expect(try await many.readResponse()?.code == 431)
        let long = try RawClient(port: server.port)
        try? await long.send("GET /" + String(repeating: "p", count: 20_000) + " HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await long.readResponse()?.code == 431)
        try await expectStillServing(server)
        await server.stop()
    }

    @Test func oversizedBodyGets413WithoutBeingRead() async throws {
        let server = try TestServer { $0.maximumBodyBytes = 1024 }
        let client = try RawClient(port: server.port)
        // Announces 100 MB, sends a little: the answer comes without waiting for the rest.
        try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n" + String(repeating: "x", count: 4096))
        let response = try #require(try await client.readResponse())
        #expect(response.code == 413)
        #expect(response.text.contains("request body exceeds 1024 bytes"))
        #expect(await client.isClosedByServer())

        let chunked = try RawClient(port: server.port)
        try? await chunked.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + String(repeating: "200\r\n" + String(repeating: "y", count: 512) + "\r\n", count: 3))
        #expect(try await chunked.readResponse()?.code == 413)
        #expect(server.requestsHandled == 0)
        try await expectStillServing(server)
        await server.stop()
    }

    @Test func truncatedBodyNeverReachesTheHandler() async throws {
        let server = try TestServer()
        let client = try RawClient(port: server.port)
        try await client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly twenty bytes...")
        client.socket.shutdown(.write)
        #expect(try await client.readResponse() == nil)  // closed without an answer
        #expect(server.requestsHandled == 0)
        try await expectStillServing(server)
        await server.stop()
    }

    @Test func randomGarbageNeverWedgesTheServer() async throws {
        let server = try TestServer {
            $0.readTimeout = .milliseconds(100)
            $0.headTimeout = .milliseconds(100)
        }
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SplitMix(seed: seed)
        for _ in 0..<20 {
            let client = try RawClient(port: server.port)
            let count = Int(generator.next() % 600) + 1
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if generator.next() % 2 == 0 { bytes = Array("GET / HTTP/1.1\r\n".utf8) + bytes }
            try? await client.send(bytes)
            let response = try? await client.readResponse()
            if let response { #expect([400, 408, 431, 501, 505].contains(response.code), "seed \(seed)") }
        }
        try await expectStillServing(server)
        #expect(server.requestsHandled == 1, "seed \(seed)")
        await server.stop()
    }

    func expectStillServing(_ server: TestServer) async throws {
        let client = try RawClient(port: server.port)
        try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try await client.readResponse()?.text == "hello\n")
    }
}
