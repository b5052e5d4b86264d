import Foundation
import FerryURLSession
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FerryTestSupport
import Testing
@testable import Ferry

/// A `StoreService` behind a real `HTTPServer` on an ephemeral loopback port, serving the
/// stores under a temporary root, with three tokens: read-write on everything, read-only on
/// everything, and read-write on `alice` only.
final class RemoteServer: Sendable {
    static let readWrite = "rw-token-0123456789"
    static let readOnly = "ro-token-0123456789"
    static let aliceOnly = "alice-token-0123456"
    static let policy = AccessPolicy(grants: [
        .init(token: readWrite, stores: ["*"], access: .readWrite),
        .init(token: readOnly, stores: ["*"], access: .read),
        .init(token: aliceOnly, stores: ["alice"], access: .readWrite),
    ])

    let root: String
    let service: StoreService
    let server: HTTPServer
    let port: Int
    private let lines = HTTPServerLock<[String]>([])

    /// Starts a server on `root` (a new temporary folder's `server` subfolder by default).
    init(
        root: String, port: Int = 0, policy: AccessPolicy = RemoteServer.policy, storeOptions: StoreOptions = StoreOptions(),
        maximumBodyBytes: Int? = nil, feed: ChangeFeedHub.Configuration = ChangeFeedHub.Configuration()
    ) throws {
        self.root = root
        try FileSystem.createDirectories(root)
        let lines = self.lines
        let log: @Sendable (String) -> Void = { line in lines.withLock { $0.append(line) } }
        service = StoreService(root: root, policy: policy, storeOptions: storeOptions, feed: feed, log: log)
        var configuration = HTTPServerConfiguration(
            host: "127.0.0.1", port: port, firstRequestTimeout: .seconds(2), readTimeout: .seconds(5),
            idleTimeout: .seconds(5), writeTimeout: .seconds(5), shutdownGracePeriod: .seconds(5))
        if let maximumBodyBytes { configuration.maximumBodyBytes = maximumBodyBytes }
        server = HTTPServer(configuration: configuration, handler: service, log: log)
        self.port = try server.start()
    }

    /// Every line logged so far.
    var logged: [String] { lines.withLock { $0 } }

    /// `http://127.0.0.1:<port>/<name>`.
    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    /// `http://127.0.0.1:<port><path>`.
    func address(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// A transport to store `name`.
    func transport(_ name: String, token: String? = RemoteServer.readWrite, retry: RetryPolicy = RetryPolicy(attempts: 3, firstDelay: 0.05)) throws -> HTTPTransport {
        var configuration = HTTPTransport.Configuration()
        configuration.retry = retry
        return try HTTPTransport(url: url(name), token: token, configuration: configuration)
    }

    /// The server's own open store called `name` (the instance requests use).
    func store(_ name: String) throws -> Store {
        try #require(try service.registry.store(named: StoreName(name)))
    }

    /// Stops the server and closes its stores.
    func stop() async {
        await server.stop()
        service.close()
    }
}

/// Syncs `store` with store `name` on `server` through the engine.
@discardableResult
func sync(
    _ store: Store, with server: RemoteServer, _ name: String, token: String? = RemoteServer.readWrite,
    options: SyncOptions = SyncOptions()
) async throws -> SyncReport {
    try await SyncEngine(store: store, transport: server.transport(name, token: token), options: options).run()
}

/// Sends one request with URLSession and returns status and body text.
func request(
    _ method: String, _ url: String, token: String? = RemoteServer.readWrite, body: String? = nil
) async throws -> (status: Int, body: String, headers: [String: String]) {
    var request = URLRequest(url: try #require(URL(string: url)))
    request.httpMethod = method
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    if let body { request.httpBody = Data(body.utf8) }
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    var headers: [String: String] = [:]
    for (key, value) in http.allHeaderFields {
        if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
    }
    return (http.statusCode, String(decoding: data, as: UTF8.self), headers)
}

/// Every record of every entity in `store`, for comparing replicas.
func allRecords(_ store: Store) throws -> [String: JSONValue] {
    var result: [String: JSONValue] = [:]
    for entry in try store.journalEntries() {
        let key = entry.change.key
        if let document = try? store.get(entity: key.entity, id: key.id) { result[key.description] = document }
    }
    return result
}
