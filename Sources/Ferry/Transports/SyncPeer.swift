/// Where a sync peer is, as a user names it: a store folder or (with the HTTP transport) a URL.
///
/// ```swift
/// let peer = try SyncPeer(parsing: "/media/usb/data")          // .folder
/// let peer = try SyncPeer(parsing: "http://127.0.0.1:8080/alice") // .remote
/// ```
public enum SyncPeer: Sendable, Hashable, CustomStringConvertible {
    /// Another store directory.
    case folder(String)
    /// A store hosted by `ferry serve`: the server's base URL and the store's name.
    case remote(url: String, token: String?)

    /// Reads a peer argument: `http://` or `https://` URLs are remote, anything else a folder.
    public init(parsing text: String, token: String? = nil) {
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            self = .remote(url: text, token: token)
        } else {
            self = .folder(text)
        }
    }

    public var description: String {
        switch self {
        case .folder(let path): return path
        case .remote(let url, _): return url
        }
    }
}
