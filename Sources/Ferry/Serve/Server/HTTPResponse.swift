/// A response a handler returns: a status, header fields and a body that is either all in
/// memory or produced piece by piece.
///
/// ```swift
/// HTTPResponse(status: .created, headers: ["Content-Type": "application/json"], body: json)
/// HTTPResponse.error(.conflict, "record 42 changed since revision 7")
/// HTTPResponse(headers: ["Content-Type": "application/x-ndjson"]) { writer in
///     for batch in journal.batches(after: cursor) { try await writer.write(batch) }
/// }
/// ```
///
/// The server owns the framing: it sets `Content-Length` for a byte body and
/// `Transfer-Encoding: chunked` for a streamed one (HTTP/1.0 clients get the stream
/// unframed, ended by closing the connection), and sets `Connection`. Fields of those names
/// from the handler, and fields whose name or value would break the head (CR, LF, NUL), are
/// dropped. The handler sets `Content-Type`.
package struct HTTPResponse: Sendable {
    /// The body of a response.
    package enum Body: Sendable {
        /// Bytes sent with a `Content-Length`.
        case bytes([UInt8])
        /// Bytes produced after the head is sent, each write sent as one chunk. When the
        /// closure throws, the response is cut short (the client sees an incomplete body) and
        /// the connection is closed. It is not called for `HEAD` requests.
        case stream(@Sendable (HTTPBodyWriter) async throws -> Void)
        /// The connection itself, after the head (sent with no length, `Connection: close`):
        /// the closure takes the socket, and with it the duty to close it. The connection's
        /// thread ends and its slot is freed, so a long-lived response (a change feed) costs
        /// no thread. A `HEAD` request gets the head alone; the closure is not called.
        case handOff(@Sendable (Socket) -> Void)
    }

    /// The status.
    package var status: HTTPStatus
    /// The header fields set by the handler.
    package var headers: HTTPHeaders
    /// The body.
    package var body: Body

    /// Makes a response whose body is in memory.
    /// - Parameters:
    ///   - status: the status, `200 OK` by default.
    ///   - headers: header fields such as `Content-Type`.
    ///   - body: the body bytes, empty by default.
    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = .bytes(body)
    }

    /// Makes a response whose body is streamed with chunked transfer encoding.
    /// - Parameters:
    ///   - status: the status, `200 OK` by default.
    ///   - headers: header fields such as `Content-Type`.
    ///   - stream: writes the body through the writer; it may throw to cut the response short.
    package init(
        status: HTTPStatus = .ok, headers: HTTPHeaders = [:],
        stream: @escaping @Sendable (HTTPBodyWriter) async throws -> Void
    ) {
        self.status = status
        self.headers = headers
        self.body = .stream(stream)
    }

    /// Makes a response whose connection is handed to `takeOver` once the head is sent (see
    /// ``Body/handOff(_:)``).
    package init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], handOff takeOver: @escaping @Sendable (Socket) -> Void) {
        self.status = status
        self.headers = headers
        self.body = .handOff(takeOver)
    }

    /// A JSON error response, `{"error": "message"}`, as the server itself sends for
    /// malformed requests.
    /// - Parameters:
    ///   - status: the status, such as ``HTTPStatus/notFound``.
    ///   - message: a one-line message naming the problem; keep user data out of it.
    package static func error(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "application/json"],
            body: Array("{\"error\":\(jsonString(message))}\n".utf8))
    }

    /// `text` as a JSON string literal, quoted and escaped.
    static func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
