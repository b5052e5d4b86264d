import Ferry
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPClient`` on Foundation's `URLSession`: HTTP/1.1 with keep-alive, HTTPS with the
/// system's trusted certificates, no cache and no cookies.
///
/// One client may serve many transports, so that syncs reuse its connections:
///
/// ```swift
/// let client = URLSessionHTTPClient(connectionsPerHost: 32)
/// for name in ["alice", "bob"] {
///     let transport = try HTTPTransport(url: "https://sync.example.org/\(name)", token: token, client: client)
///     _ = try await SyncEngine(store: stores[name]!, transport: transport).run()
/// }
/// ```
public final class URLSessionHTTPClient: HTTPClient {
    private let session: URLSession

    /// A client with its own session.
    /// - Parameters:
    ///   - timeout: seconds one request may wait for an answer.
    ///   - connectionsPerHost: the most connections open to one server at once.
    public init(timeout: Double = 120, connectionsPerHost: Int = 8) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = connectionsPerHost
        session = URLSession(configuration: configuration)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: HTTPClientRequest) async throws(HTTPClientFailure) -> HTTPClientResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        if let timeout = request.timeout { urlRequest.timeoutInterval = timeout }
        let data: Data
        let response: URLResponse
        LiveTrace.note("client: sending \(request.method.rawValue) \(request.url.path)")
        defer { LiveTrace.note("client: answered \(request.method.rawValue) \(request.url.path)") }
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            throw Self.failure(error.localizedDescription, code: error.code)
        } catch {
            // FoundationNetworking may report libcurl's failures as plain NSErrors.
            let nsError = error as NSError
            // (`Code(rawValue:)` is failable on Linux only; the annotation fits both.)
            let code: URLError.Code? = nsError.domain == NSURLErrorDomain ? URLError.Code(rawValue: nsError.code) : nil
            throw Self.failure(nsError.localizedDescription, code: code)
        }
        guard let http = response as? HTTPURLResponse else {
            throw HTTPClientFailure("not an HTTP response", isRetryable: false)
        }
        var headers: [String: String] = [:]
        if let names = request.responseHeaderNames {
            // Looking up a few fields costs less than converting the whole header dictionary.
            for name in names {
                if let value = http.value(forHTTPHeaderField: name) { headers[name.lowercased()] = value }
            }
        } else {
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
        }
        return HTTPClientResponse(status: HTTPStatus(code: http.statusCode), headers: headers, body: [UInt8](data))
    }

    /// Opens a streamed response: over a plain socket of its own for `http://` (see
    /// ``SocketHTTPStream``); for `https://`, through libcurl's blocking interface on Linux
    /// (``CurlHTTPStream``) and through `URLSession` elsewhere.
    ///
    /// On Linux, a `URLSession` data task that streams a quiet response keeps libcurl asking
    /// for the socket's writability, which is always there: an idle change feed kept a core
    /// busy (about 200,000 wake-ups a second), and with two such followers on a 2-core machine
    /// the server's fsyncs waited seconds for the kernel's I/O completion work.
    public func openStream(_ request: HTTPClientRequest) async throws(HTTPClientFailure) -> HTTPClientStream {
        if request.url.scheme?.lowercased() == "http" { return try await SocketHTTPStream.open(request) }
        #if os(Linux)
        // Looked up when a stream opens (rarely), not with every client a command makes.
        if let curl = LibCurl.load() { return try await CurlHTTPStream.open(request, curl: curl) }
        #endif
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let (bytes, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let delegate = StreamDelegate(continuation: continuation)
        let configuration = URLSessionConfiguration.ephemeral
        // The time allowed between two pieces of the body: a stream may be quiet for a while.
        configuration.timeoutIntervalForRequest = request.timeout ?? 600
        configuration.timeoutIntervalForResource = 7 * 86_400
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = session.dataTask(with: urlRequest)
        let status: Int
        do {
            status = try await withCheckedThrowingContinuation { (waiting: CheckedContinuation<Int, any Error>) in
                delegate.setStatusContinuation(waiting)
                task.resume()
            }
        } catch {
            session.invalidateAndCancel()
            let nsError = error as NSError
            let code: URLError.Code? = nsError.domain == NSURLErrorDomain ? URLError.Code(rawValue: nsError.code) : nil
            throw Self.failure(nsError.localizedDescription, code: code)
        }
        return HTTPClientStream(status: HTTPStatus(code: status), bytes: bytes, cancel: { session.invalidateAndCancel() })
    }

    /// Hands a streamed response to an ``HTTPClientStream``: its status once, its body as it comes.
    private final class StreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
        private var statusContinuation: CheckedContinuation<Int, any Error>?

        init(continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation) {
            self.continuation = continuation
        }

        func setStatusContinuation(_ waiting: CheckedContinuation<Int, any Error>) {
            lock.withLock { statusContinuation = waiting }
        }

        private func takeStatusContinuation() -> CheckedContinuation<Int, any Error>? {
            lock.withLock {
                defer { statusContinuation = nil }
                return statusContinuation
            }
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
        ) {
            takeStatusContinuation()?.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? 0)
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            LiveTrace.note("stream delegate got \(data.count) bytes")
            continuation.yield([UInt8](data))
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            if let waiting = takeStatusContinuation() {
                waiting.resume(throwing: error ?? URLError(.badServerResponse))
            }
            if let error { continuation.finish(throwing: error) } else { continuation.finish() }
            session.finishTasksAndInvalidate()
        }
    }

    private static func failure(_ message: String, code: URLError.Code?) -> HTTPClientFailure {
        // libcurl's TLS failures may come with a generic code; they never go away by retrying.
        let retryable = code.map(isRetryable) ?? true
        let tls = ["certificate", "SSL", "TLS", "wrong version number"].contains { message.localizedCaseInsensitiveContains($0) }
        if tls && message.localizedCaseInsensitiveContains("wrong version number") {
            return HTTPClientFailure(
                "the TLS handshake failed (\(message)): is it a plain http:// server?", isRetryable: false)
        }
        if code == .timedOut { return HTTPClientFailure("the server accepted the connection but did not answer in time", isRetryable: false) }
        return HTTPClientFailure(message, isRetryable: retryable && !tls)
    }

    /// Whether a URLSession error may go away on another attempt: connection problems yes,
    /// a bad URL, a refused certificate or a cancellation no.
    static func isRetryable(_ code: URLError.Code) -> Bool {
        switch code {
        case .cancelled, .badURL, .unsupportedURL, .userAuthenticationRequired, .secureConnectionFailed, .timedOut,
            .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
            .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired:
            return false
        default:
            return true
        }
    }
}
