import Foundation

/// Reaches a store hosted by `ferry serve` over HTTP(S), speaking protocol version 1 (see
/// `docs/PROTOCOL.md`). Like every transport it only moves changes; the ``SyncEngine`` plans
/// and resolves.
///
/// The exchanges go through an ``HTTPClient``; `FerryURLSession` adds the initializer that
/// makes one on `URLSession`:
///
/// ```swift
/// import FerryURLSession
///
/// let transport = try HTTPTransport(url: "http://127.0.0.1:8080/alice", token: token)
/// let report = try await SyncEngine(store: laptop, transport: transport).run()
/// ```
///
/// Every request is retried as ``RetryPolicy`` says for every client (connection errors, and
/// `429`, `500`, `502`, `503` and `504` answers, after `Retry-After` when the server sends one). A sync
/// interrupted at any point (the client killed, the server restarted) resumes on the next run
/// without duplicates or losses: pushes are idempotent on the server (changes it has are
/// skipped) and checkpoints are written last. When the store does not exist yet and the token
/// may write, the first contact creates it (an empty push).
public final class HTTPTransport: SyncTransport, SnapshotSource, WriteCheck, @unchecked Sendable {
    /// How the transport talks to the server.
    public struct Configuration: Sendable {
        /// When a request is tried again (``RetryPolicy/retryableStatuses``).
        public var retry = RetryPolicy()
        /// Seconds one request may wait for the server's answer (for a client the transport
        /// makes itself).
        public var timeout: Double = 120
        /// Whether a full pull reads ahead: the next page is requested while the engine stores
        /// the current one.
        public var readAhead = true
        /// Seconds the first request may wait for an answer: a server that accepts connections
        /// and says nothing (or a wrong port) is reported this soon, not after the long timeout.
        public var firstContactTimeout: Double = 5
        /// The most bytes of changes in one push request or one page of changes: pages are cut
        /// in bytes as well as in count, so large records travel through the server's and a
        /// proxy's body limits (one change larger than this goes alone).
        public var maximumRequestBytes = RemoteProtocol.pushRequestBytes

        /// The defaults.
        public init() {}
    }

    /// The store's URL as given.
    public let url: String
    /// Where the store is.
    public let endpoint: RemoteEndpoint
    let client: RemoteClient
    private let configuration: Configuration
    private let state = NSLock()
    /// The next page of changes, read while the engine applies the current one.
    private let readAhead = PagePrefetch<ChangeQuery, Result<ChangeBatch, RemoteError>>()
    /// The served store's replica, once opened.
    private var peerReplica: ReplicaID?
    /// The store's journal head when the exchange opened.
    private var openedHead: StoreHead?
    /// The state the server offered, and how many of its versions were read.
    private var offeredState: (offer: SnapshotOffer, delivered: Int)?

    /// A transport to the store at `url` that exchanges through `client`. Transports may
    /// share one client, so that syncs reuse its connections.
    /// - Parameters:
    ///   - url: `http(s)://host[:port][/prefix]/<store>`.
    ///   - token: the bearer token (`nil` for a server run with `--no-auth`).
    ///   - client: what sends the requests.
    ///   - configuration: retries, read-ahead.
    /// - Throws: ``RemoteError/invalidURL(_:reason:)``.
    public init(url: String, token: String?, client: any HTTPClient, configuration: Configuration = Configuration()) throws(RemoteError) {
        self.url = url
        endpoint = try RemoteEndpoint(parsing: url)
        self.configuration = configuration
        self.client = RemoteClient(endpoint: endpoint, token: token, client: client, retry: configuration.retry)
    }

    public var peerDescription: String { url }

    // MARK: SyncTransport

    public func open() async throws(SyncError) -> PeerInfo {
        do {
            switch try await info(timeout: configuration.firstContactTimeout) {
            case .some(let info):
                state.withLock { (peerReplica, openedHead) = (info.replica, info.head) }
                return info.peer
            case .none:
                // No such store: an empty push creates it, if the token allows writing.
                let response = try await client.send(.post, "/push", body: PushRequest(changes: []).bodyBytes())
                if response.status == .forbidden {
                    throw RemoteError.noSuchStore(
                        url, message: "no store named \(quoted(endpoint.store.rawValue)), and this token may not create one")
                }
                _ = try PushReply(body: try checked(response, expecting: [.ok, .created]))
                guard let info = try await info() else {
                    throw RemoteError.noSuchStore(url, message: "the store was created but cannot be read back")
                }
                state.withLock { (peerReplica, openedHead) = (info.replica, info.head) }
                return info.peer
            }
        } catch let error as RemoteError {
            throw .transport(error.description)
        } catch let error as RemoteMessageError {
            throw .transport(RemoteError.malformedResponse(url, reason: error.reason).description)
        } catch {
            throw .transport("\(error)")
        }
    }

