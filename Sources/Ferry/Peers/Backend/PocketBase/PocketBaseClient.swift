import Foundation

/// PocketBase's REST API, as Ferry needs it: sign-in, records (list, create, update, delete),
/// and for setup, collections and settings, over any ``HTTPClient``.
///
/// Requests are retried as ``RetryPolicy`` says for every client: no answer, a `429` (rate
/// limit, its `Retry-After` honoured), `500`, `502`, `503` or `504`. An expired session is
/// signed in again once. Every other failure is one
/// ``BackendError`` line naming the request's collection and record, the status and PocketBase's
/// message with its field errors.
///
/// ```swift
/// let client = PocketBaseClient(location: location, credentials: .forSync(environment: env), httpClient: http)
/// let identity = try await client.signIn()
/// let page = try await client.records(in: "Note", filter: "updated >= '2026-01-01 00:00:00.000Z'", sort: "updated,id", page: 1, perPage: 500)
/// ```
public final class PocketBaseClient: Sendable {
    /// Who the client is signed in as.
    public struct Identity: Sendable, Equatable {
        /// The auth record's id.
        public var id: String
        /// Its collection; `_superusers` for a superuser.
        public var collection: String
        /// Its email, when the server shows it.
        public var email: String?

        /// Whether API rules bind this identity (a superuser bypasses them all).
        public var isSuperuser: Bool { collection == PocketBaseCredentials.superuserCollection }
    }

    /// How an answer is parsed: as deep as a record a store takes (512 levels) inside a listing
    /// page's few levels. At 64 levels the answer to a deeper record failed, on every sync:
    /// the create that echoes it, and every listing page that holds it.
    static let answerParsing = JSONParser.Options(maximumDepth: JSONParser.Options.change.maximumDepth, maximumByteCount: 256 << 20)

    /// One page of a listing.
    public struct Page: Sendable {
        /// The records, each as PocketBase sends it (fields, `id`, `collectionName`, …).
        public var items: [[String: JSONValue]]
        /// The page's number, from 1.
        public var page: Int
        /// The page size the server used (at most the one asked for): a page this full may
        /// have more after it.
        public var perPage: Int
        /// The total, when asked for.
        public var totalItems: Int?
        /// The server's clock when it answered (its `Date` header), in milliseconds.
        public var serverTime: Int64?
    }

    public let location: PocketBaseLocation
    private let credentials: PocketBaseCredentials
    private let httpClient: any HTTPClient
    /// When a request is tried again (``RetryPolicy``, as for every client).
    private let retry: RetryPolicy
    private let session = Session()
    private let counter = RequestCounter()

    public init(
        location: PocketBaseLocation, credentials: PocketBaseCredentials, httpClient: any HTTPClient,
        maximumAttempts: Int = 4, retryDelay: Double = 0.2
    ) {
        self.location = location
        self.credentials = credentials
        self.httpClient = httpClient
        self.retry = RetryPolicy(attempts: maximumAttempts, firstDelay: retryDelay, maximumDelay: retryDelay * 64)
    }

    /// Requests sent so far, retries and sign-ins included.
    public var requestCount: Int { counter.value }

    /// The token of the session, once signed in (for a realtime connection).
    public var token: String? { session.token }

    /// Who the client is signed in as; `nil` before the first sign-in.
    public var identity: Identity? { session.identity }

    // MARK: Sign-in

