#if os(Linux)
import FerryTestSupport
import Foundation
import Testing
@testable import Ferry
@testable import FerryURLSession

/// A served store's change feed followed over `https://` on Linux, where
/// ``URLSessionHTTPClient`` streams it through libcurl's blocking interface
/// (``CurlHTTPStream``) instead of `URLSession`, whose streaming kept a core busy while the
/// feed was quiet. A TLS front in Python (`ssl`, with a certificate `openssl` makes for the
/// test) stands before a real ``StoreService``.
@Suite(.serialized) struct CurlHTTPStreamTests {
    let notes = try! EntityName("Note")

    /// Runs `body` with a server whose keepalives come every 100 ms, its store `alice`, a TLS
    /// front for it and libcurl; skips it (after one line saying why) without python3 or openssl.
    func withTLSFront(_ body: (RemoteServer, TLSFront, LibCurl, Store) async throws -> Void) async throws {
        let directory = try TemporaryDirectory()
        var feed = ChangeFeedHub.Configuration()
        feed.heartbeatInterval = .milliseconds(100)
        let server = try RemoteServer(root: directory.subpath("server"), feed: feed)
        defer { Task { await server.stop() } }
        guard let front = try await TLSFront.start(before: server.port, in: directory) else { return }
        defer { front.stop() }
        let curl = try #require(LibCurl.load(), "libcurl, which FoundationNetworking links, was not found")
        let store = try server.service.registry.storeCreatingIfMissing(named: StoreName("alice")).store
        try await body(server, front, curl, store)
    }

    func feedRequest(_ front: TLSFront, store: String = "alice", token: String = RemoteServer.readOnly) throws -> HTTPClientRequest {
        var request = HTTPClientRequest(method: .get, url: try #require(URL(string: front.address("/v1/stores/\(store)/feed"))))
        request.headers.append(("Accept", "text/event-stream"))
        request.headers.append(("Authorization", "Bearer \(token)"))
        request.timeout = 60
        return request
    }

    @Test func eventsArriveOverTLSAndTheReaderSleepsBetweenKeepalives() async throws {
        try await withTLSFront { server, front, curl, store in
            let stream = try await CurlHTTPStream.open(try feedRequest(front), curl: curl, certificateAuthorityFile: front.certificate)
            defer { stream.cancel() }
            #expect(stream.status == .ok)
            #expect(try await eventually { server.service.feeds.count == 1 })

            var parser = ServerSentEvents()
            var iterator = stream.bytes.makeAsyncIterator()
            var text = ""
            /// Reads until `condition` holds of everything read so far.
            func read(until condition: (String, [ServerSentEvents.Message]) -> Bool) async throws -> [ServerSentEvents.Message] {
                var messages: [ServerSentEvents.Message] = []
                while !condition(text, messages) {
                    guard let bytes = try await iterator.next() else { break }
                    text += String(decoding: bytes, as: UTF8.self)
                    messages += parser.feed(bytes)
                }
                return messages
            }
            try store.put(["n": 1], entity: notes, id: RecordID("1"))
            let first = try await read { _, messages in !messages.isEmpty }
            #expect(first.map(\.event) == ["changes"], "\(first)")
            #expect(first.first?.id?.hasPrefix("1-") == true, "\(first)")

            // Twenty keepalives (about two seconds of a quiet feed): what the reading thread cost.
            let keepalives = { (text: String) in text.components(separatedBy: ": keepalive").count - 1 }
            let before = try Self.readingThreads()
            let seen = keepalives(text)
            _ = try await read { text, _ in keepalives(text) >= seen + 20 }
            #expect(keepalives(text) >= seen + 20, "\(text)")
            let after = try Self.readingThreads()
            #expect(before.count > 0, "no thread named \"ferry https\" reads the stream")
            let wakeUps = after.contextSwitches - before.contextSwitches
            let ticks = after.cpuTicks - before.cpuTicks
            // A sleeping reader wakes for each keepalive and once a second for libcurl: about 25.
            #expect(wakeUps < 400, "\(wakeUps) context switches of the reading thread over twenty keepalives")
            #expect(ticks < 50, "the reading thread used \(ticks) clock ticks over twenty keepalives")

            // Still live: the next commit arrives as an event after the quiet.
            try store.put(["n": 2], entity: notes, id: RecordID("2"))
            let second = try await read { _, messages in !messages.isEmpty }
            #expect(second.first?.id?.hasPrefix("2-") == true, "\(second)")
        }
    }

    @Test func cancellingAQuietStreamEndsItsBytesWithoutAnError() async throws {
        try await withTLSFront { server, front, curl, _ in
            let stream = try await CurlHTTPStream.open(try feedRequest(front), curl: curl, certificateAuthorityFile: front.certificate)
            #expect(try await eventually { server.service.feeds.count == 1 })
            stream.cancel()
            var pieces = 0
            for try await _ in stream.bytes { pieces += 1 }  // ends (the cancel shut the socket down), throws nothing
            #expect(try await eventually { server.service.feeds.count == 0 })
            #expect(try await eventually { ((try? Self.readingThreads())?.count ?? 1) == 0 }, "the reading thread did not end")
        }
    }

    @Test func theServersRefusalIsItsStatusAndAnUntrustedCertificateIsATLSFailure() async throws {
        try await withTLSFront { _, front, curl, _ in
            let refused = try await CurlHTTPStream.open(
                try feedRequest(front, token: "not-a-token-0123456789"), curl: curl, certificateAuthorityFile: front.certificate)
            #expect(refused.status == .unauthorized)
            var body = ""
            for try await bytes in refused.bytes { body += String(decoding: bytes, as: UTF8.self) }
            #expect(body.contains("token"), "\(body)")

            // The client, trusting only the system's certificates, goes through libcurl and says so.
            do {
                _ = try await URLSessionHTTPClient().openStream(try feedRequest(front))
                Issue.record("a self-signed certificate was trusted")
            } catch let error as HTTPClientFailure {
                #expect(!error.isRetryable, "\(error.message)")
                #expect(error.message.contains("TLS handshake failed"), "\(error.message)")
            }
            #expect(try await eventually { ((try? Self.readingThreads())?.count ?? 1) == 0 })
        }
    }

    /// The threads of this process that read `https://` streams, their context switches and
    /// CPU clock ticks so far (`/proc`).
    static func readingThreads() throws -> (count: Int, contextSwitches: Int, cpuTicks: Int) {
        var result = (count: 0, contextSwitches: 0, cpuTicks: 0)
        for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") {
            let base = "/proc/self/task/\(task)"
            guard let name = try? String(contentsOfFile: base + "/comm", encoding: .utf8),
                name.trimmingCharacters(in: .whitespacesAndNewlines) == "ferry https",
                let status = try? String(contentsOfFile: base + "/status", encoding: .utf8),
                let stat = try? String(contentsOfFile: base + "/stat", encoding: .utf8)
            else { continue }
            result.count += 1
            for line in status.split(separator: "\n") where line.contains("ctxt_switches") {
                result.contextSwitches += Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
            }
            // After the name's closing parenthesis: state is field 3, utime and stime 14 and 15.
            let fields = stat[(stat.lastIndex(of: ")") ?? stat.startIndex)...].split(separator: " ")
            if fields.count > 13 { result.cpuTicks += (Int(fields[12]) ?? 0) + (Int(fields[13]) ?? 0) }
        }
        return result
    }
}

