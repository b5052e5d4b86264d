import Foundation

/// PocketBase's realtime updates (server-sent events) for some collections, as a stream of
/// "something changed" signals: `GET /api/realtime` opens the stream, whose first event
/// (`PB_CONNECT`) gives a client id, then `POST /api/realtime` subscribes it, signed in as the
/// sync user (so the collections' rules decide what it hears of), to `<collection>/*`.
///
/// ```swift
/// let realtime = PocketBaseRealtime(client: client, httpClient: http, collections: ["Note"])
/// for try await event in realtime.events() { … }   // .subscribed, then .changed("Note") …
/// ```
public struct PocketBaseRealtime: Sendable {
    /// What the stream says.
    public enum Event: Sendable, Equatable {
        /// Subscribed: changes from now on are heard (a sync now catches what came before).
        case subscribed
        /// A record of the collection was created, updated or deleted.
        case changed(String)
    }

    public let client: PocketBaseClient
    public let httpClient: any HTTPClient
    public let collections: [String]

    public init(client: PocketBaseClient, httpClient: any HTTPClient, collections: [String]) {
        self.client = client
        self.httpClient = httpClient
        self.collections = collections
    }

    /// Connects and subscribes; the events until the connection ends (the sequence then
    /// finishes, or throws when it failed). Reconnecting is the caller's: it decides the backoff.
    public func events() async throws(BackendError) -> AsyncThrowingStream<Event, any Error> {
        if client.identity == nil { try await client.signIn() }
        guard let url = client.location.url("/api/realtime") else {
            throw BackendError(.setup, "realtime: cannot make a URL from \(client.location)")
        }
        var request = HTTPClientRequest(method: "GET", url: url, headers: [(name: "Accept", value: "text/event-stream")])
        request.timeout = 600
        let stream: HTTPClientStream
        do { stream = try await httpClient.openStream(request) } catch {
            throw BackendError(.unreachable, "realtime \(client.location): \(error.message)")
        }
        guard stream.status == .ok else {
            stream.cancel()
            throw BackendError(.protocolViolation, "realtime \(client.location): \(stream.status.code)")
        }
        let (events, continuation) = AsyncThrowingStream<Event, any Error>.makeStream()
        let client = self.client
        let collections = self.collections
        let reader = Task {
            var parser = ServerSentEvents()
            do {
                for try await bytes in stream.bytes {
                    for message in parser.feed(bytes) {
                        if message.event == "PB_CONNECT" {
                            guard let id = (try? JSONParser.parse(Array(message.data.utf8)))?.objectValue?["clientId"]?.stringValue else {
                                throw BackendError(.protocolViolation, "realtime: PB_CONNECT without a clientId")
                            }
                            let body: JSONValue = ["clientId": .string(id), "subscriptions": .array(collections.map { .string("\($0)/*") })]
                            _ = try await client.exchange(.post, "/api/realtime", body: body, what: "realtime subscription")
                            continuation.yield(.subscribed)
                        } else if let collection = collections.first(where: { message.event == "\($0)/*" }) {
                            continuation.yield(.changed(collection))
                        }
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in
            reader.cancel()
            stream.cancel()
        }
        return events
    }
}
