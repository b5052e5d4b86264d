import Foundation
import Testing
@testable import Ferry

/// The server against real clients: curl and Python's http.client, run as processes.
@Suite struct HTTPServerInteropTests {
    static let curl = "/usr/bin/curl"
    static var curlMissing: Bool { !FileManager.default.isExecutableFile(atPath: curl) }
    static var python: String? {
        ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func curlGetKeepAliveAndStream() async throws {
        try #require(!Self.curlMissing, "interoperability needs curl at \(Self.curl)")
        let server = try TestServer()
        let base = "http://127.0.0.1:\(server.port)"
        let result = try await onThread {
            try runProgram(Self.curl, ["-sS", "-v", "--max-time", "10", "\(base)/hello", "\(base)/stream?chunks=100&size=1000"])
        }
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.count == 6 + 100 * 1000)
        #expect(result.output.prefix(6) == Data("hello\n".utf8))
        #expect(result.error.contains("Re-using existing connection") || result.error.contains("Reusing existing"))
        #expect(result.error.contains("Transfer-Encoding: chunked"))
        await server.stop()
    }

    @Test func curlPostsTwoMegabytes() async throws {
        try #require(!Self.curlMissing, "interoperability needs curl at \(Self.curl)")
        let server = try TestServer()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("2MB.bin")
        var generator = SplitMix(seed: 7)
        let payload = Data((0..<2 * 1024 * 1024).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        try payload.write(to: input)
        let url = "http://127.0.0.1:\(server.port)/echo"

        for extra in [["-H", "Expect: 100-continue"], ["-H", "Transfer-Encoding: chunked"], ["-X", "PUT"]] {
            let output = directory.appendingPathComponent("out.bin")
            let result = try await onThread {
                try runProgram(Self.curl, ["-sS", "-v", "--max-time", "10", "--data-binary", "@\(input.path)",
                                           "-o", output.path, "-w", "%{http_code}"] + extra + [url])
            }
            #expect(result.status == 0, "\(extra): \(result.error)")
            #expect(String(decoding: result.output, as: UTF8.self) == "200", "\(extra)")
            #expect(try Data(contentsOf: output) == payload, "\(extra)")
            if extra.last == "Expect: 100-continue" { #expect(result.error.contains("HTTP/1.1 100 Continue")) }
        }
        await server.stop()
    }

    @Test func curlSeesTheJSONErrorForATooLargeBody() async throws {
        try #require(!Self.curlMissing, "interoperability needs curl at \(Self.curl)")
        let server = try TestServer { $0.maximumBodyBytes = 1000 }
        let result = try await onThread {
            try runProgram(Self.curl, ["-sS", "--max-time", "10", "--data-binary", String(repeating: "z", count: 5000),
                                       "-w", "\n%{http_code}", "http://127.0.0.1:\(server.port)/echo"])
        }
        #expect(String(decoding: result.output, as: UTF8.self) == "{\"error\":\"request body exceeds 1000 bytes\"}\n\n413")
        await server.stop()
    }

    @Test func pythonHTTPClient() async throws {
        let python = try #require(Self.python, "interoperability needs python3")
        let server = try TestServer()
        let script = """
            import http.client, sys
            c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
            c.request("GET", "/hello"); r = c.getresponse(); assert (r.status, r.read()) == (200, b"hello\\n")
            c.request("POST", "/echo", body=b"x" * 70000); r = c.getresponse(); assert r.read() == b"x" * 70000
            c.request("GET", "/stream?chunks=5&size=7"); r = c.getresponse()
            assert r.getheader("Transfer-Encoding") == "chunked" and len(r.read()) == 35
            c.request("GET", "/missing"); r = c.getresponse(); assert r.status == 404 and b'"error"' in r.read()
            print("ok")
            """
        let result = try await onThread { try runProgram(python, ["-c", script, "\(server.port)"]) }
        #expect(result.status == 0, "\(result.error)")
        #expect(String(decoding: result.output, as: UTF8.self) == "ok\n")
        #expect(server.server.connectionCount <= 1)
        await server.stop()
    }
}
