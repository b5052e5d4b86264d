/// Constants of Ferry's sync protocol over HTTP, version 1 (see `docs/PROTOCOL.md`).
///
/// ```swift
/// var request = URLRequest(url: base.appendingPathComponent(RemoteProtocol.storePath("alice")))
/// request.setValue(String(RemoteProtocol.version), forHTTPHeaderField: RemoteProtocol.versionHeader)
/// ```
public enum RemoteProtocol {
    /// The protocol version this build speaks; every path starts with `/v1/`.
    public static let version = 1
    /// The path prefix of this version.
    public static let prefix = "/v1"
    /// The header every server response carries, holding ``version``.
    public static let versionHeader = "Ferry-Protocol"
    /// The media type of single JSON documents.
    public static let jsonType = "application/json"
    /// The media type of change streams: one JSON object per line.
    public static let changeStreamType = "application/x-ndjson"
    /// The most changes one push may carry.
    public static let maximumPushChanges = 100_000
    /// The most changes one `changes` page returns; the client asks for fewer.
    public static let maximumPageSize = 100_000
    /// The most bytes of changes one `changes` page carries (after the change that crosses it).
    public static let maximumPageBytes = 16 << 20
    /// The most bytes of changes the client puts in one push request (one larger change goes alone).
    public static let pushRequestBytes = 8 << 20

    /// `/v1/stores/<name>`.
    public static func storePath(_ name: StoreName) -> String { "\(prefix)/stores/\(name.rawValue)" }
}
