/// An HTTP request method, such as `GET`. Methods are case-sensitive tokens.
///
/// ```swift
/// switch request.method {
/// case .get: ...
/// case .post: ...
/// default: return HTTPResponse(status: .methodNotAllowed)
/// }
/// ```
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method token as sent, such as `GET`.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    public static let get: HTTPMethod = "GET"
    public static let head: HTTPMethod = "HEAD"
    public static let post: HTTPMethod = "POST"
    public static let put: HTTPMethod = "PUT"
    public static let patch: HTTPMethod = "PATCH"
    public static let delete: HTTPMethod = "DELETE"
    public static let options: HTTPMethod = "OPTIONS"

    /// The methods the server passes to a handler; any other well-formed token is answered
    /// `501 Not Implemented` before the handler is called.
    public static let supported: Set<HTTPMethod> = [.get, .head, .post, .put, .patch, .delete, .options]

    /// Whether a request with this method must say how long its body is (`411` otherwise).
    var requiresBodyLength: Bool { self == .post || self == .put || self == .patch }
}