    public func close() async {
        readAhead.cancel()
    }

    public func frontier() async throws(SyncError) -> ReplicaFrontier {
        try await knowledgeAndCount().frontier
    }

    public func liveRecordCount() async throws(SyncError) -> Int {
        try await knowledgeAndCount().records
    }

    /// Reads on from the mark's position when the server's entry there still has its hash
    /// (one request, none when the mark is the head it opened with).
    public func resume(from mark: PeerMark) async throws(SyncError) -> UInt64? {
        guard let head = state.withLock({ openedHead }) else { throw .transport("\(url): the transport is not open") }
        return try await StoreMark.resume(from: mark, head: head) { (position) throws(SyncError) in try await entryHash(at: position) }
    }

    func entryHash(at sequence: UInt64) async throws(SyncError) -> SHA256Digest? {
        try await mapped { () throws(RemoteError) -> SHA256Digest? in
            let body = try checked(try await client.send(.get, "/entries/\(sequence)/hash"), expecting: [.ok])
            guard let value = try? JSONParser.parse(body), case .object(let members) = value else {
                throw .malformedResponse(url, reason: "the entry hash answer is not a JSON object")
            }
            switch members["hash"] {
            case .null: return nil
            case .string(let text):
                guard let digest = SHA256Digest(hex: text) else {
                    throw .malformedResponse(url, reason: "hash: must be 64 hex digits")
                }
                return digest
            default: throw .malformedResponse(url, reason: "hash: must be a string or null")
            }
        }
    }

    public func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch {
        var query = ChangeQuery(after: position, limit: min(max(limit, 1), RemoteProtocol.maximumPageSize), knowledge: knowledge)
        query.maximumBytes = configuration.maximumRequestBytes
        let result: Result<ChangeBatch, RemoteError>
        if let ahead = readAhead.take(query) {
            result = await ahead.value
        } else {
            result = await Self.fetch(query, client: client, url: url)
        }
        switch result {
        case .success(let batch):
            if configuration.readAhead && batch.through < batch.head && !batch.changes.isEmpty {
                var next = ChangeQuery(after: batch.through, limit: query.limit, knowledge: knowledge)
                next.maximumBytes = query.maximumBytes
                let query = next
                readAhead.start(query) { [client, url] in await Self.fetch(query, client: client, url: url) }
            }
            return batch
        case .failure(let error):
            throw .transport(error.description)
        }
    }

    /// Pushes `changes` in requests of at most ``Configuration/maximumRequestBytes`` (a larger
    /// change alone in its request), in order; the result covers them all, and says the
    /// requests followed each other at the server only when nobody else wrote in between.
    public func push(_ changes: [Change], maximumSkew: UInt64, continuing mark: PeerMark?) async throws(SyncError) -> PushResult {
        PushResult(try await pushRequests(changes, maximumSkew: maximumSkew), continuing: mark)
    }

    private func pushRequests(_ changes: [Change], maximumSkew: UInt64) async throws(SyncError) -> ReceiveResult {
        try await mapped { () throws(RemoteError) -> ReceiveResult in
            var total: ReceiveResult?
            for group in PushRequest.groups(of: changes, maximumBytes: configuration.maximumRequestBytes) {
                let body = PushRequest.body(encodedChanges: group.encoded, maximumSkew: maximumSkew)
                let response = try await client.send(.post, "/push", body: body)
                if response.status == .payloadTooLarge, group.count == 1, let change = changes.dropFirst(group.start).first {
                    throw RemoteError.requestTooLarge(url, bytes: body.count, message: "change \(change.identity) to \(change.key) alone is that large")
                }
                let reply = try checked(response, expecting: [.ok, .created])
                let result: ReceiveResult
                do throws(RemoteMessageError) { result = try PushReply(body: reply).result } catch {
                    throw .malformedResponse(url, reason: error.reason)
                }
                guard var sum = total else {
                    total = result
                    continue
                }
                // Contiguous only if this request started where the previous one ended.
                if result.headBefore != sum.headAfter { sum.headBefore = UInt64.max }
                sum.applied += result.applied
                sum.alreadyKnown += result.alreadyKnown
                sum.committedEdits += result.committedEdits
                sum.newConflicts += result.newConflicts
                sum.headAfter = result.headAfter
                sum.hashAfter = result.hashAfter
                total = sum
            }
            return total ?? ReceiveResult()
        }
    }

