import Foundation
import Testing

@testable import Ferry

/// An HTTP client that answers from a script, one answer (or failure) a request, and keeps
/// the requests it was sent.
final class ScriptedHTTPClient: HTTPClient, @unchecked Sendable {
    enum Step {
        case answer(HTTPStatus, headers: [String: String] = [:], body: String = "")
        case fail(retryable: Bool)
    }

    private let lock = NSLock()
    private var steps: [Step]
    private(set) var requests: [HTTPClientRequest] = []

    init(_ steps: [Step]) { self.steps = steps }

    var sent: Int { lock.withLock { requests.count } }

    func send(_ request: HTTPClientRequest) async throws(HTTPClientFailure) -> HTTPClientResponse {
        let step = lock.withLock { () -> Step in
            requests.append(request)
            return steps.isEmpty ? .fail(retryable: false) : steps.removeFirst()
        }
        switch step {
        case .answer(let status, let headers, let body):
            return HTTPClientResponse(status: status, headers: headers, body: Array(body.utf8))
        case .fail(let retryable):
            throw HTTPClientFailure("scripted failure", isRetryable: retryable)
        }
    }
}

/// One retry rule for every client (issue 53, item 1): the same statuses are retried by the
/// `ferry serve` client, S3 and PocketBase, and a server's `Retry-After` is honoured.
@Suite struct RetryPolicyTests {
    let quick = RetryPolicy(attempts: 3, firstDelay: 0.001, maximumDelay: 0.002)

