/// Where a sync peer is, as a user names it on the command line: a store folder, a hub folder,
/// an `s3://` hub, a `ferry serve` URL or an app backend. Every peer argument is read by one
/// rule, ``parse(_:token:resolvingFolder:)``, so the same text never means a URL to one command
/// and a folder to another.
///
/// ```swift
/// try PeerAddress.parse("/media/usb/data")                     // .store("/media/usb/data")
/// try PeerAddress.parse("http://127.0.0.1:8080/alice")         // .served(…)
/// try PeerAddress.parse("s3://team-bucket/notes")              // .s3Hub(…)
/// try PeerAddress.parse("pocketbase+http://127.0.0.1:8090")    // .backend(…)
/// ```
public enum PeerAddress: Sendable, Hashable, CustomStringConvertible {
    /// Another store's folder.
    case store(String)
    /// A store hosted by `ferry serve`: its URL and the bearer token, if any.
    case served(url: String, token: String?)
    /// A hub kept in a folder (one that holds `hub.json`): a cloud-drive folder, a share.
    case hubFolder(String)
    /// A hub under an S3 prefix.
    case s3Hub(S3Location)
    /// An app backend: a PocketBase.
    case backend(PocketBaseLocation)

    /// Reads a peer argument by one rule: text that starts with a scheme (`name://`, any case)
    /// is a URL, and only `http`, `https`, `s3`, `pocketbase+http` and `pocketbase+https` are
    /// supported; anything else is a folder, made absolute with `resolvingFolder` (so
    /// `http-backup` is a folder, `HTTP://h/a` a URL). A folder that holds a hub's `hub.json`
    /// and no store manifest is a hub; any other folder is a store.
    /// - Parameters:
    ///   - text: the argument as given.
    ///   - token: the bearer token for a `ferry serve` URL.
    ///   - resolvingFolder: makes a folder's path absolute (the command line's working directory).
    /// - Throws: ``SyncError/transport(_:)`` for a scheme Ferry cannot sync with or a location
    ///   that is not well formed, naming what is wrong.
    public static func parse(
        _ text: String, token: String? = nil, resolvingFolder: (String) -> String = { $0 }
    ) throws(SyncError) -> PeerAddress {
        if let scheme = scheme(of: text) {
            switch scheme {
            case "http", "https":
                return .served(url: scheme + text[text.index(text.startIndex, offsetBy: scheme.count)...], token: token)
            case "s3":
                // Credentials in the URL would show in `ps`, shell history and any message that
                // names the location: refused, and the text never repeated.
                let authority = text.dropFirst(scheme.count + 3).prefix { $0 != "/" }
                if authority.contains("@") {
                    throw .transport(
                        "an s3:// location may not hold credentials (they are not shown here); set AWS_ACCESS_KEY_ID and "
                            + "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) in the environment instead")
                }
                do { return .s3Hub(try S3Location(parsing: text)) } catch { throw .hub(error) }
            case "pocketbase+http", "pocketbase+https":
                do { return .backend(try PocketBaseLocation(parsing: text)) } catch { throw .transport(error.message) }
            default:
                throw .transport(
                    "\(text): ferry syncs with store folders, hub folders, s3:// hubs, http(s):// servers and "
                        + "pocketbase+http(s):// backends, not \(scheme):// locations")
            }
        }
        let path = resolvingFolder(text)
        // A hub folder is told apart by what it holds: its descriptor, and no store manifest.
        let layout = StoreLayout(root: path)
        if FileSystem.isRegularFile(path + "/" + HubDescriptor.key) && !FileSystem.isRegularFile(layout.manifest) {
            return .hubFolder(path)
        }
        return .store(path)
    }

    /// The lower-cased scheme of `text` when it starts with one (`name://`, the name a letter
    /// then letters, digits, `+`, `-` or `.`); `nil` for a path.
    package static func scheme(of text: String) -> String? {
        guard let range = text.range(of: "://") else { return nil }
        let scheme = text[..<range.lowerBound]
        let isScheme = scheme.first?.isLetter == true
            && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
        return isScheme ? scheme.lowercased() : nil
    }

    /// Whether this peer is reached over the network, so that syncing with it needs an
    /// ``HTTPClient`` (the `ferry` executable hands such a command to `ferry-remote`).
    public var needsHTTPClient: Bool {
        switch self {
        case .store, .hubFolder: false
        case .served, .s3Hub, .backend: true
        }
    }

    /// Whether this peer is a hub (a folder or an S3 prefix that replicas share with no server).
    public var isHub: Bool {
        switch self {
        case .hubFolder, .s3Hub: true
        case .store, .served, .backend: false
        }
    }

    public var description: String {
        switch self {
        case .store(let path): path
        case .served(let url, _): url
        case .hubFolder(let path): path
        case .s3Hub(let location): location.description
        case .backend(let location): location.description
        }
    }
}