    /// Signs in (or, for a token, refreshes it, which also checks it).
    /// - Returns: who the client is now.
    /// - Throws: ``BackendError`` of kind `.authentication` for refused credentials.
    @discardableResult
    public func signIn() async throws(BackendError) -> Identity {
        let collection = credentials.collection
        let what = "sign-in to \(location) as a \(quoted(collection)) record"
        let response: JSONValue
        switch credentials {
        case .password(let email, let password, _):
            let body: JSONValue = ["identity": .string(email), "password": .string(password)]
            do {
                response = try await exchange(
                    "POST", "/api/collections/\(PocketBaseLocation.escape(collection))/auth-with-password", body: body,
                    what: what, authenticated: false)
            } catch where error.kind == .invalid {
                // PocketBase answers a wrong email or password with 400.
                throw BackendError(.authentication, error.message + " (wrong email or password?)")
            }
        case .token(let token, _):
            session.token = token
            response = try await exchange(
                "POST", "/api/collections/\(PocketBaseLocation.escape(collection))/auth-refresh", what: what, authenticated: true,
                signInOnExpiry: false)
        }
        guard let token = response.objectValue?["token"]?.stringValue, let record = response.objectValue?["record"]?.objectValue,
              let id = record["id"]?.stringValue
        else {
            throw BackendError(.protocolViolation, "\(what): the answer has no token and record")
        }
        session.token = token
        let identity = Identity(
            id: id, collection: record["collectionName"]?.stringValue ?? collection, email: record["email"]?.stringValue)
        session.identity = identity
        return identity
    }

    // MARK: Records

    /// A page of the records of `collection` that `filter` selects, in `sort` order.
    public func records(
        in collection: String, filter: String? = nil, sort: String? = nil, page: Int = 1, perPage: Int = 500,
        fields: String? = nil, withTotal: Bool = false
    ) async throws(BackendError) -> Page {
        var query: [(String, String)] = [("page", String(page)), ("perPage", String(perPage))]
        if let filter { query.append(("filter", filter)) }
        if let sort { query.append(("sort", sort)) }
        if let fields { query.append(("fields", fields)) }
        if !withTotal { query.append(("skipTotal", "1")) }
        let (answer, headers) = try await exchangeWithHeaders(
            "GET", "/api/collections/\(PocketBaseLocation.escape(collection))/records", query: query, what: "list \(collection)")
        guard let object = answer.objectValue, let items = object["items"]?.arrayValue else {
            throw BackendError(.protocolViolation, "list \(collection): the answer has no items")
        }
        var records: [[String: JSONValue]] = []
        records.reserveCapacity(items.count)
        for item in items {
            guard let record = item.objectValue else {
                throw BackendError(.protocolViolation, "list \(collection): an item is not an object")
            }
            records.append(record)
        }
        let total = object["totalItems"]?.integerValue.map(Int.init)
        // The page size the server used: it may cap the one asked for.
        let used = object["perPage"]?.integerValue.map(Int.init) ?? perPage
        return Page(items: records, page: page, perPage: min(used, perPage), totalItems: withTotal ? total : nil,
                    serverTime: headers["date"].flatMap(HTTPDate.milliseconds))
    }

    /// How many records of `collection` the signed-in user may list (that `filter` selects).
    public func count(in collection: String, filter: String? = nil) async throws(BackendError) -> Int {
        let page = try await records(in: collection, filter: filter, perPage: 1, fields: "id", withTotal: true)
        guard let total = page.totalItems else {
            throw BackendError(.protocolViolation, "count \(collection): the answer has no totalItems")
        }
        return total
    }

    /// Creates a record; `fields` may hold its `id`.
    /// - Returns: the record as stored.
    public func create(in collection: String, fields: [String: JSONValue]) async throws(BackendError) -> [String: JSONValue] {
        let what = "create \(collection)/\(fields["id"]?.stringValue ?? "(new)")"
        return try await record(exchange(.post, "/api/collections/\(PocketBaseLocation.escape(collection))/records",
                                         body: .object(fields), what: what), what: what)
    }

    /// Updates a record's `fields` (others keep their values).
    /// - Returns: the record as stored.
    /// - Throws: ``BackendError`` of kind `.notFound` when there is no such record, or when the
    ///   collection's update rule refused it (a compare-and-set that did not hold looks the same).
    public func update(in collection: String, id: String, fields: [String: JSONValue]) async throws(BackendError) -> [String: JSONValue] {
        let what = "update \(collection)/\(id)"
        return try await record(exchange(.patch, "/api/collections/\(PocketBaseLocation.escape(collection))/records/\(PocketBaseLocation.escape(id))",
                                         body: .object(fields), what: what), what: what)
    }

