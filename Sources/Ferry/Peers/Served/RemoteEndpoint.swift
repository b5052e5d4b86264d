import Foundation

/// Where a remote store is: the server's base URL (with any path prefix a reverse proxy adds)
/// and the store's name, read from a peer URL as users write it.
///
/// ```swift
/// let endpoint = try RemoteEndpoint(parsing: "https://sync.example.org/ferry/alice")
/// endpoint.store            // "alice"
/// endpoint.url(for: "/knowledge")   // https://sync.example.org/ferry/v1/stores/alice/knowledge
/// ```
public struct RemoteEndpoint: Sendable, Hashable {
    /// The URL as given, for messages.
    public let text: String
    /// Scheme, host, port and path prefix, without a trailing slash.
    public let base: String
    /// The store's name: the URL's last path component.
    package let store: StoreName

    /// Reads `http(s)://host[:port][/prefix]/<store>`.
    /// - Throws: ``RemoteError/invalidURL(_:reason:)``.
    public init(parsing text: String) throws(RemoteError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { throw .invalidURL(text, reason: "it must start with http:// or https://") }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL(text, reason: "it has no host") }
        guard components.query == nil, components.fragment == nil else {
            throw .invalidURL(text, reason: "it must not have a query or fragment")
        }
        guard components.user == nil, components.password == nil else {
            throw .invalidURL(text, reason: "put the token in --token or FERRY_TOKEN, not in the URL")
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        guard let slash = path.lastIndex(of: "/") else {
            throw .invalidURL(text, reason: "it names no store (add /<store> after the host)")
        }
        var nameText = String(path[path.index(after: slash)...])
        var prefix = String(path[..<slash])
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let server = "\(scheme)://\(hostPart)\(components.port.map { ":\($0)" } ?? "")"
        // The store's API URL, as curl and docs/PROTOCOL.md write it, names the same store.
        let apiPath = RemoteProtocol.prefix + "/stores"
        if prefix.hasSuffix(apiPath) {
            prefix.removeLast(apiPath.count)
        } else if let api = path.range(of: apiPath + "/") {
            // An endpoint under the store (`…/v1/stores/alice/knowledge`): say which URL to give.
            let rest = path[api.upperBound...]
            nameText = String(rest.prefix { $0 != "/" })
            throw .invalidURL(
                text, reason: "that is an API endpoint, not a store; the store's URL is \(server)\(path[..<api.lowerBound])/\(nameText)")
        }
        do { store = try StoreName(nameText) } catch { throw .invalidURL(text, reason: error.description) }
        base = server + prefix
        self.text = text
    }

    /// The URL of `suffix` under this store's path (`""` for the store itself).
    public func url(for suffix: String) -> URL? {
        URL(string: base + RemoteProtocol.storePath(store) + suffix)
    }
}
