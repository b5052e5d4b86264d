import Foundation
import Testing
@testable import Ferry
import FerryTestSupport

/// A server on an ephemeral loopback port with short timeouts, the routes the tests use, and
/// a record of what it logged and handled.
final class TestServer: Sendable {
    let server: HTTPServer
    let port: Int

    init(_ adjust: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
        // Generous limits: tests that are not about timeouts must pass on a saturated machine
        // (CI shares two cores with everything else); tests about timeouts set short ones.
        var configuration = HTTPServerConfiguration(
            host: "127.0.0.1", port: 0, firstRequestTimeout: .seconds(30), readTimeout: .seconds(30),
            idleTimeout: .seconds(30), writeTimeout: .seconds(30), shutdownGracePeriod: .seconds(30))
        configuration.headTimeout = .seconds(30)
        configuration.bodyStallTimeout = .seconds(30)
        adjust(&configuration)
        let lines = HTTPServerLock<[String]>([])
        let handled = HTTPServerLock<Int>(0)
        server = HTTPServer(
            configuration: configuration,
            handler: HTTPClosureHandler { request in
                handled.withLock { $0 += 1 }
                return await TestServer.route(request)
            },
            log: { line in lines.withLock { $0.append(line) } })
        port = try server.start()
        self.lines = lines
        self.handledCount = handled
    }

    private let lines: HTTPServerLock<[String]>
    private let handledCount: HTTPServerLock<Int>

    /// How many requests reached the handler.
    var requestsHandled: Int { handledCount.withLock { $0 } }
    /// The lines logged so far.
    var logged: [String] { lines.withLock { $0 } }

    func stop() async { await server.stop() }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    static func route(_ request: HTTPRequest) async -> HTTPResponse {
        switch (request.method, request.path) {
        case (.get, "/hello"), (.head, "/hello"):
            return HTTPResponse(headers: ["Content-Type": "text/plain"], body: Array("hello\n".utf8))
        case (.post, "/echo"), (.put, "/echo"):
            return HTTPResponse(
                headers: ["Content-Type": "application/octet-stream", "X-Body-Length": "\(request.body.count)"],
                body: request.body)
        case (.get, "/query"):
            let text = request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
            return HTTPResponse(headers: ["Content-Type": "text/plain"], body: Array(text.utf8))
        case (.get, "/stream"):
            let chunks = Int(request.query["chunks"] ?? "") ?? 3
            let size = Int(request.query["size"] ?? "") ?? 10
            return HTTPResponse(headers: ["Content-Type": "application/octet-stream"]) { writer in
                for index in 0..<chunks {
                    try await writer.write([UInt8](repeating: UInt8(ascii: "a") + UInt8(index % 26), count: size))
                }
            }
        case (.get, "/very-slow"):
            // Answers at a deadline later than any delay a saturated machine puts between the
            // test's steps (or when the server cancels it, stopping).
            try? await ContinuousClock().sleep(until: .now.advanced(by: .seconds(20)))
            return HTTPResponse(body: Array("very slow\n".utf8))
        case (.get, "/held"):
            // Answers once the test opens the gate (at most 20 s), so the test decides what
            // the server is doing meanwhile, however busy the machine.
            // On a thread of its own: a blocked Dispatch worker would delay the server's timers.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread {
                    _ = HeldRequests.gate.wait(timeout: .now() + 20)
                    continuation.resume()
                }.start()
            }
            return HTTPResponse(body: Array("held\n".utf8))
        case (.get, "/slow"):
            // Answers 300 ms after it came in, so requests pipelined behind it wait for it.
            try? await ContinuousClock().sleep(until: .now.advanced(by: .milliseconds(300)))
            return HTTPResponse(body: Array("slow\n".utf8))
        case (.get, "/no-content"):
            return HTTPResponse(status: .noContent)
        default:
            return .error(.notFound, "no such route")
        }
    }
}

/// Runs blocking work on a thread of its own, so a blocking call holds neither the test's
/// thread (see `OwnThreadTrait`) nor the shared cooperative pool, and many clients can wait
/// at once.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// A client on a raw socket, for sending exactly the bytes a test wants. Its blocking calls
/// run on threads of their own; one test uses it at a time.
final class RawClient: @unchecked Sendable {
    let socket: Socket
    private var pending: [UInt8] = []