    @Test func theTableOfRetryableStatuses() {
        for code in [429, 500, 502, 503, 504] { #expect(RetryPolicy.isRetryable(HTTPStatus(code: code)), "\(code)") }
        for code in [200, 204, 400, 401, 403, 404, 409, 412, 413, 501, 505] {
            #expect(!RetryPolicy.isRetryable(HTTPStatus(code: code)), "\(code)")
        }
    }

    @Test func retryAfterInSecondsOrAsADateIsHonouredAndCapped() throws {
        let policy = RetryPolicy(attempts: 3, firstDelay: 0.1, maximumDelay: 1.6, maximumRetryAfter: 30)
        #expect(policy.delay(beforeAttempt: 2, retryAfter: "7") == 7)
        #expect(policy.delay(beforeAttempt: 2, retryAfter: " 0 ") == 0)
        #expect(policy.delay(beforeAttempt: 2, retryAfter: "3600") == 30)
        let now = try #require(HTTPDate.milliseconds("Wed, 25 Nov 2026 09:22:11 GMT"))
        #expect(policy.delay(beforeAttempt: 2, retryAfter: "Wed, 25 Nov 2026 09:22:16 GMT", now: now) == 5)
        #expect(policy.delay(beforeAttempt: 2, retryAfter: "Wed, 25 Nov 2026 09:22:01 GMT", now: now) == 0)
        // Anything else is no Retry-After: the backoff.
        for bad in ["soon", "-3", "1.5", ""] {
            let delay = policy.delay(beforeAttempt: 2, retryAfter: bad)
            #expect(delay >= 0.1 && delay <= 0.125, "\(bad)")
        }
    }

    @Test func theLoopRetriesWhatTheTableSaysAndStopsAtTheAttempts() async {
        let client = ScriptedHTTPClient([.answer(500), .fail(retryable: true), .answer(200)])
        let request = HTTPClientRequest(method: .get, url: URL(string: "http://127.0.0.1:1/x")!)
        var exchange = await client.send(retrying: quick) { _ in request }
        #expect(exchange.attempts == 3)
        #expect((try? exchange.outcome.get())?.status == .ok)

        let spent = ScriptedHTTPClient([.answer(503), .answer(503), .answer(503), .answer(200)])
        exchange = await spent.send(retrying: quick) { _ in request }
        #expect(exchange.attempts == 3 && spent.sent == 3)
        #expect((try? exchange.outcome.get())?.status == .serviceUnavailable)

        let final = ScriptedHTTPClient([.answer(501), .answer(200)])
        exchange = await final.send(retrying: quick) { _ in request }
        #expect(exchange.attempts == 1 && (try? exchange.outcome.get())?.status == .notImplemented)

        let refused = ScriptedHTTPClient([.fail(retryable: false), .answer(200)])
        exchange = await refused.send(retrying: quick) { _ in request }
        #expect(exchange.attempts == 1 && refused.sent == 1)
    }

    @Test func eachAttemptIsMadeAnewAndAsksForRetryAfter() async {
        let client = ScriptedHTTPClient([.answer(429, headers: ["retry-after": "0"]), .answer(200)])
        var made: [Int] = []
        _ = await client.send(retrying: quick) { attempt in
            made.append(attempt)
            return HTTPClientRequest(method: .get, url: URL(string: "http://127.0.0.1:1/\(attempt)")!, responseHeaderNames: ["etag"])
        }
        #expect(made == [1, 2])
        #expect(client.requests.map(\.url.path) == ["/1", "/2"])
        #expect(client.requests.allSatisfy { $0.responseHeaderNames == ["etag", "retry-after"] })
    }

    /// The `ferry serve` client used to give up on a `500` at once; it now retries it as S3
    /// and PocketBase do.
    @Test func theServedStoreClientRetriesA500() async throws {
        let digest = SHA256.hash(Array("x".utf8))
        let client = ScriptedHTTPClient([
            .answer(500, headers: ["ferry-protocol": "1"], body: #"{"error":"disk busy"}"#),
            .answer(200, headers: ["ferry-protocol": String(RemoteProtocol.version)], body: #"{"hash":"\#(digest.hex)"}"#),
        ])
        var configuration = HTTPTransport.Configuration()
        configuration.retry = quick
        let transport = try HTTPTransport(url: "http://127.0.0.1:1/alice", token: nil, client: client, configuration: configuration)
        #expect(try await transport.entryHash(at: 1) == digest)
        #expect(client.sent == 2)
    }

    @Test func s3RetriesTheSameStatusesAndNotA501() async throws {
        var configuration = S3Configuration(
            credentials: AWSCredentials(accessKeyID: "k", secretAccessKey: "s"), endpoint: URL(string: "http://127.0.0.1:1"))
        configuration.maximumAttempts = 3
        let busy = ScriptedHTTPClient([.answer(429), .answer(200, headers: ["etag": "\"e\""], body: "x")])
        let s3 = S3Client(configuration: configuration, httpClient: busy, retryDelay: 0.001)
        let object = try await s3.getObject(bucket: "bucket", key: "k")
        #expect(object?.bytes == Array("x".utf8) && busy.sent == 2 && s3.requestCount == 2)
        // 501 is an answer (If-None-Match unsupported), not a reason to try again.
        let unsupported = ScriptedHTTPClient([.answer(501), .answer(200)])
        let outcome = try await S3Client(configuration: configuration, httpClient: unsupported, retryDelay: 0.001)
            .putObjectIfAbsent(bucket: "bucket", key: "k", bytes: [1])
        #expect(outcome == .unsupported && unsupported.sent == 1)
    }

    @Test func pocketBaseHonoursRetryAfterAndRetriesA502() async throws {
        let location = try PocketBaseLocation(parsing: "pocketbase+http://127.0.0.1:1")
        let page = #"{"items":[],"page":1,"perPage":500}"#
        let client = ScriptedHTTPClient([.answer(429, headers: ["retry-after": "0"]), .answer(502), .answer(200, body: page)])
        let pocketBase = PocketBaseClient(
            location: location, credentials: .token("t", collection: "users"), httpClient: client, maximumAttempts: 3, retryDelay: 0.001)
        _ = try await pocketBase.exchange("GET", "/api/collections/Note/records", what: "list Note", authenticated: false)
        #expect(client.sent == 3)
    }
}
