/// The head of an HTTP/1.1 response as a client reads it: the status line and header fields,
/// and from them how the body is delimited.
///
/// ```swift
/// let bytes = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
/// if let end = HTTPResponseHead.end(in: bytes[...]) {
///     let head = try HTTPResponseHead(parsing: bytes[..<end])   // 200, .chunked
/// }
/// ```
struct HTTPResponseHead: Sendable {
    /// How the body after the head is delimited.
    enum BodyFraming: Sendable, Equatable {
        /// `Transfer-Encoding: chunked` (``ChunkedBodyDecoder``).
        case chunked
        /// `Content-Length`.
        case length(Int)
        /// Neither: the body ends when the server closes the connection.
        case untilClose
    }

    /// The status.
    var status: HTTPStatus
    /// The header fields, in order.
    var headers: HTTPHeaders
    /// How the body is delimited.
    var framing: BodyFraming

    /// The longest head a client reads before giving up on the response.
    static let maximumBytes = 64 << 10

    /// Where the head in `bytes` ends: the index just past the empty line (CRLF CRLF, or bare
    /// LFs), or `nil` when it has not all arrived.
    static func end(in bytes: ArraySlice<UInt8>) -> Int? {
        var index = bytes.startIndex
        while let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
            let next = newline + 1
            if next < bytes.endIndex, bytes[next] == UInt8(ascii: "\n") { return next + 1 }
            if next + 1 < bytes.endIndex, bytes[next] == UInt8(ascii: "\r"), bytes[next + 1] == UInt8(ascii: "\n") { return next + 2 }
            index = next
        }
        return nil
    }

    /// Parses a head: `HTTP/1.x NNN reason`, then `Name: value` lines, up to the empty line.
    /// - Throws: ``HTTPClientFailure`` when the status line or a field is not HTTP's.
    init(parsing bytes: ArraySlice<UInt8>) throws(HTTPClientFailure) {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let statusLine = lines.first.map({ String(decoding: $0, as: UTF8.self) }) else { throw Self.malformed("no status line") }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].count == 3, let code = Int(parts[1]) else {
            throw Self.malformed("a status line that is not one (\(statusLine.prefix(60)))")
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                throw Self.malformed("a header line without a name and colon")
            }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            headers.add(name, String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces())
        }
        status = HTTPStatus(code: code, reason: parts.count > 2 ? String(parts[2]) : nil)
        self.headers = headers
        let codings = headers.values(for: "Transfer-Encoding").flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces().lowercased() }
        if codings.last == "chunked" {
            framing = .chunked
        } else if let text = headers["Content-Length"] {
            guard let length = Int(text), length >= 0 else { throw Self.malformed("a Content-Length that is not a number (\(text.prefix(30)))") }
            framing = .length(length)
        } else {
            framing = .untilClose
        }
        if status.code == 204 || status.code == 304 { framing = .length(0) }
    }

    private static func malformed(_ problem: String) -> HTTPClientFailure {
        HTTPClientFailure("a malformed HTTP response: \(problem)", isRetryable: false)
    }
}