    /// Asks with an empty push, which writes nothing: `403` means the token may only read.
    public func mayWrite() async -> Bool? {
        guard let response = try? await client.send(.post, "/push", body: PushRequest(changes: []).bodyBytes()),
            response.protocolHeader != nil
        else { return nil }
        switch response.status {
        case .ok, .created: return true
        case .forbidden: return false
        default: return nil
        }
    }

    public func saveCheckpoint(_ exchange: PeerCheckpoint) async throws(SyncError) {
        let checkpoint = exchange.storeCheckpoint
        // The names this store knows travel with its checkpoint; the server keeps those it lacks.
        var body = checkpoint.jsonValue
        // At most 200 of them, so the body stays well within the server's 64 KiB for a checkpoint.
        let names = exchange.names.sorted { $0.key < $1.key }.prefix(200)
        if !names.isEmpty { body["names"] = ReplicaNameBook.json(Dictionary(uniqueKeysWithValues: names.map { ($0.key, $0.value) })) }
        try await mapped { () throws(RemoteError) in
            let response = try await client.send(
                "PUT", "/checkpoints/\(checkpoint.peer.rawValue)", body: body.canonicalBytes())
            // A read-only token may not save the server's side of the checkpoint; this store's own
            // checkpoint, the one a sync plans from, is saved already.
            if response.status == .forbidden && response.protocolHeader != nil { return }
            _ = try checked(response, expecting: [.ok, .noContent])
        }
    }

    // MARK: Requests

    /// The store's info, or `nil` when the server has no store of that name.
    private func info(timeout: Double? = nil) async throws(RemoteError) -> RemoteStoreInfo? {
        let response = try await client.send(.get, "", timeout: timeout)
        if response.status == .notFound && response.protocolHeader != nil && !Self.hasProtocols(response.body) {
            return nil
        }
        let body = try checked(response, expecting: [.ok])
        do throws(RemoteMessageError) {
            return try RemoteStoreInfo(body: body)
        } catch {
            if let value = try? JSONParser.parse(body), let version = value["protocol"]?.integerValue,
                version != Int64(RemoteProtocol.version)
            {
                throw .protocolMismatch(url, serverVersions: [Int(version)])
            }
            throw .malformedResponse(url, reason: error.reason)
        }
    }

    private func knowledgeAndCount() async throws(SyncError) -> (frontier: ReplicaFrontier, records: Int) {
        try await mapped { () throws(RemoteError) -> (frontier: ReplicaFrontier, records: Int) in
            let body = try checked(try await client.send(.get, "/knowledge"), expecting: [.ok])
            guard let value = try? JSONParser.parse(body), let vectorValue = value["knowledge"],
                let vector = VersionVector(json: vectorValue), let records = value["records"]?.integerValue, records >= 0
            else { throw .malformedResponse(url, reason: "the knowledge answer needs \"knowledge\" and \"records\"") }
            var digests: [ReplicaID: SHA256Digest] = [:]
            if let digestsValue = value["digests"] {
                guard case .object(let members) = digestsValue else {
                    throw .malformedResponse(url, reason: "\"digests\" must map replica UUIDs to digests")
                }
                for (key, member) in members {
                    guard let replica = ReplicaID(key), let text = member.stringValue, let digest = SHA256Digest(hex: text) else {
                        throw .malformedResponse(url, reason: "\"digests\" must map replica UUIDs to digests")
                    }
                    digests[replica] = digest
                }
            }
            return (ReplicaFrontier(knowledge: vector, digests: digests), Int(records))
        }
    }

    // MARK: Joining from the state

    /// The state the served store offers instead of its history (`POST …/state`); `nil` when
    /// it offers none, or is an older server without the endpoint.
    public func snapshotOffer(for knowledge: VersionVector, pending: SnapshotJoins.Join?) async throws(SyncError) -> SnapshotOffer? {
        let offer = try await mapped { () throws(RemoteError) -> SnapshotOffer? in
            let response = try await client.send(.post, "/state", body: StateOffer.requestBody(knowledge: knowledge, pending: pending?.source))
            if response.status == .notFound || response.status == .methodNotAllowed, response.protocolHeader != nil, !Self.hasProtocols(response.body) {
                return nil  // a server from before joins from the state: it sends its history
            }
            let body = try checked(response, expecting: [.ok])
            do throws(RemoteMessageError) { return try StateOffer.offer(body: body) } catch {
                throw .malformedResponse(url, reason: error.reason)
            }
        }
        state.withLock { offeredState = offer.map { ($0, 0) } }
        return offer
    }

