/// Reads a request body as its bytes arrive, on the connection's thread, so the server never
/// holds the whole body: what the consumer keeps (a parsed form) is all the body costs, and a
/// body that goes wrong is answered at its first bad byte, the rest never read.
///
/// A handler asks for one from ``HTTPHandler/admit(_:)`` with ``HTTPAdmission/stream(maximumBodyBytes:consumer:)``;
/// the server makes one per request, feeds it the (de-chunked) body, and hands what
/// ``finish()`` returns to the handler as ``HTTPRequest/decodedBody``.
///
/// ```swift
/// final class LineCounter: HTTPBodyConsumer {
///     var lines = 0
///     var retainedBytes: Int { 0 }
///     func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPBodyRejection) {
///         lines += bytes.filter { $0 == UInt8(ascii: "\n") }.count
///     }
///     func finish() throws(HTTPBodyRejection) -> any Sendable { lines }
/// }
/// ```
package protocol HTTPBodyConsumer: AnyObject {
    /// Reads the next bytes of the body.
    /// - Throws: ``HTTPBodyRejection``: the server answers it at once and closes the connection.
    func consume(_ bytes: UnsafeRawBufferPointer) throws(HTTPBodyRejection)

    /// The body has fully arrived.
    /// - Returns: what the handler receives as ``HTTPRequest/decodedBody``.
    func finish() throws(HTTPBodyRejection) -> any Sendable

    /// Roughly the memory the consumer holds now. The server counts it against its budget of
    /// body bytes in flight, and answers `503` when it grows past what the budget has left.
    var retainedBytes: Int { get }
}

/// A body a consumer refuses: the response to send (the connection is closed after it).
package struct HTTPBodyRejection: Error, Sendable {
    /// The response.
    package var response: HTTPResponse

    /// Refuses with `response`.
    package init(_ response: HTTPResponse) {
        self.response = response
    }
}
