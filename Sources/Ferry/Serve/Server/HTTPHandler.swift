/// Answers requests: the one thing the server asks of the code built on it.
///
/// The server calls ``handle(_:)`` once per request, from a task, possibly for many
/// connections at once; requests on one connection are handled one after another, in order.
///
/// ```swift
/// struct Hello: HTTPHandler {
///     func handle(_ request: HTTPRequest) async -> HTTPResponse {
///         guard request.path == "/hello" else { return .error(.notFound, "no such route") }
///         guard request.method == .get else { return .error(.methodNotAllowed, "use GET") }
///         return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain"], body: Array("hello\n".utf8))
///     }
/// }
/// ```
///
/// The server answers malformed requests itself (see ``HTTPRequestError``); a handler sees
/// only well-formed requests with one of the ``HTTPMethod/supported`` methods, whose body has
/// fully arrived and is within the configured limit. Routing, `405` and authentication are the
/// handler's business.
package protocol HTTPHandler: Sendable {
    /// Decides from a request's head, before its body is read, whether to read it and how much
    /// of it: a request that may not be made is answered at once, and its body never read.
    /// Called only for requests that have a body; `head` is the request without its body. The
    /// default accepts any body the server takes.
    func admit(_ head: HTTPRequest) -> HTTPAdmission

    /// Answers one request.
    /// - Parameter request: the request, body included.
    /// - Returns: the response; a streamed body is produced after the head is sent.
    func handle(_ request: HTTPRequest) async -> HTTPResponse
}

/// A handler made from a closure, for small servers and tests.
///
/// ```swift
/// let server = HTTPServer(handler: HTTPClosureHandler { request in HTTPResponse(body: request.body) })
/// ```
package struct HTTPClosureHandler: HTTPHandler {
    private let body: @Sendable (HTTPRequest) async -> HTTPResponse

    /// Wraps `body`, which answers each request.
    package init(_ body: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        self.body = body
    }

    /// Calls the closure.
    package func handle(_ request: HTTPRequest) async -> HTTPResponse {
        await body(request)
    }
}

/// What a handler decides from a request's head, before its body is read.
package enum HTTPAdmission: Sendable {
    /// Read the body, up to this many bytes (`413` beyond, answered at once).
    case accept(maximumBodyBytes: Int)
    /// Read the body, up to this many bytes, into a consumer made for this request, as it
    /// arrives; the handler receives what the consumer makes of it as ``HTTPRequest/decodedBody``
    /// (and an empty ``HTTPRequest/body``).
    case stream(maximumBodyBytes: Int, consumer: @Sendable () -> any HTTPBodyConsumer)
    /// Answer this without reading the body, and close the connection.
    case reject(HTTPResponse)
}

extension HTTPHandler {
    /// Accepts every body up to the server's limit.
    package func admit(_ head: HTTPRequest) -> HTTPAdmission {
        .accept(maximumBodyBytes: .max)
    }
}
