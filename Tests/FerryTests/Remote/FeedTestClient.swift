import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// A raw subscriber of a served store's change feed over a blocking socket: the request, the
/// response head, then the events as they come (reads time out after 30 s, so a test that
/// waits for an event that never comes fails instead of hanging).
final class FeedTestClient: @unchecked Sendable {
    let socket: Socket
    /// The response's status code and head.
    private(set) var status = 0
    private(set) var head = ""
    private var parser = ServerSentEvents()
    private var pending: [ServerSentEvents.Message] = []
    private var closed = false

    init(port: Int, store: String, token: String?, lastEventID: String? = nil, receiveBufferBytes: Int? = nil) throws {
        socket = try Socket.connect(host: "127.0.0.1", port: port, receiveBufferBytes: receiveBufferBytes)
        try socket.setReceiveTimeout(.seconds(30))
        var request = "GET /v1/stores/\(store)/feed HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
        try socket.sendAll(Array((request + "\r\n").utf8))
        var bytes: [UInt8] = []
        let end = Array("\r\n\r\n".utf8)
        while true {
            if let range = bytes.firstRange(of: end) {
                head = String(decoding: bytes[..<range.lowerBound], as: UTF8.self)
                status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                pending = parser.feed(Array(bytes[range.upperBound...]))
                return
            }
            let more = try socket.receive(upTo: 4096)
            guard !more.isEmpty else { throw FeedTestError.closedBeforeHead(String(decoding: bytes, as: UTF8.self)) }
            bytes += more
        }
    }

    /// The next event, or `nil` at the end of the stream.
    func nextEvent() throws -> FeedEvent? {
        while pending.isEmpty {
            guard !closed else { return nil }
            let bytes = try socket.receive(upTo: 16 << 10)
            if bytes.isEmpty {
                closed = true
                return nil
            }
            pending = parser.feed(bytes)
        }
        let message = pending.removeFirst()
        guard let event = FeedEvent(event: message.event, data: message.data) else { throw FeedTestError.notAnEvent(message.event) }
        #expect(message.id == event.position.eventID)
        return event
    }

    /// Events until one reaches `sequence`.
    func events(through sequence: UInt64) throws -> [FeedEvent] {
        var events: [FeedEvent] = []
        while events.last.map({ $0.position.sequence < sequence }) ?? true {
            guard let event = try nextEvent() else { throw FeedTestError.endedBefore(sequence, events) }
            events.append(event)
        }
        return events
    }

    /// Every event until the server ends the stream.
    func eventsUntilTheEnd() throws -> [FeedEvent] {
        var events: [FeedEvent] = []
        while let event = try nextEvent() { events.append(event) }
        return events
    }

    func close() {
        socket.shutdown(.readWrite)
        socket.close()
    }
}

enum FeedTestError: Error {
    case closedBeforeHead(String)
    case notAnEvent(String)
    case endedBefore(UInt64, [FeedEvent])
}

/// The number of threads of this process.
func threadCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
}
