import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends the protocol's requests over URLSession with the bearer token, and retries with
/// backoff on connection errors and server errors (every request of the protocol is
/// idempotent: a repeated push skips the changes the store already has).
final class RemoteClient: Sendable {
    /// A response: status, protocol header and body.
    struct Response: Sendable {
        var status: Int
        var protocolHeader: String?
        var body: [UInt8]
        /// The server's `{"error": "…"}` message, or a short excerpt of the body.
        var errorMessage: String {
            if let value = try? JSONParser.parse(body), let message = value["error"]?.stringValue { return message }
            let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? "no message" : text
        }
    }

    let endpoint: RemoteEndpoint
    private let session: URLSession
    private let ownsSession: Bool
    private let token: String?
    private let retry: RetryPolicy

    init(endpoint: RemoteEndpoint, token: String?, session: URLSession?, retry: RetryPolicy, timeout: Double) {
        self.endpoint = endpoint
        self.token = token
        self.retry = retry
        if let session {
            self.session = session
            ownsSession = false
        } else {
            self.session = RemoteClient.makeSession(timeout: timeout)
            ownsSession = true
        }
    }

    /// A session fit for the protocol: no cache, no cookies, a few connections per host.
    static func makeSession(timeout: Double = 60, connectionsPerHost: Int = 8) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = connectionsPerHost
        return URLSession(configuration: configuration)
    }

    /// Releases the session if this client made it.
    func invalidate() {
        if ownsSession { session.finishTasksAndInvalidate() }
    }

    /// Sends a request to `suffix` under the store's path, retrying as the policy says.
    /// - Returns: the final response, whatever its status (server errors only once retries
    ///   are spent).
    /// - Throws: ``RemoteError/unreachable(_:reason:attempts:)`` when no attempt got an answer.
    func send(_ method: String, _ suffix: String, body: [UInt8]? = nil, contentType: String = RemoteProtocol.jsonType) async throws(RemoteError) -> Response {
        guard let url = endpoint.url(for: suffix) else {
            throw .invalidURL(endpoint.text, reason: "cannot form the request URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue(RemoteProtocol.jsonType + ", " + RemoteProtocol.changeStreamType, forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body)
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        var lastProblem = ""
        var attempt = 1
        while true {
            if attempt > 1 {
                try? await Task.sleep(nanoseconds: UInt64(retry.delay(beforeAttempt: attempt) * 1e9))
            }
            do {
                let (data, response) = try await session.data(for: request)
                guard let http = response as? HTTPURLResponse else {
                    throw RemoteError.malformedResponse(endpoint.text, reason: "not an HTTP response")
                }
                let answer = Response(
                    status: http.statusCode, protocolHeader: http.value(forHTTPHeaderField: RemoteProtocol.versionHeader),
                    body: [UInt8](data))
                if RetryPolicy.isRetryable(status: answer.status) && attempt < retry.attempts {
                    lastProblem = "\(answer.status): \(answer.errorMessage)"
                    attempt += 1
                    continue
                }
                return answer
            } catch let error as RemoteError {
                throw error
            } catch let error as URLError {
                lastProblem = error.localizedDescription
                if !Self.isRetryable(error.code) { break }
            } catch {
                // FoundationNetworking may report libcurl's failures as plain NSErrors.
                let nsError = error as NSError
                lastProblem = nsError.localizedDescription
                // (`Code(rawValue:)` is failable on Linux only; the annotation fits both.)
                let code: URLError.Code? = URLError.Code(rawValue: nsError.code)
                if nsError.domain == NSURLErrorDomain, let code, !Self.isRetryable(code) { break }
            }
            // libcurl's certificate failures may come with a generic code; they never go away by retrying.
            if lastProblem.localizedCaseInsensitiveContains("certificate") { break }
            if attempt >= retry.attempts { break }
            attempt += 1
        }
        throw .unreachable(endpoint.text, reason: lastProblem, attempts: attempt)
    }

    /// Whether a URLSession error may go away on another attempt: connection problems yes,
    /// a bad URL, a refused certificate or a cancellation no.
    static func isRetryable(_ code: URLError.Code) -> Bool {
        switch code {
        case .cancelled, .badURL, .unsupportedURL, .userAuthenticationRequired, .secureConnectionFailed,
            .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired:
            return false
        default:
            return true
        }
    }
}
