import Foundation
import Testing
import FerryTestSupport
import FerryURLSession
@testable import Ferry
#if canImport(Glibc)
import Glibc
#endif

/// A server that cannot answer is reported in seconds, once, with the cause (issue 22, item 5).
@Suite struct RemoteFailFastTests {
    /// A listening socket that never accepts: the kernel completes connections, nobody answers.
    final class SilentListener {
        let descriptor: Int32
        let port: Int

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
            }
            guard bound == 0, listen(descriptor, 16) == 0 else { throw SystemError("listen", path: "127.0.0.1", code: errno) }
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            self.descriptor = descriptor
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(descriptor) }
    }

    func syncError(_ url: String) async throws -> String {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("local"))
        let transport = try HTTPTransport(url: url, token: "t")
        do {
            _ = try await SyncEngine(store: store, transport: transport).run()
        } catch {
            return error.description
        }
        Issue.record("the sync against \(url) did not fail")
        return ""
    }

    @Test func aServerThatAcceptsAndSaysNothingIsReportedOnce() async throws {
        let silent = try SilentListener()
        let message = try await syncError("http://127.0.0.1:\(silent.port)/alice")
        #expect(message.contains("did not answer in time"), "\(message)")
        #expect(message.contains("gave up after 1 attempt)"), "a silence is not retried: \(message)")
    }

    @Test func httpsAgainstAPlainServerSaysSo() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let message = try await syncError("https://127.0.0.1:\(server.port)/alice")
        #expect(message.contains("plain http:// server"), "\(message)")
        #expect(message.contains("1 attempt"), "a TLS failure is not retried: \(message)")
    }
}