    init(port: Int, timeout: Duration = .seconds(30)) throws {
        socket = try Socket.connect(host: "127.0.0.1", port: port)
        try socket.setReceiveTimeout(timeout)
    }

    private var isClosed = false

    deinit { if !isClosed { socket.close() } }

    /// Closes the socket now (a later `deinit` does not close it again).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        socket.close()
    }

    func send(_ text: String) async throws { try await send(Array(text.utf8)) }
    func send(_ bytes: [UInt8]) async throws {
        let socket = socket
        try await onThread { try socket.sendAll(bytes) }
    }

    /// Reads one response; `nil` when the connection closed first. Skips `100 Continue`.
    func readResponse(forHead: Bool = false) async throws -> RawResponse? {
        try await onThread { try self.readResponseNow(forHead: forHead) }
    }

    /// Whether the server closed the connection: reads until end of stream or the timeout.
    func isClosedByServer() async -> Bool {
        (try? await onThread { self.isClosedNow() }) ?? false
    }

    /// Reads more bytes; false at end of stream (or a reset).
    private func fill() throws -> Bool {
        do {
            let bytes = try socket.receive(upTo: 65536)
            if bytes.isEmpty { return false }
            pending += bytes
            return true
        } catch where error.code == ECONNRESET {
            return false
        }
    }

    private func readLine() throws -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(pending[..<newline])
                pending.removeFirst(newline + 1)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { return nil }
        }
    }

    private func read(count: Int) throws -> [UInt8]? {
        while pending.count < count {
            guard try fill() else { return nil }
        }
        let bytes = Array(pending[..<count])
        pending.removeFirst(count)
        return bytes
    }

    private func readResponseNow(forHead: Bool) throws -> RawResponse? {
        while true {
            guard let statusLine = try readLine() else { return nil }
            let parts = statusLine.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, let code = Int(parts[1]) else { return nil }
            var headers = HTTPHeaders()
            while let line = try readLine(), !line.isEmpty {
                guard let colon = line.firstIndex(of: ":") else { return nil }
                headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces())
            }
            if code == 100 { continue }
            var body: [UInt8] = []
            var chunkSizes: [Int] = []
            if forHead || code == 204 || code == 304 {
            } else if let length = headers["Content-Length"].flatMap(Int.init) {
                guard let bytes = try read(count: length) else { return nil }
                body = bytes
            } else if headers["Transfer-Encoding"]?.lowercased() == "chunked" {
                while true {
                    guard let sizeLine = try readLine(), let size = Int(sizeLine, radix: 16) else { return nil }
                    if size == 0 {
                        while let trailer = try readLine(), !trailer.isEmpty {}
                        break
                    }
                    chunkSizes.append(size)
                    guard let bytes = try read(count: size), try readLine() == "" else { return nil }
                    body += bytes
                }
            } else {
                while try fill() {}
                body = pending
                pending = []
            }
            return RawResponse(code: code, headers: headers, body: body, chunkSizes: chunkSizes)
        }
    }

    private func isClosedNow() -> Bool {
        do {
            while try fill() {}
            return true
        } catch {
            return false  // timed out with the connection still open
        }
    }
}

struct RawResponse: Sendable {
    var code: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    var chunkSizes: [Int]
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Runs a program, returning its exit status, standard output and standard error.
func runProgram(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: Data, error: String) {
    let result = try runProgramForBytes(path, arguments)
    return (result.exitCode, Data(result.stdout), String(decoding: result.stderr, as: UTF8.self))
}

/// The gate `/held` requests wait at (one test uses it).
enum HeldRequests {
    static let gate = DispatchSemaphore(value: 0)
}

/// Waits until `condition` holds, checking every 10 ms until `deadline` (30 s by default: other
/// suites may keep both cores busy meanwhile) has passed, and says whether it came to hold.
/// Tests wait on the server's state this way rather than sleeping a fixed time and hoping it
/// got there.
func eventually(within deadline: Duration = .seconds(30), _ condition: () -> Bool) async throws -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: deadline)
    while clock.now < end {
        if condition() { return true }
        // The server's state has no event to wait on: look again at the next 10 ms tick, never
        // past the deadline.
        try await clock.sleep(until: min(clock.now.advanced(by: .milliseconds(10)), end))
    }
    return condition()
}