    /// Deletes a record.
    public func delete(in collection: String, id: String) async throws(BackendError) {
        _ = try await exchange(.delete, "/api/collections/\(PocketBaseLocation.escape(collection))/records/\(PocketBaseLocation.escape(id))",
                               what: "delete \(collection)/\(id)")
    }

    private func record(_ value: JSONValue, what: String) throws(BackendError) -> [String: JSONValue] {
        guard let record = value.objectValue, record["id"]?.stringValue != nil else {
            throw BackendError(.protocolViolation, "\(what): the answer is not a record")
        }
        return record
    }

    /// One request of a batch.
    public struct BatchRequest: Sendable {
        public var method: String
        /// The API path, such as `/api/collections/Note/records/abc`.
        public var path: String
        public var body: [String: JSONValue]

        public init(method: String, path: String, body: [String: JSONValue]) {
            self.method = method
            self.path = path
            self.body = body
        }
    }

    /// Runs `requests` as one transaction (PocketBase's batch API): all are applied or none.
    /// - Returns: each request's status and answer, in order.
    /// - Throws: ``BackendError``: `.forbidden` when the server does not allow batches, `.invalid`
    ///   when one request failed (and so the whole batch).
    public func batch(_ requests: [BatchRequest], what: String) async throws(BackendError) -> [(status: Int, body: JSONValue)] {
        let body: JSONValue = ["requests": .array(requests.map {
            ["method": .string($0.method), "url": .string($0.path), "body": .object($0.body)]
        })]
        let answer = try await exchange(.post, "/api/batch", body: body, what: what)
        guard let items = answer.arrayValue, items.count == requests.count else {
            throw BackendError(.protocolViolation, "\(what): the batch answer does not have one result per request")
        }
        return items.map { item in
            (Int(item.objectValue?["status"]?.integerValue ?? 0), item.objectValue?["body"] ?? .null)
        }
    }

    // MARK: Collections and settings (superuser)

    /// The collection named `name` as PocketBase describes it; `nil` when there is none.
    public func collection(named name: String) async throws(BackendError) -> [String: JSONValue]? {
        do {
            let value = try await exchange(.get, "/api/collections/\(PocketBaseLocation.escape(name))", what: "collection \(name)")
            return value.objectValue
        } catch where error.kind == .notFound {
            return nil
        }
    }

    /// Creates a collection from its description (`name`, `type`, `fields`, rules).
    @discardableResult
    public func createCollection(_ description: [String: JSONValue]) async throws(BackendError) -> [String: JSONValue] {
        let name = description["name"]?.stringValue ?? "?"
        return try await exchange(.post, "/api/collections", body: .object(description), what: "create collection \(name)").objectValue ?? [:]
    }

    /// Changes a collection: `changes` replaces the members it names (`fields` whole: a field
    /// left out of it is deleted with its data, so callers send every field).
    @discardableResult
    public func updateCollection(_ name: String, _ changes: [String: JSONValue]) async throws(BackendError) -> [String: JSONValue] {
        try await exchange(.patch, "/api/collections/\(PocketBaseLocation.escape(name))", body: .object(changes),
                           what: "update collection \(name)").objectValue ?? [:]
    }

    /// The server's settings.
    public func settings() async throws(BackendError) -> [String: JSONValue] {
        try await exchange(.get, "/api/settings", what: "settings").objectValue ?? [:]
    }

    /// Changes the server's settings.
    public func updateSettings(_ changes: [String: JSONValue]) async throws(BackendError) {
        _ = try await exchange(.patch, "/api/settings", body: .object(changes), what: "update settings")
    }

    // MARK: Sending

    /// Sends a request and returns its JSON answer (`null` for an empty one).
    func exchange(
        _ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil, what: String,
        authenticated: Bool = true, signInOnExpiry: Bool = true
    ) async throws(BackendError) -> JSONValue {
        try await exchangeWithHeaders(method, path, query: query, body: body, what: what, authenticated: authenticated,
                                      signInOnExpiry: signInOnExpiry).0
    }

