/// What a request path asks for, as ``StoreService`` routes it. A pure function of the path,
/// tested on its own.
///
/// ```swift
/// RemoteRoute(path: "/v1/stores/alice/knowledge")   // .store("alice", .knowledge)
/// RemoteRoute(path: "/v2/stores/alice")             // .unsupportedVersion("v2")
/// ```
package enum RemoteRoute: Sendable, Equatable {
    /// `/v1`: the protocol version and server, without authentication.
    case root
    /// `/v1/stores`: the stores the token may read.
    case stores
    /// A request about one store (the name is checked later, so a bad one gets a clear `400`).
    case store(String, StoreResource)
    /// A path under another protocol version, such as `/v2/...`.
    case unsupportedVersion(String)
    /// Anything else.
    case notFound

    /// The resources of one store.
    package enum StoreResource: Sendable, Equatable {
        /// `GET /v1/stores/<name>`: replica, format, head.
        case info
        /// `GET /v1/stores/<name>/knowledge`: the version vector of everything it has.
        case knowledge
        /// `GET /v1/stores/<name>/entries/<seq>/hash`.
        case entryHash(String)
        /// `GET` or `POST /v1/stores/<name>/changes`: a page of changes.
        case changes
        /// `GET /v1/stores/<name>/snapshot`: the whole journal as one stream.
        case snapshot
        /// `POST /v1/stores/<name>/state`: the state the store offers a joining replica (see
        /// ``StateOffer``), instead of its history.
        case stateOffer
        /// `GET /v1/stores/<name>/state/<id>?from=&limit=`: a page of that state's versions.
        case statePage(String)
        /// `POST /v1/stores/<name>/push`: apply a batch.
        case push
        /// `PUT /v1/stores/<name>/checkpoints/<replica>`.
        case checkpoint(String)
        /// `GET /v1/stores/<name>/feed`: the change feed, server-sent events (see ``FeedEvent``).
        case feed
    }

    /// Routes a percent-decoded path. A trailing slash is ignored.
    package init(path: String) {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.first == "" { parts.removeFirst() } else {
            self = .notFound
            return
        }
        if parts.count > 1, parts.last == "" { parts.removeLast() }
        guard let version = parts.first else {
            self = .notFound
            return
        }
        guard version == "v\(RemoteProtocol.version)" else {
            let isVersion = version.count > 1 && version.first == "v" && version.dropFirst().allSatisfy(\.isNumber)
            self = isVersion ? .unsupportedVersion(version) : .notFound
            return
        }
        let rest = Array(parts.dropFirst())
        switch rest.count {
        case 0: self = .root
        case 1: self = rest[0] == "stores" ? .stores : .notFound
        default:
            guard rest[0] == "stores" else {
                self = .notFound
                return
            }
            let name = rest[1]
            switch Array(rest.dropFirst(2)) {
            case []: self = .store(name, .info)
            case ["knowledge"]: self = .store(name, .knowledge)
            case ["changes"]: self = .store(name, .changes)
            case ["snapshot"]: self = .store(name, .snapshot)
            case ["push"]: self = .store(name, .push)
            case ["feed"]: self = .store(name, .feed)
            case ["state"]: self = .store(name, .stateOffer)
            case let tail where tail.count == 2 && tail[0] == "state":
                self = .store(name, .statePage(tail[1]))
            case let tail where tail.count == 3 && tail[0] == "entries" && tail[2] == "hash":
                self = .store(name, .entryHash(tail[1]))
            case let tail where tail.count == 2 && tail[0] == "checkpoints":
                self = .store(name, .checkpoint(tail[1]))
            default: self = .notFound
            }
        }
    }
}
