/// Where a sync peer is, as a user names it: a store folder, a hub folder, an `s3://` hub or a
/// `ferry serve` URL. Parsed once, by ``classify(_:token:resolvingFolder:)``.
///
/// ```swift
/// let peer = try SyncPeer.classify("/media/usb/data")               // .folder
/// let peer = try SyncPeer.classify("http://127.0.0.1:8080/alice")   // .remote
/// let peer = try SyncPeer.classify("s3://team-bucket/notes")        // .s3
/// ```
public enum SyncPeer: Sendable, Hashable, CustomStringConvertible {
    /// Another store directory.
    case folder(String)
    /// A store hosted by `ferry serve`: the server's base URL and the store's name.
    case remote(url: String, token: String?)
    /// A hub kept in a folder (one that holds `hub.json`): a cloud-drive folder, a share.
    case hubFolder(String)
    /// A hub under an S3 prefix.
    case s3(S3Location)

    /// Reads a peer argument: `http://` or `https://` URLs are remote, anything else a folder.
    public init(parsing text: String, token: String? = nil) {
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            self = .remote(url: text, token: token)
        } else {
            self = .folder(text)
        }
    }

    /// Reads a peer argument by one rule: text that starts with a scheme (`name://`, any case)
    /// is a URL, and only `http` and `https` are supported; anything else is a store folder,
    /// made absolute with `resolvingFolder` (so `http-backup` is a folder, `HTTP://h/a` a URL).
    /// - Throws: ``SyncError/transport(_:)`` for a scheme ferry cannot sync with.
    public static func classify(
        _ text: String, token: String? = nil, resolvingFolder: (String) -> String = { $0 }
    ) throws(SyncError) -> SyncPeer {
        if let range = text.range(of: "://") {
            let scheme = text[..<range.lowerBound]
            let isScheme = scheme.first?.isLetter == true
                && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
            if isScheme {
                switch scheme.lowercased() {
                case "http", "https":
                    return .remote(url: scheme.lowercased() + text[range.lowerBound...], token: token)
                case "s3":
                    do { return .s3(try S3Location(parsing: text)) } catch { throw .hub(error) }
                default:
                    throw .transport(
                        "\(text): ferry sync reaches store folders, hub folders, s3:// hubs and http(s):// servers, "
                            + "not \(scheme.lowercased()):// locations")
                }
            }
        }
        let path = resolvingFolder(text)
        // A hub folder is told apart by what it holds: its descriptor, and no store manifest.
        let layout = StoreLayout(root: path)
        if FileSystem.isRegularFile(path + "/" + HubDescriptor.key) && !FileSystem.isRegularFile(layout.manifest) {
            return .hubFolder(path)
        }
        return .folder(path)
    }

    public var description: String {
        switch self {
        case .folder(let path): return path
        case .remote(let url, _): return url
        case .hubFolder(let path): return path
        case .s3(let location): return location.description
        }
    }
}
