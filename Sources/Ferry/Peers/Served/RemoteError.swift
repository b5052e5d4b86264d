/// Why the HTTP transport could not talk to a `ferry serve` server. The sync engine reports it
/// as ``SyncError/transport(_:)`` with this description.
///
/// ```swift
/// catch let error as RemoteError { print(error) }   // "http://…/alice refused the token (401): unknown token; …"
/// ```
public enum RemoteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer URL is not `http(s)://host[:port][/prefix]/<store>`.
    case invalidURL(String, reason: String)
    /// No connection could be made, or it kept failing, after every retry.
    case unreachable(String, reason: String, attempts: Int)
    /// `401`: no token, or one the server does not know.
    case unauthorized(String, message: String)
    /// `403`: the token does not open this store, or only for reading.
    case forbidden(String, message: String)
    /// `404` for the store: there is no store of that name (and this token may not create it).
    case noSuchStore(String, message: String)
    /// The server is not a Ferry server, or a proxy answered in its place.
    case notAFerryServer(String, status: Int)
    /// The server speaks other versions of the protocol.
    case protocolMismatch(String, serverVersions: [Int])
    /// The server refused the request (`4xx`) with this message.
    case rejected(String, status: Int, message: String)
    /// The server failed (`5xx`) on every retry.
    case serverError(String, status: Int, message: String)
    /// The server's answer is not what the protocol says.
    case malformedResponse(String, reason: String)
    /// `413`: the server, or a proxy in front of it, refused a request body of `bytes`.
    case requestTooLarge(String, bytes: Int, message: String?)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "\(url) is not a store URL: \(reason) (expected http://HOST:PORT/<store>)"
        case .unreachable(let url, let reason, let attempts):
            return "cannot reach \(url): \(reason) (gave up after \(attempts) attempt\(attempts == 1 ? "" : "s"))"
        case .unauthorized(let url, let message):
            return "\(url) refused the token (401): \(message); pass --token or set FERRY_TOKEN"
        case .forbidden(let url, let message):
            return "\(url) does not allow this (403): \(message)"
        case .noSuchStore(let url, let message):
            return "\(url): \(message) (404)"
        case .notAFerryServer(let url, let status):
            return "\(url) is not a Ferry server, or not one that speaks protocol version \(RemoteProtocol.version) "
                + "(it answered \(status) without a \(RemoteProtocol.versionHeader) header)"
        case .protocolMismatch(let url, let versions):
            let list = versions.map(String.init).joined(separator: ", ")
            return "\(url) speaks Ferry protocol version \(list), but this ferry speaks version \(RemoteProtocol.version); "
                + "upgrade the older of the two"
        case .rejected(let url, let status, let message):
            return "\(url) refused the request (\(status)): \(message)"
        case .serverError(let url, let status, let message):
            return "\(url) failed (\(status)): \(message)"
        case .malformedResponse(let url, let reason):
            return "\(url) sent a malformed answer: \(reason)"
        case .requestTooLarge(let url, let bytes, let message):
            return "\(url): the server or a proxy in front of it refused a request of \(bytes) bytes (413)"
                + (message.map { ": \($0)" } ?? "")
                + "; raise nginx's client_max_body_size or ferry serve --max-body-mb (see docs/DEPLOY.md)"
        }
    }
}
