/// Turns responses into bytes on the wire: the status line and fields, and chunk framing.
/// Pure: the connection decides framing and sends the bytes.
///
/// ```swift
/// let head = HTTPResponseEncoder.head(status: .ok, headers: ["Content-Type": "text/plain"],
///                                     framing: .length(5), closing: false, version: .http11)
/// ```
enum HTTPResponseEncoder {
    /// How the end of the body is marked.
    enum Framing: Equatable {
        /// `Content-Length: n`.
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Neither: the body ends when the connection closes (streams to HTTP/1.0 clients).
        case untilClose
        /// No body and no length field (1xx, 204, 304).
        case none
    }

    /// Header fields the server sets itself; a handler's are dropped.
    private static let serverOwnedFields: Set<String> = ["content-length", "transfer-encoding", "connection"]

    static let continueHead = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    static let lastChunk = Array("0\r\n\r\n".utf8)
    static let chunkEnd = Array("\r\n".utf8)

    /// The status line and header fields, through the empty line.
    /// - Parameters:
    ///   - closing: whether the server closes the connection after this response.
    ///   - version: the request's version; an HTTP/1.0 client that keeps the connection is told so.
    static func head(
        status: HTTPStatus, headers: HTTPHeaders, framing: Framing, closing: Bool, version: HTTPVersion
    ) -> [UInt8] {
        var text = "HTTP/1.1 \(status.code) \(sanitized(status.reason))\r\n"
        for field in headers where isSafe(field) && !serverOwnedFields.contains(field.name.lowercased()) {
            text += field.name + ": " + field.value + "\r\n"
        }
        switch framing {
        case .length(let length): text += "Content-Length: \(length)\r\n"
        case .chunked: text += "Transfer-Encoding: chunked\r\n"
        case .untilClose, .none: break
        }
        if closing {
            text += "Connection: close\r\n"
        } else if version == .http10 {
            text += "Connection: keep-alive\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// The size line that starts a chunk of `count` bytes.
    static func chunkHead(_ count: Int) -> [UInt8] {
        Array((String(count, radix: 16) + "\r\n").utf8)
    }

    /// Whether a field can be written without breaking the head: a token name and a value
    /// without control characters other than tab.
    private static func isSafe(_ field: HTTPHeaders.Field) -> Bool {
        !field.name.isEmpty && field.name.utf8.allSatisfy(HTTPRequestHeadParser.isTokenByte)
            && field.value.utf8.allSatisfy { ($0 >= 0x20 && $0 != 0x7F) || $0 == UInt8(ascii: "\t") }
    }

    private static func sanitized(_ reason: String) -> String {
        String(reason.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F })
    }
}