/// A TLS front on loopback: Python's `ssl` with a self-signed certificate for 127.0.0.1,
/// passing bytes both ways to a plain port.
final class TLSFront: Sendable {
    let port: Int
    /// The certificate's PEM file: what a client trusts to reach the front.
    let certificate: String
    private let process: ChildProcess

    private init(port: Int, certificate: String, process: ChildProcess) {
        self.port = port
        self.certificate = certificate
        self.process = process
    }

    /// `https://127.0.0.1:<port><path>`.
    func address(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    func stop() {
        process.kill()
        _ = process.wait()
    }

    private static let skipNotice = SkipNotice()

    /// Starts a front before `target`; `nil`, after one line saying so, without python3 or openssl.
    static func start(before target: Int, in directory: TemporaryDirectory) async throws -> TLSFront? {
        func find(_ tool: String) -> String? {
            let paths: [String] = ["/usr/bin", "/usr/local/bin", "/bin"].map { folder in folder + "/" + tool }
            return paths.first { path in access(path, X_OK) == 0 }
        }
        guard let python = find("python3"), let openssl = find("openssl") else {
            skipNotice.printOnce("https stream tests skipped: python3 and openssl are needed for their TLS front")
            return nil
        }
        let folder = directory.subpath("tls")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let (certificate, key) = (folder + "/cert.pem", folder + "/key.pem")
        let make = try ChildProcess(
            openssl,
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate],
            outputDirectory: folder)
        let made = make.wait(timeout: 60)
        try #require(made == 0, "openssl could not make a certificate: \(make.errorOutput)")
        try Data(script.utf8).write(to: URL(fileURLWithPath: folder + "/front.py"))
        let portFile = folder + "/port"
        try FileManager.default.createDirectory(atPath: folder + "/front", withIntermediateDirectories: true)
        let process = try ChildProcess(
            python, [folder + "/front.py", certificate, key, String(target), portFile], outputDirectory: folder + "/front")
        guard await process.waitForOutput(lineStartingWith: "listening", timeout: 60),
            let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text)
        else {
            process.kill()
            _ = process.wait()
            throw TLSFrontError(message: "the TLS front did not start: \(process.errorOutput)")
        }
        return TLSFront(port: port, certificate: certificate, process: process)
    }

    /// One thread a connection: the handshake, then bytes both ways until either side ends
    /// (one thread per connection reads both sockets, as an SSL object is not shared between threads).
    private static let script = #"""
        import os, select, socket, ssl, sys, threading
        cert, key, target, port_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        listener = socket.create_server(("127.0.0.1", 0))
        with open(port_file + ".part", "w") as f:
            f.write(str(listener.getsockname()[1]))
        os.rename(port_file + ".part", port_file)
        print("listening", flush=True)

        def serve(raw):
            try:
                tls = context.wrap_socket(raw, server_side=True)
            except (OSError, ssl.SSLError):
                raw.close()
                return
            try:
                back = socket.create_connection(("127.0.0.1", target))
            except OSError:
                tls.close()
                return
            try:
                while True:
                    ready = [tls] if tls.pending() else select.select([tls, back], [], [])[0]
                    for source in ready:
                        try:
                            data = source.recv(65536)
                        except ssl.SSLWantReadError:
                            continue
                        if not data:
                            return
                        (back if source is tls else tls).sendall(data)
            except (OSError, ssl.SSLError):
                pass
            finally:
                tls.close()
                back.close()

        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """#
}

struct TLSFrontError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
#endif
