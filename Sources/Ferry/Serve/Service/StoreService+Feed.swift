import Foundation

/// The change feed of one store, `GET /v1/stores/<name>/feed`: the handshake here, then the
/// connection goes to the ``ChangeFeedHub`` (see `docs/PROTOCOL.md`).
extension StoreService {
    /// The media type of the feed.
    static let eventStreamType = "text/event-stream"

    /// Answers a subscription: where it starts (`Last-Event-ID`, else `?after=`, else the
    /// head: only what comes next), checked against the journal, then the head of the stream,
    /// and the socket is handed to the hub.
    func feed(of store: Store, name: StoreName, request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let asked = try Self.feedStart(of: request)
        guard feeds.hasRoom else {
            throw ServiceFailure(
                .serviceUnavailable, "this server has as many feed subscribers as it takes; try again later", headers: ["Retry-After": "5"])
        }
        let (position, head, unknown) = try await work { () throws(ServiceFailure) -> (FeedPosition, FeedPosition, Bool) in
            let now = store.head
            let head = FeedPosition(sequence: now.sequence, hash: now.hash)
            guard let asked else { return (head, head, false) }
            guard asked.sequence <= head.sequence else { return (head, head, true) }
            let hash: SHA256Digest?
            do throws(StoreError) { hash = try store.entryHash(at: asked.sequence) } catch { throw failure(error, store: name) }
            guard let hash else { return (head, head, true) }
            let position = FeedPosition(sequence: asked.sequence, hash: hash)
            return (position, head, !position.matches(hashPrefix: asked.hashPrefix))
        }
        let (feeds, journal) = (self.feeds, StoreLayout(root: store.path).journal)
        return HTTPResponse(headers: ["Content-Type": Self.eventStreamType, "X-Accel-Buffering": "no"]) { socket in
            feeds.adopt(socket, store: name, journal: journal, from: position, head: head, unknownPosition: unknown)
        }
    }

    /// Where a subscription starts: `Last-Event-ID` (an event id, `<seq>-<hash prefix>`),
    /// else `?after=` (an event id or a bare sequence); `nil` when neither is given.
    static func feedStart(of request: HTTPRequest) throws(ServiceFailure) -> (sequence: UInt64, hashPrefix: String?)? {
        let ids = request.headers.values(for: "Last-Event-ID")
        guard ids.count <= 1 else { throw ServiceFailure(.badRequest, "the request has more than one Last-Event-ID header") }
        guard let text = ids.first ?? request.query["after"] else { return nil }
        guard let start = FeedPosition.parse(eventID: text.trimmingCharacters(in: .whitespaces)) else {
            throw ServiceFailure(
                .badRequest, "the feed's start must be an event id such as 42-3fa9c2d1e0b4a7f6, or a journal position")
        }
        return start
    }

    /// A store's head as a feed position, for the hub; `nil` when the store cannot be read
    /// now (the next change reads it again).
    static func feedPosition(of name: StoreName, in registry: StoreRegistry) -> FeedPosition? {
        let store: Store?
        do throws(StoreError) { store = try registry.checkOut(named: name) } catch { return nil }
        guard let store else { return nil }
        defer { registry.checkIn(name) }
        let head = store.head
        return FeedPosition(sequence: head.sequence, hash: head.hash)
    }
}
