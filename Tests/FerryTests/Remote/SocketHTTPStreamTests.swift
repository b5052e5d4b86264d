import FerryTestSupport
import FerryURLSession
import Foundation
import Testing
@testable import Ferry

/// A served store's change feed followed over `http://` with ``SocketHTTPStream`` (what
/// ``URLSessionHTTPClient`` streams `http://` with): events as they come, the bearer token,
/// `Last-Event-ID`, the server's refusals, a server that is not there, and cancelling.
@Suite(.serialized) struct SocketHTTPStreamTests {
    let notes = try! EntityName("Note")

    func feedRequest(_ server: RemoteServer, token: String?, lastEventID: String? = nil) throws -> HTTPClientRequest {
        var request = HTTPClientRequest(method: .get, url: try #require(URL(string: server.address("/v1/stores/alice/feed"))))
        request.headers.append(("Accept", "text/event-stream"))
        if let token { request.headers.append(("Authorization", "Bearer \(token)")) }
        if let lastEventID { request.headers.append(("Last-Event-ID", lastEventID)) }
        request.timeout = 60
        return request
    }

    /// The next `count` events of `stream`.
    func events(_ stream: HTTPClientStream, count: Int) async throws -> [ServerSentEvents.Message] {
        var parser = ServerSentEvents()
        var messages: [ServerSentEvents.Message] = []
        for try await bytes in stream.bytes {
            messages += parser.feed(bytes)
            if messages.count >= count { break }
        }
        return messages
    }

    @Test func eventsArriveAsTheJournalGrowsAndResumeFromLastEventID() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        let store = try server.service.registry.storeCreatingIfMissing(named: StoreName("alice")).store
        let stream = try await SocketHTTPStream.open(try feedRequest(server, token: RemoteServer.readOnly))
        #expect(stream.status == .ok)
        #expect(try await eventually { server.service.feeds.count == 1 })
        try store.put(["n": 1], entity: notes, id: RecordID("1"))
        let first = try await events(stream, count: 1)
        #expect(first.map(\.event) == ["changes"], "\(first)")
        let firstID = try #require(first.first?.id)
        #expect(firstID.hasPrefix("1-"), "\(firstID)")
        stream.cancel()
        #expect(try await eventually { server.service.feeds.count == 0 })

        // Two commits while away; back with the last id: both, and nothing before them.
        try store.put(["n": 2], entity: notes, id: RecordID("2"))
        try store.put(["n": 3], entity: notes, id: RecordID("3"))
        let again = try await SocketHTTPStream.open(try feedRequest(server, token: RemoteServer.readOnly, lastEventID: firstID))
        defer { again.cancel() }
        var resumed: [FeedEvent] = []
        var parser = ServerSentEvents()
        reading: for try await bytes in again.bytes {
            for message in parser.feed(bytes) {
                resumed.append(try #require(FeedEvent(event: message.event, data: message.data), "\(message)"))
                if resumed.last?.position.sequence == 3 { break reading }
            }
        }
        #expect(resumed.first?.after == 1, "\(resumed)")
        #expect(zip(resumed, resumed.dropFirst()).allSatisfy { $0.position.sequence == $1.after }, "\(resumed)")
        #expect(resumed.last?.position.sequence == 3, "\(resumed)")
    }

    @Test func aRefusalComesBackAsItsStatusAndMessage() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        _ = try server.service.registry.storeCreatingIfMissing(named: StoreName("alice"))
        let stream = try await SocketHTTPStream.open(try feedRequest(server, token: nil))
        #expect(stream.status == .unauthorized)
        var body: [UInt8] = []
        for try await bytes in stream.bytes { body += bytes }  // a whole (length-framed) body, then the end
        #expect(String(decoding: body, as: UTF8.self).contains("error"), "\(String(decoding: body, as: UTF8.self))")
    }

    @Test func noServerIsARetryableFailureNamingTheAddress() async throws {
        // A port that was just free: bound, read, closed.
        let listener = try Socket.listen(host: "127.0.0.1", port: 0)
        let port = try listener.localAddress().port
        listener.close()
        let request = HTTPClientRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(port)/v1/stores/alice/feed")))
        do {
            _ = try await SocketHTTPStream.open(request)
            Issue.record("a stream from a closed port")
        } catch {
            #expect(error.isRetryable)
            #expect(error.message.contains("127.0.0.1:\(port)"), "\(error.message)")
        }
    }

    @Test func cancellingEndsTheBytesOfAQuietStream() async throws {
        let directory = try TemporaryDirectory()
        let server = try RemoteServer(root: directory.subpath("server"))
        defer { Task { await server.stop() } }
        _ = try server.service.registry.storeCreatingIfMissing(named: StoreName("alice"))
        let stream = try await SocketHTTPStream.open(try feedRequest(server, token: RemoteServer.readOnly))
        let reader = Task {
            var count = 0
            for try await bytes in stream.bytes { count += bytes.count }
            return count
        }
        #expect(try await eventually { server.service.feeds.count == 1 })
        stream.cancel()
        _ = try await reader.value  // ends (without an error) instead of waiting for the next keepalive
        #expect(try await eventually { server.service.feeds.count == 0 })
    }
}
