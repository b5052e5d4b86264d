import Foundation

/// One HTTP exchange, as ``HTTPTransport`` needs it: a request out, a whole response back.
///
/// The transport keeps every rule of the protocol (paths, retries, status codes, message
/// shapes) and leaves only the exchange to a client, so the core library does not link an HTTP
/// stack. `FerryURLSession` provides the one built on `URLSession`:
///
/// ```swift
/// import Ferry
/// import FerryURLSession
///
/// let transport = try HTTPTransport(url: "https://example.org/alice", token: token)
/// ```
public protocol HTTPClient: Sendable {
    /// Opens a request whose response body keeps coming (server-sent events): the status once
    /// the head has arrived, then the body's bytes as they arrive, until the server ends it or
    /// the stream is cancelled. A client that cannot stream throws (the default).
    func openStream(_ request: HTTPClientRequest) async throws(HTTPClientFailure) -> HTTPClientStream

    /// Sends `request` and returns the server's answer, whatever its status.
    /// - Throws: ``HTTPClientFailure`` when no answer came (connection refused, reset, timed
    ///   out, a refused certificate).
    func send(_ request: HTTPClientRequest) async throws(HTTPClientFailure) -> HTTPClientResponse
}

/// A request for an ``HTTPClient``.
public struct HTTPClientRequest: Sendable {
    /// `GET`, `POST`, `PUT`…
    public var method: HTTPMethod
    /// The absolute URL.
    public var url: URL
    /// Header fields, in order.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: [UInt8]?
    /// The response header fields the caller reads (`nil`: all of them); a client may skip
    /// collecting the others.
    public var responseHeaderNames: [String]?
    /// Seconds the request may go without hearing from the server; the client's own default
    /// when `nil`. A first contact uses a short one, so a server that accepts and says nothing
    /// is reported in seconds.
    public var timeout: Double?

    /// A request.
    public init(
        method: HTTPMethod, url: URL, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        responseHeaderNames: [String]? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.responseHeaderNames = responseHeaderNames
    }
}

/// The answer to an ``HTTPClientRequest``.
public struct HTTPClientResponse: Sendable {
    /// The status.
    public var status: HTTPStatus
    /// Header fields by lower-cased name (at least those the request asked for).
    public var headers: [String: String]
    /// The whole body.
    public var body: [UInt8]

    /// A response.
    public init(status: HTTPStatus, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// An exchange that got no answer.
public struct HTTPClientFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for people.
    public var message: String
    /// Whether another attempt may succeed (a refused or reset connection, a timeout), as
    /// opposed to a failure that will repeat (a bad URL, an untrusted certificate).
    public var isRetryable: Bool

    /// A failure.
    public init(_ message: String, isRetryable: Bool) {
        self.message = message
        self.isRetryable = isRetryable
    }

    public var description: String { message }
}

/// A response body that keeps coming, from ``HTTPClient/openStream(_:)``.
public struct HTTPClientStream: Sendable {
    /// The response's status.
    public var status: HTTPStatus
    /// The body's bytes as they arrive; ends when the server ends the response, throws when
    /// the connection fails.
    public var bytes: AsyncThrowingStream<[UInt8], any Error>
    /// Closes the connection.
    public var cancel: @Sendable () -> Void

    public init(status: HTTPStatus, bytes: AsyncThrowingStream<[UInt8], any Error>, cancel: @escaping @Sendable () -> Void) {
        self.status = status
        self.bytes = bytes
        self.cancel = cancel
    }
}

extension HTTPClient {
    public func openStream(_ request: HTTPClientRequest) async throws(HTTPClientFailure) -> HTTPClientStream {
        throw HTTPClientFailure("this HTTP client cannot stream a response", isRetryable: false)
    }
}
