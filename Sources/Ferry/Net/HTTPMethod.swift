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

    /// Makes a method from its token; the server has already checked it is one.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Makes a method from a literal, such as `"GET"`.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The token.
    public var description: String { rawValue }

    /// `GET`.
    public static let get: HTTPMethod = "GET"
    /// `HEAD`.
    public static let head: HTTPMethod = "HEAD"
    /// `POST`.
    public static let post: HTTPMethod = "POST"
    /// `PUT`.
    public static let put: HTTPMethod = "PUT"
    /// `PATCH`.
    public static let patch: HTTPMethod = "PATCH"
    /// `DELETE`.
    public static let delete: HTTPMethod = "DELETE"
    /// `OPTIONS`.
    public static let options: HTTPMethod = "OPTIONS"

    /// The methods the server passes to a handler; any other well-formed token is answered
    /// `501 Not Implemented` before the handler is called.
    public static let supported: Set<HTTPMethod> = [.get, .head, .post, .put, .patch, .delete, .options]

    /// Whether a request with this method must say how long its body is (`411` otherwise).
    var requiresBodyLength: Bool { self == .post || self == .put || self == .patch }
}
