import Foundation

/// The request handler of `ferry serve`: routes Ferry's sync protocol (version 1, see
/// `docs/PROTOCOL.md`) to the stores under a root folder, after checking the bearer token.
/// It moves changes only: all planning and conflict logic stays in the client's ``SyncEngine``
/// and in ``Store/receive(_:from:maximumSkew:)``.
///
/// ```swift
/// let service = StoreService(root: "/srv/ferry", policy: .single(token: token))
/// let server = HTTPServer(configuration: .init(port: 8080), handler: service) { print($0) }
/// let port = try server.start()
/// // … on SIGTERM:
/// await server.stop()
/// service.close()
/// ```
package struct StoreService: HTTPHandler {
    /// The stores served.
    package let registry: StoreRegistry
    /// Who may do what.
    package let policy: AccessPolicy
    /// The largest clock skew a pushed change may have, in milliseconds (one day by default);
    /// a client may ask for less, never more.
    package let maximumClockSkew: UInt64
    let log: @Sendable (String) -> Void
    /// The states offered to joining replicas lately, so their pages are read by position.
    let offeredStates = OfferedStates()
    /// The change feeds' subscribers, on a thread of their own.
    package let feeds: ChangeFeedHub

    /// Serves the stores under `root`.
    /// - Parameters:
    ///   - root: the folder holding one store folder per name.
    ///   - policy: the tokens and what they open.
    ///   - storeOptions: how stores are opened (clock, lock timeout, warnings).
    ///   - maximumClockSkew: the bound on pushed changes' stamps ahead of this clock, in ms.
    ///   - maximumOpenStores: the most stores kept open at once (least recently used closed first).
    ///   - feed: the change feeds' limits and heartbeat.
    ///   - log: receives operational messages (a store that failed to open, say).
    package init(
        root: String, policy: AccessPolicy, storeOptions: StoreOptions = StoreOptions(),
        maximumClockSkew: UInt64 = 86_400_000, maximumOpenStores: Int = 256,
        feed: ChangeFeedHub.Configuration = ChangeFeedHub.Configuration(), log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        let registry = StoreRegistry(root: root, options: storeOptions, maximumOpen: maximumOpenStores)
        self.registry = registry
        self.policy = policy
        self.maximumClockSkew = maximumClockSkew
        self.log = log
        self.feeds = ChangeFeedHub(configuration: feed, readHead: { name in Self.feedPosition(of: name, in: registry) }, log: log)
    }

    /// Closes every subscriber of the change feeds and every open store. Call after the
    /// server has stopped.
    package func close() {
        feeds.stop()
        registry.closeAll()
    }

    /// The largest body each kind of request may send: a push up to the server's limit; the
    /// others are small (a changes query's knowledge, a checkpoint).
    static func bodyLimit(for resource: RemoteRoute.StoreResource?) -> Int {
        switch resource {
        case .push: return .max
        case .changes, .stateOffer: return 1 << 20
        case .checkpoint: return 64 << 10
        default: return 16 << 10
        }
    }

    /// Decides from the head, before the body is read: the route, the method and the token.
    /// A request that may not be made is answered at once (`401`, `403`, `404`, `405`) and its
    /// body never read; one that may gets its route's body limit.
    package func admit(_ request: HTTPRequest) -> HTTPAdmission {
        guard case .store(let nameText, let resource) = RemoteRoute(path: request.path) else {
            return .accept(maximumBodyBytes: Self.bodyLimit(for: nil))
        }
        do throws(ServiceFailure) {
            let writing = try Self.access(for: resource, request)
            _ = try authorize(request, storeName: nameText, writing: writing)
        } catch {
            var response = HTTPResponse.error(error.status, error.message)
            for field in error.headers { response.headers[field.name] = field.value }
            response.headers[RemoteProtocol.versionHeader] = String(RemoteProtocol.version)
            response.headers["Connection"] = "close"
            return .reject(response)
        }
        if case .push = resource {
            // A push is parsed as it arrives: the server holds its changes, never the body.
            return .stream(maximumBodyBytes: Self.bodyLimit(for: resource), consumer: { PushBodyConsumer() })
        }
        return .accept(maximumBodyBytes: Self.bodyLimit(for: resource))
    }

    /// Checks the method for `resource` (`405`) and says whether it writes.
    static func access(for resource: RemoteRoute.StoreResource, _ request: HTTPRequest) throws(ServiceFailure) -> Bool {
        switch resource {
        case .info, .knowledge, .entryHash, .snapshot, .statePage:
            try require(request, [.get, .head])
            return false
        case .stateOffer:
            try require(request, [.post])
            return false
        case .changes:
            try require(request, [.get, .head, .post])
            return false
        case .push:
            try require(request, [.post])
            return true
        case .feed:
            try require(request, [.get])
            return false
        case .checkpoint:
            // A checkpoint is written by the client and names a replica: only a token that may
            // write to the store may save one (a reader could otherwise fill the folder, or
            // record another replica's checkpoint).
            try require(request, [.put])
            return true
        }
    }

    /// Answers one request.
    package func handle(_ request: HTTPRequest) async -> HTTPResponse {
        var response: HTTPResponse
        do throws(ServiceFailure) {
            response = try await route(request)
        } catch {
            response = HTTPResponse.error(error.status, error.message)
            if let detail = error.detail { log("\(request.method) \(request.path.prefix(200)): \(detail)") }
            for field in error.headers { response.headers[field.name] = field.value }
        }
        response.headers[RemoteProtocol.versionHeader] = String(RemoteProtocol.version)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    private func route(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        switch RemoteRoute(path: request.path) {
        case .notFound:
            throw ServiceFailure(.notFound, "no such endpoint: \(request.path.prefix(200)) (see docs/PROTOCOL.md)")
        case .unsupportedVersion(let version):
            return HTTPResponse(
                status: .notFound, headers: ["Content-Type": RemoteProtocol.jsonType],
                body: Self.bodyBytes([
                    "error": .string(
                        "this server speaks Ferry protocol version \(RemoteProtocol.version), not \(version.prefix(20))"),
                    "protocols": [.integer(Int64(RemoteProtocol.version))],
                ]))
        case .root:
            try Self.require(request, [.get, .head])
            return Self.json(["protocol": .integer(Int64(RemoteProtocol.version)), "server": .string("ferry \(FerryVersion.current)")])
        case .stores:
            try Self.require(request, [.get, .head])
            return try await listStores(request)
        case .store(let nameText, let resource):
            let writing = try Self.access(for: resource, request)
            let name = try authorize(request, storeName: nameText, writing: writing)
            return try await serve(resource, of: name, request: request)
        }
    }

    /// Checks the token, then the name, then what the token allows on it: `401`, `400`, `403`.
    private func authorize(_ request: HTTPRequest, storeName text: String, writing: Bool) throws(ServiceFailure) -> StoreName {
        // Two tokens in one request: which one counts would depend on the reader (a proxy may
        // pick the other); refuse instead of guessing.
        guard request.headers.values(for: "Authorization").count <= 1 else {
            throw ServiceFailure(.badRequest, "the request has more than one Authorization header")
        }
        let header = request.headers["Authorization"]
        if !policy.isOpen && policy.grant(forAuthorization: header) == nil {
            let message = header == nil
                ? "this server needs a token: send 'Authorization: Bearer <token>'" : "unknown token"
            throw ServiceFailure(.unauthorized, message, headers: ["WWW-Authenticate": #"Bearer realm="ferry""#])
        }
        let name: StoreName
        do { name = try StoreName(text) } catch { throw ServiceFailure(.badRequest, error.description) }
        switch policy.authorize(header, store: name, writing: writing) {
        case .allowed: return name
        case .unauthenticated(let message):
            throw ServiceFailure(.unauthorized, message, headers: ["WWW-Authenticate": #"Bearer realm="ferry""#])
        case .forbidden(let message): throw ServiceFailure(.forbidden, message)
        }
    }

    private func listStores(_ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let header = request.headers["Authorization"]
        let grant = policy.grant(forAuthorization: header)
        if !policy.isOpen && grant == nil {
            throw ServiceFailure(
                .unauthorized, header == nil ? "this server needs a token: send 'Authorization: Bearer <token>'" : "unknown token",
                headers: ["WWW-Authenticate": #"Bearer realm="ferry""#])
        }
        let registry = self.registry
        let names = await BlockingWork.run { registry.storeNames() }
        let visible = names.filter { name in policy.isOpen || grant?.covers(name) == true }
        return Self.json(["stores": .array(visible.map { .string($0.rawValue) })])
    }

    // MARK: Helpers

    /// Fails with `405` unless the request uses one of `methods`.
    static func require(_ request: HTTPRequest, _ methods: [HTTPMethod]) throws(ServiceFailure) {
        guard methods.contains(request.method) else {
            throw ServiceFailure(
                .methodNotAllowed, "\(request.method) is not allowed here; use \(methods.map(\.rawValue).joined(separator: " or "))",
                headers: ["Allow": methods.map(\.rawValue).joined(separator: ", ")])
        }
    }

    /// A `200` (or `status`) JSON response.
    static func json(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": RemoteProtocol.jsonType], body: bodyBytes(value))
    }

    /// Canonical JSON and a newline.
    static func bodyBytes(_ value: JSONValue) -> [UInt8] {
        var bytes = value.canonicalBytes()
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}

/// A request the service answers with an error status and `{"error": "…"}`.
struct ServiceFailure: Error {
    var status: HTTPStatus
    var message: String
    var headers: HTTPHeaders
    /// What only the server's log sees (paths, system errors).
    var detail: String?

    init(_ status: HTTPStatus, _ message: String, headers: HTTPHeaders = [:], detail: String? = nil) {
        self.status = status
        self.message = message
        self.headers = headers
        self.detail = detail
    }
}
