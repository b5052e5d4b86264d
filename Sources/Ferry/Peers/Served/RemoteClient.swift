import Foundation

/// Sends the protocol's requests through an ``HTTPClient`` with the bearer token, retried as
/// ``RetryPolicy`` says for every client (every request of the protocol is idempotent: a
/// repeated push skips the changes the store already has).
final class RemoteClient: Sendable {
    /// A response: status, protocol header and body.
    struct Response: Sendable {
        var status: HTTPStatus
        var protocolHeader: String?
        var body: [UInt8]
        /// The size of the request's body, for a `413`'s message.
        var requestBytes = 0
        /// The server's `{"error": "…"}` message, or a short excerpt of the body.
        var errorMessage: String {
            if let value = try? JSONParser.parse(body), let message = value["error"]?.stringValue { return message }
            let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? "no message" : text
        }
    }

    let endpoint: RemoteEndpoint
    private let client: any HTTPClient
    private let token: String?
    private let retry: RetryPolicy

    init(endpoint: RemoteEndpoint, token: String?, client: any HTTPClient, retry: RetryPolicy) {
        self.endpoint = endpoint
        self.token = token
        self.client = client
        self.retry = retry
    }

    /// Sends a request to `suffix` under the store's path, retrying as the policy says.
    /// - Returns: the final response, whatever its status (server errors only once retries
    ///   are spent).
    /// - Throws: ``RemoteError/unreachable(_:reason:attempts:)`` when no attempt got an answer.
    /// - Parameter timeout: seconds without an answer before giving up; the client's default when `nil`.
    func send(
        _ method: HTTPMethod, _ suffix: String, body: [UInt8]? = nil, contentType: String = RemoteProtocol.jsonType, timeout: Double? = nil
    ) async throws(RemoteError) -> Response {
        guard let url = endpoint.url(for: suffix) else {
            throw .invalidURL(endpoint.text, reason: "cannot form the request URL")
        }
        var request = HTTPClientRequest(method: method, url: url, body: body, responseHeaderNames: [RemoteProtocol.versionHeader])
        request.timeout = timeout
        request.headers.append(("Accept", RemoteProtocol.jsonType + ", " + RemoteProtocol.changeStreamType))
        if let token { request.headers.append(("Authorization", "Bearer \(token)")) }
        if body != nil { request.headers.append(("Content-Type", contentType)) }
        let exchange = await client.send(retrying: retry) { _ in request }
        switch exchange.outcome {
        case .success(let response):
            return Response(
                status: response.status, protocolHeader: response.headers[RemoteProtocol.versionHeader.lowercased()],
                body: response.body, requestBytes: body?.count ?? 0)
        case .failure(let failure):
            var problem = failure.message
            // A TLS client talking to a plain HTTP server waits for a handshake that never comes.
            if url.scheme == "https", failure.message.contains("did not answer in time") {
                problem += " (no TLS handshake: is it a plain http:// server?)"
            }
            throw .unreachable(endpoint.text, reason: problem, attempts: exchange.attempts)
        }
    }

    /// Opens a response that keeps coming (the change feed) at `suffix`, once, without retries:
    /// who follows a feed decides when to come back.
    /// - Throws: ``RemoteError/unreachable(_:reason:attempts:)`` when no answer came; for a
    ///   status other than `200`, the error its message says (`401`, `403`, `404`: ``RemoteError/rejected(_:status:message:)``).
    func openStream(_ suffix: String, headers: [(name: String, value: String)]) async throws(RemoteError) -> HTTPClientStream {
        guard let url = endpoint.url(for: suffix) else {
            throw .invalidURL(endpoint.text, reason: "cannot form the request URL")
        }
        var request = HTTPClientRequest(method: .get, url: url, headers: headers)
        // Heartbeats come every 15 s: a minute of silence is a dead connection.
        request.timeout = 60
        if let token { request.headers.append(("Authorization", "Bearer \(token)")) }
        let stream: HTTPClientStream
        do { stream = try await client.openStream(request) } catch {
            throw .unreachable(endpoint.text, reason: error.message, attempts: 1)
        }
        guard stream.status == .ok else {
            // The error's JSON message, read from the start of the body.
            var body: [UInt8] = []
            do {
                for try await bytes in stream.bytes {
                    body += bytes
                    if body.count >= 4096 { break }
                }
            } catch {}
            stream.cancel()
            let response = Response(status: stream.status, protocolHeader: nil, body: body)
            switch stream.status {
            case .unauthorized: throw .unauthorized(endpoint.text, message: response.errorMessage)
            case .forbidden: throw .forbidden(endpoint.text, message: response.errorMessage)
            default: throw .rejected(endpoint.text, status: stream.status.code, message: response.errorMessage)
            }
        }
        return stream
    }
}
