/// The request line and headers of a request, validated, before its body arrives: what the
/// parser hands the connection so it can answer `100 Continue` or check limits.
struct HTTPRequestHead: Sendable, Hashable {
    /// How the length of the body is known.
    enum BodyFraming: Sendable, Hashable {
        /// No body.
        case none
        /// `Content-Length: n`.
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
    }

    var method: HTTPMethod
    /// The request target exactly as sent.
    var target: String
    var path: String
    var query: [String: String]
    var version: HTTPVersion
    var headers: HTTPHeaders
    var framing: BodyFraming
    /// Whether the client wants the connection kept open after the response.
    var keepAlive: Bool
    /// Whether the client sent `Expect: 100-continue` and waits before sending the body.
    var expectsContinue: Bool
}
