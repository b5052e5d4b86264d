import Foundation

/// A served store's change feed, as a client follows it: the events of
/// `GET /v1/stores/<name>/feed` (see ``FeedEvent``), from where the last connection left off.
///
/// ```swift
/// let feed = transport.changeFeed
/// var last: String?                       // the last event id, kept across reconnections
/// for try await event in try await feed.events(after: last) {
///     last = event.position.eventID
///     wake()                              // a sync pulls what the event announces
/// }
/// ```
///
/// Reconnecting is the caller's (it chooses the backoff); passing the last event id back
/// (`Last-Event-ID`) makes the next events start exactly where the received ones ended.
package struct ServedChangeFeed: Sendable {
    let client: RemoteClient

    /// The feed's URL, for messages.
    package var url: String { client.endpoint.text }

    /// Connects and returns the events until the connection ends (the sequence then finishes,
    /// or throws when it failed).
    /// - Parameter lastEventID: the id of the last event received (`nil`: from now on).
    /// - Throws: ``RemoteError``: `.rejected` with status `404` from a server without the feed
    ///   (an older `ferry serve`) or without the store.
    package func events(after lastEventID: String?) async throws(RemoteError) -> AsyncThrowingStream<FeedEvent, any Error> {
        var headers: [(name: String, value: String)] = [("Accept", StoreService.eventStreamType)]
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        let stream = try await client.openStream("/feed", headers: headers)
        let (events, continuation) = AsyncThrowingStream<FeedEvent, any Error>.makeStream()
        let url = client.endpoint.text
        let reader = Task {
            var parser = ServerSentEvents()
            do {
                for try await bytes in stream.bytes {
                    LiveTrace.note("feed reader took \(bytes.count) bytes")
                    for message in parser.feed(bytes) {
                        guard let event = FeedEvent(event: message.event, data: message.data) else {
                            throw RemoteError.malformedResponse(url, reason: "a feed event that is not one (\(message.event))")
                        }
                        continuation.yield(event)
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

extension HTTPTransport {
    /// The change feed of the store this transport reaches.
    package var changeFeed: ServedChangeFeed { ServedChangeFeed(client: client) }
}
