/// The name of one peer's folder under `.ferry/peers/`: one rule for every kind of peer, and
/// always a safe single path component.
///
/// - a store (a folder, a served store, or a hub, which the sync engine knows by its hub id):
///   its replica id, `5b2c…-…` (a lowercase UUID);
/// - a hub's cache: `hub-` and the first 24 hex digits of the SHA-256 of the hub's location
///   (the cache is read before the hub's descriptor says its id);
/// - an app backend: `backend-` and the first 16 hex digits of the SHA-256 of its location.
///
/// The digest lengths are the ones stores have always used (`.ferry/hubs/<24>.json`,
/// `.ferry/backends/<16>/`), so moving a store to this layout is a rename (see
/// ``PeerMemoryMigration``).
///
/// ```swift
/// let id = PeerMemoryID.hub(location: "s3://bucket/team")  // hub-3f9a…
/// let cache = store.layout.peerMemory(for: id).hubCache
/// ```
struct PeerMemoryID: Sendable, Hashable, CustomStringConvertible {
    /// The folder's name.
    let rawValue: String

    /// Accepts `text` when it is a safe folder name: 1 to 64 of `a-z`, `0-9` and `-`, not
    /// starting with `-` (so never `.`, `..`, a hidden or temporary file, or a path).
    init?(rawValue text: String) {
        guard (1...64).contains(text.utf8.count), text.utf8.first != UInt8(ascii: "-"),
            text.utf8.allSatisfy({ $0.isASCIIDigit || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || $0 == UInt8(ascii: "-") })
        else { return nil }
        rawValue = text
    }

    /// A store peer, by its replica id.
    static func replica(_ replica: ReplicaID) -> PeerMemoryID { PeerMemoryID(checked: replica.rawValue) }

    /// A hub, by its location (`s3://bucket/prefix`, `/mnt/drive/hub`).
    static func hub(location: String) -> PeerMemoryID { PeerMemoryID(checked: hubPrefix + digest(location, digits: 24)) }

    /// An app backend, by its location (`pocketbase+http://host:8090`).
    static func backend(location: String) -> PeerMemoryID {
        PeerMemoryID(checked: backendPrefix + digest(location, digits: 16))
    }

    static let hubPrefix = "hub-"
    static let backendPrefix = "backend-"

    /// The replica id this folder stands for, when it is a store peer's.
    var replica: ReplicaID? { ReplicaID(rawValue) }

    var description: String { rawValue }

    /// For names built here from a UUID or hex digits, which are always valid.
    private init(checked text: String) { rawValue = text }

    private static func digest(_ location: String, digits: Int) -> String {
        String(SHA256.hash(Array(location.utf8)).hex.prefix(digits))
    }
}
