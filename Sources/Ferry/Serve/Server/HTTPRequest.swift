/// A complete HTTP request, as a handler receives it: the body has fully arrived.
///
/// ```swift
/// func handle(_ request: HTTPRequest) async -> HTTPResponse {
///     guard request.method == .get, request.path == "/v1/status" else { return .error(.notFound, "no such route") }
///     let after = request.query["after"].flatMap(Int.init) ?? 0
///     let token = request.headers["Authorization"]
///     ...
/// }
/// ```
package struct HTTPRequest: Sendable {
    /// The method, one of ``HTTPMethod/supported``.
    package var method: HTTPMethod
    /// The request target exactly as sent, such as `/v1/pull?after=12`.
    package var target: String
    /// The percent-decoded path, such as `/v1/pull`.
    package var path: String
    /// The percent-decoded query parameters; `+` is not decoded as a space, and when a key
    /// repeats the last value wins.
    package var query: [String: String]
    /// `HTTP/1.1` or `HTTP/1.0`.
    package var version: HTTPVersion
    /// The header fields, looked up without regard to case.
    package var headers: HTTPHeaders
    /// The body (de-chunked when it was sent chunked); empty when there was none.
    package var body: [UInt8]
    /// The client's address.
    package var remoteAddress: SocketAddress
    /// What an ``HTTPBodyConsumer`` made of the body, when the handler asked for the body to
    /// be read as it arrives (``HTTPAdmission/stream(maximumBodyBytes:consumer:)``); `nil` otherwise.
    package var decodedBody: (any Sendable)?

    /// Makes a request without a server, for testing handlers.
    /// - Parameters:
    ///   - method: the method.
    ///   - target: an origin-form target such as `/v1/pull?after=12`; path and query are decoded from it.
    ///   - headers: the header fields.
    ///   - body: the body bytes.
    ///   - version: the protocol version.
    ///   - remoteAddress: the client's address.
    /// - Throws: ``HTTPRequestError/invalidTarget`` or ``HTTPRequestError/invalidPercentEncoding``.
    package init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        version: HTTPVersion = .http11, remoteAddress: SocketAddress = SocketAddress(host: "127.0.0.1", port: 0)
    ) throws(HTTPRequestError) {
        let parsed = try HTTPRequestTarget(parsing: target)
        self.method = method
        self.target = target
        self.path = parsed.path
        self.query = parsed.query
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// Assembles a request from a parsed head and its body.
    init(head: HTTPRequestHead, body: [UInt8], remoteAddress: SocketAddress, decodedBody: (any Sendable)? = nil) {
        method = head.method
        target = head.target
        path = head.path
        query = head.query
        version = head.version
        headers = head.headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.decodedBody = decodedBody
    }
}
