/// Writes the body of a streamed response, one chunk per call, so a large body never sits
/// whole in memory. Each write returns once its bytes were handed to the connection, which
/// paces a fast producer to a slow client.
///
/// ```swift
/// HTTPResponse(headers: ["Content-Type": "application/x-ndjson"]) { writer in
///     for line in lines { try await writer.write(Array((line + "\n").utf8)) }
/// }
/// ```
package struct HTTPBodyWriter: Sendable {
    private let exchange: HTTPExchange

    init(exchange: HTTPExchange) {
        self.exchange = exchange
    }

    /// Sends `bytes` as one chunk; an empty array sends nothing.
    /// - Throws: ``HTTPServerError/connectionClosed`` when the client is gone, stopped
    ///   reading for longer than the write timeout, or the server was forced to stop.
    package func write(_ bytes: [UInt8]) async throws(HTTPServerError) {
        if bytes.isEmpty { return }
        guard await exchange.write(bytes) else { throw .connectionClosed }
    }

    /// Sends the UTF-8 bytes of `text` as one chunk.
    package func write(_ text: String) async throws(HTTPServerError) {
        try await write(Array(text.utf8))
    }
}
