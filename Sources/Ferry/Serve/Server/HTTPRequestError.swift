/// What is wrong with a request the server received: each case names the problem and the
/// status the client is answered with. The server renders it as JSON, `{"error": "…"}`, and
/// closes the connection.
///
/// ```swift
/// HTTPRequestError.headerWithoutColon.status    // 400 Bad Request
/// HTTPRequestError.headerWithoutColon.message   // "header line without a colon"
/// ```
///
/// Messages never quote what the client sent beyond a validated method token, so they are
/// safe to log.
package enum HTTPRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request line is not `METHOD SP target SP HTTP/x.y`.
    case malformedRequestLine
    /// The method contains characters a token may not.
    case invalidMethod
    /// A well-formed method the server does not implement (`501`).
    case methodNotImplemented(HTTPMethod)
    /// The request target is not an absolute path (or `*`, or an absolute URL).
    case invalidTarget
    /// The path or query has a broken `%xx` escape or is not UTF-8.
    case invalidPercentEncoding
    /// The version is well-formed but not 1.0 or 1.1 (`505`); carries it, e.g. `HTTP/2.0`.
    case unsupportedVersion(String)
    /// Request line and headers together exceed the limit, or there are too many fields (`431`).
    case headersTooLarge(limit: Int)
    /// A header line has no colon.
    case headerWithoutColon
    /// A header name is empty, holds a space or a character a token may not.
    case invalidHeaderName
    /// A header value holds a control character such as NUL, CR or LF.
    case invalidHeaderValue
    /// A NUL byte anywhere in the request line or headers.
    case nulByte
    /// A header line starts with whitespace (obsolete line folding, RFC 9112 §5.2).
    case obsoleteLineFolding
    /// An HTTP/1.1 request without a `Host` header, or with several.
    case invalidHost
    /// `Content-Length` is not a decimal number.
    case invalidContentLength
    /// `Content-Length` appears more than once or holds a list.
    case duplicateContentLength
    /// Both `Content-Length` and `Transfer-Encoding` are present.
    case conflictingFraming
    /// A transfer coding other than `chunked` (`501`).
    case unsupportedTransferEncoding
    /// A POST, PUT or PATCH without `Content-Length` or chunked encoding (`411`).
    case lengthRequired
    /// The body is larger than the limit (`413`).
    case bodyTooLarge(limit: Int)
    /// A chunked body whose framing is broken.
    case malformedChunkedBody
    /// The request did not arrive completely in time (`408`).
    case timeout
    /// The client opened a TLS handshake (its first byte is 0x16) with a plain HTTP server.
    case tlsHandshake

    /// The status the client is answered with.
    package var status: HTTPStatus {
        switch self {
        case .methodNotImplemented, .unsupportedTransferEncoding: .notImplemented
        case .unsupportedVersion: .httpVersionNotSupported
        case .headersTooLarge: .requestHeaderFieldsTooLarge
        case .lengthRequired: .lengthRequired
        case .bodyTooLarge: .payloadTooLarge
        case .timeout: .requestTimeout
        default: .badRequest
        }
    }

    /// A one-line message naming the problem.
    package var message: String {
        switch self {
        case .tlsHandshake: "this server speaks plain HTTP: use an http:// URL, or put a TLS proxy in front (docs/DEPLOY.md)"
        case .malformedRequestLine: "malformed request line"
        case .invalidMethod: "invalid method token"
        case .methodNotImplemented(let method): "method \(method) is not implemented"
        case .invalidTarget: "invalid request target"
        case .invalidPercentEncoding: "invalid percent-encoding in request target"
        case .unsupportedVersion(let version): "\(version) is not supported; use HTTP/1.1"
        case .headersTooLarge(let limit): "request line and headers exceed \(limit) bytes"
        case .headerWithoutColon: "header line without a colon"
        case .invalidHeaderName: "invalid header name"
        case .invalidHeaderValue: "invalid character in header value"
        case .nulByte: "NUL byte in request head"
        case .obsoleteLineFolding: "obsolete header line folding is not allowed"
        case .invalidHost: "HTTP/1.1 request needs exactly one Host header"
        case .invalidContentLength: "invalid Content-Length"
        case .duplicateContentLength: "duplicate Content-Length"
        case .conflictingFraming: "both Content-Length and Transfer-Encoding"
        case .unsupportedTransferEncoding: "only Transfer-Encoding: chunked is supported"
        case .lengthRequired: "Content-Length required"
        case .bodyTooLarge(let limit): "request body exceeds \(limit) bytes"
        case .malformedChunkedBody: "malformed chunked body"
        case .timeout: "request not received in time"
        }
    }

    /// The code and the message, such as `400 header line without a colon`.
    package var description: String { "\(status.code) \(message)" }
}
