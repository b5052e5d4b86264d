/// Constants of Ferry's sync protocol over HTTP, version 1 (see `docs/PROTOCOL.md`).
///
/// ```swift
/// var request = URLRequest(url: base.appendingPathComponent(RemoteProtocol.storePath("alice")))
/// request.setValue(String(RemoteProtocol.version), forHTTPHeaderField: RemoteProtocol.versionHeader)
/// ```
package enum RemoteProtocol {
    /// The protocol version this build speaks; every path starts with `/v1/`.
    package static let version = 1
    /// The path prefix of this version.
    package static let prefix = "/v1"
    /// The header every server response carries, holding ``version``.
    package static let versionHeader = "Ferry-Protocol"
    /// The media type of single JSON documents.
    package static let jsonType = "application/json"
    /// The media type of change streams: one JSON object per line.
    package static let changeStreamType = "application/x-ndjson"
    /// The most changes one push may carry.
    package static let maximumPushChanges = 100_000
    /// The most changes one `changes` page returns; the client asks for fewer.
    package static let maximumPageSize = 100_000
    /// The most bytes of changes one `changes` page carries (after the change that crosses it).
    package static let maximumPageBytes = 16 << 20
    /// The most bytes of changes the client puts in one push request (one larger change goes alone).
    package static let pushRequestBytes = 8 << 20

    /// `/v1/stores/<name>`.
    package static func storePath(_ name: StoreName) -> String { "\(prefix)/stores/\(name.rawValue)" }
}