    /// The next page of the offered state's versions; `nil` once all were read.
    public func snapshotChanges(limit: Int) async throws(SyncError) -> [Change]? {
        guard let (offer, delivered) = state.withLock({ offeredState }), delivered < offer.changeCount else { return nil }
        let count = min(max(limit, 1), RemoteProtocol.maximumPageSize)
        let changes = try await mapped { () throws(RemoteError) -> [Change] in
            let body = try checked(try await client.send(.get, "/state/\(offer.id.hex)?from=\(delivered)&limit=\(count)&maxBytes=\(configuration.maximumRequestBytes)"), expecting: [.ok])
            var decoder = ChangeStreamDecoder()
            do throws(RemoteMessageError) {
                let changes = try decoder.feed(body)
                let trailer = try decoder.finish()
                guard trailer.through == UInt64(delivered + changes.count), !changes.isEmpty || trailer.through == trailer.head else {
                    throw RemoteMessageError("the state page does not continue from version \(delivered)")
                }
                return changes
            } catch { throw .malformedResponse(url, reason: error.reason) }
        }
        state.withLock { offeredState = (offer, delivered + changes.count) }
        return changes
    }

    /// The served store's replica and URL: a join from its state names them.
    public var joinSource: (id: ReplicaID, location: String)? {
        state.withLock { peerReplica }.map { ($0, url) }
    }

    /// Fetches one page of changes (static: a page read ahead holds the client, not the transport).
    private static func fetch(_ query: ChangeQuery, client: RemoteClient, url: String) async -> Result<ChangeBatch, RemoteError> {
        do {
            let response = try await client.send(.post, "/changes", body: query.bodyBytes())
            let body = try checked(response, expecting: [.ok], url: url)
            var decoder = ChangeStreamDecoder()
            let changes: [Change]
            let trailer: ChangeStreamTrailer
            do throws(RemoteMessageError) {
                changes = try decoder.feed(body)
                trailer = try decoder.finish()
            } catch { throw RemoteError.malformedResponse(url, reason: error.reason) }
            guard trailer.through >= query.after || trailer.through == trailer.head else {
                throw RemoteError.malformedResponse(url, reason: "the page ends before the position asked for")
            }
            return .success(ChangeBatch(changes: changes, through: trailer.through, head: trailer.head))
        } catch let error as RemoteError {
            return .failure(error)
        } catch {
            return .failure(.malformedResponse(url, reason: "\(error)"))
        }
    }

    /// The body of a response with one of the `expected` statuses; any other becomes the
    /// matching ``RemoteError``.
    private func checked(_ response: RemoteClient.Response, expecting expected: Set<HTTPStatus>) throws(RemoteError) -> [UInt8] {
        try Self.checked(response, expecting: expected, url: url)
    }

    static func checked(_ response: RemoteClient.Response, expecting expected: Set<HTTPStatus>, url: String) throws(RemoteError) -> [UInt8] {
        if expected.contains(response.status) {
            guard response.protocolHeader != nil else { throw .notAFerryServer(url, status: response.status.code) }
            if let header = response.protocolHeader, header != String(RemoteProtocol.version) {
                throw .protocolMismatch(url, serverVersions: [Int(header) ?? 0])
            }
            return response.body
        }
        let message = response.errorMessage
        // A proxy's 413 carries no protocol header: it is still about the size, not the server.
        if response.status == .payloadTooLarge {
            // The server's own message says which limit; a proxy's HTML page says nothing useful.
            throw .requestTooLarge(url, bytes: response.requestBytes, message: response.protocolHeader != nil ? message : nil)
        }
        guard response.protocolHeader != nil else { throw .notAFerryServer(url, status: response.status.code) }
        switch response.status {
        case .unauthorized: throw .unauthorized(url, message: message)
        case .forbidden: throw .forbidden(url, message: message)
        case .notFound:
            if let versions = protocols(in: response.body) { throw .protocolMismatch(url, serverVersions: versions) }
            throw .noSuchStore(url, message: message)
        case 500..<600: throw .serverError(url, status: response.status.code, message: message)
        default: throw .rejected(url, status: response.status.code, message: message)
        }
    }

    private static func protocols(in body: [UInt8]) -> [Int]? {
        guard let value = try? JSONParser.parse(body), let list = value["protocols"]?.arrayValue else { return nil }
        return list.compactMap { $0.integerValue.map(Int.init) }
    }

    private static func hasProtocols(_ body: [UInt8]) -> Bool { protocols(in: body) != nil }

    /// Runs `body`, reporting its ``RemoteError`` as ``SyncError/transport(_:)``.
    private func mapped<T>(_ body: () async throws(RemoteError) -> T) async throws(SyncError) -> T {
        do { return try await body() } catch { throw .transport(error.description) }
    }
}
