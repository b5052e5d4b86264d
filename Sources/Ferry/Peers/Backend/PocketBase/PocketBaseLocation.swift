import Foundation

/// Where a PocketBase is: `pocketbase+http://127.0.0.1:8090` (or `pocketbase+https://…`, with
/// an optional path prefix when PocketBase sits under one behind a proxy).
///
/// ```swift
/// let location = try PocketBaseLocation(parsing: "pocketbase+http://127.0.0.1:8090")
/// location.baseURL    // http://127.0.0.1:8090
/// ```
public struct PocketBaseLocation: Sendable, Hashable, CustomStringConvertible {
    /// The scheme prefix that names a PocketBase.
    public static let schemePrefix = "pocketbase+"

    /// The server's base URL, without a trailing slash.
    public var baseURL: String

    /// Parses `pocketbase+http(s)://host[:port][/prefix]`.
    /// - Throws: ``BackendError`` of kind `.setup` naming what is wrong.
    public init(parsing text: String) throws(BackendError) {
        guard text.lowercased().hasPrefix(Self.schemePrefix) else {
            throw BackendError(.setup, "\(text): a PocketBase location starts with pocketbase+http:// or pocketbase+https://")
        }
        var rest = String(text.dropFirst(Self.schemePrefix.count))
        while rest.hasSuffix("/") { rest.removeLast() }
        guard let components = URLComponents(string: rest), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else {
            throw BackendError(.setup, "\(text): not a PocketBase location (pocketbase+http://host:port)")
        }
        guard components.query == nil, components.fragment == nil, components.user == nil else {
            throw BackendError(.setup, "\(text): a PocketBase location has no query, fragment or user (credentials come from the environment)")
        }
        baseURL = rest
    }

    /// Whether `text` names a PocketBase (`pocketbase+…`).
    public static func names(_ text: String) -> Bool {
        text.lowercased().hasPrefix(schemePrefix)
    }

    /// The URL of an API path such as `/api/collections`, with its query.
    func url(_ path: String, query: [(String, String)] = []) -> URL? {
        var text = baseURL + path
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        }
        return URL(string: text)
    }

    /// Percent-encodes everything but the unreserved characters of RFC 3986.
    static func escape(_ text: String) -> String { PercentEncoding.encode(text) }

    public var description: String { Self.schemePrefix + baseURL }
}