    /// ``exchange(_:_:query:body:what:authenticated:signInOnExpiry:)``, with the answer's `Date` header.
    func exchangeWithHeaders(
        _ method: HTTPMethod, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil, what: String,
        authenticated: Bool = true, signInOnExpiry: Bool = true
    ) async throws(BackendError) -> (JSONValue, [String: String]) {
        guard let url = location.url(path, query: query) else {
            throw BackendError(.setup, "\(what): cannot make a URL from \(location)")
        }
        if authenticated && session.token == nil && signInOnExpiry { try await signIn() }
        var signedInAgain = false
        while true {
            let token = authenticated ? session.token : nil
            let exchange = await httpClient.send(retrying: retry, counting: counter) { _ in
                var request = HTTPClientRequest(
                    method: method, url: url, body: body.map { $0.canonicalBytes() }, responseHeaderNames: ["retry-after", "date"])
                request.timeout = 30
                if body != nil { request.headers.append((name: "Content-Type", value: "application/json")) }
                if let token { request.headers.append((name: "Authorization", value: token)) }
                return request
            }
            let response: HTTPClientResponse
            switch exchange.outcome {
            case .success(let answer): response = answer
            case .failure(let error):
                throw BackendError(.unreachable,
                    "\(what): \(error.message)\(exchange.attempts > 1 ? " (after \(exchange.attempts) attempts)" : ""); is \(location) right and up?")
            }
            if response.status.isSuccess {
                if response.body.isEmpty { return (.null, response.headers) }
                do { return (try JSONParser.parse(response.body, options: Self.answerParsing), response.headers) } catch {
                    throw BackendError(.protocolViolation, "\(what): the answer is not JSON: \(error)")
                }
            }
            if response.status == .unauthorized && authenticated && signInOnExpiry && !signedInAgain {
                // The session expired: sign in again, once.
                signedInAgain = true
                session.token = nil
                try await signIn()
                continue
            }
            throw failure(response, what: what, attempts: exchange.attempts)
        }
    }

    /// The one-line error for an answer that is not a success.
    private func failure(_ response: HTTPClientResponse, what: String, attempts: Int) -> BackendError {
        let object = response.body.count < 1 << 20
            ? (try? JSONParser.parse(response.body, options: JSONParser.Options(maximumDepth: 16, maximumByteCount: 1 << 20)))?.objectValue : nil
        var line = "\(what): \(response.status.code)"
        if let message = object?["message"]?.stringValue, !message.isEmpty { line += " \(message)" }
        if let data = object?["data"]?.objectValue, !data.isEmpty {
            let details = data.keys.sorted().map { field -> String in
                let message = data[field]?.objectValue?["message"]?.stringValue ?? data[field]?.stringValue ?? "invalid"
                return "\(field): \(message)"
            }
            line += " (\(details.joined(separator: "; ")))"
        }
        if attempts > 1 { line += " (after \(attempts) attempts)" }
        let kind: BackendError.Kind
        switch response.status {
        case .badRequest: kind = .invalid
        case .unauthorized: kind = .authentication
        case .forbidden: kind = .forbidden
        case .notFound: kind = .notFound
        case .tooManyRequests: kind = .rateLimited
        case 500..<600: kind = .unreachable
        default: kind = .protocolViolation
        }
        return BackendError(kind, line)
    }

    /// The session's token and identity, shared by concurrent requests.
    private final class Session: @unchecked Sendable {
        private let lock = NSLock()
        private var storedToken: String?
        private var storedIdentity: Identity?

        var token: String? {
            get { lock.withLock { storedToken } }
            set { lock.withLock { storedToken = newValue } }
        }

        var identity: Identity? {
            get { lock.withLock { storedIdentity } }
            set { lock.withLock { storedIdentity = newValue } }
        }
    }
}
