/// Why the server could not start, or why writing a streamed body failed.
///
/// ```swift
/// do { let port = try server.start() } catch { print("error: \(error)") }  // "error: cannot listen on 127.0.0.1:8080: Address already in use"
/// ```
package enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The listening socket could not be set up (address in use, bad host, no permission).
    case cannotListen(host: String, port: Int, SystemError)
    /// ``HTTPServer/start()`` was called on a server that is running or has stopped.
    case alreadyStarted
    /// The client went away, or stopped reading, while a streamed body was being written.
    case connectionClosed

    /// A one-line message, such as `cannot listen on 127.0.0.1:8080: Address already in use`.
    package var description: String {
        switch self {
        case .cannotListen(let host, let port, let error):
            "cannot listen on \(SocketAddress(host: host, port: port)): \(error.message)"
        case .alreadyStarted: "the server was already started"
        case .connectionClosed: "the client connection closed"
        }
    }
}
