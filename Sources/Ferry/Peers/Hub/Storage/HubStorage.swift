/// One object of a hub as a listing shows it.
public struct HubObject: Sendable, Hashable {
    /// The key, relative to the hub's root (`heads/<replica>.json`).
    public var key: String
    /// Changes whenever the object's content does (an S3 ETag; size, time and inode of a file).
    public var tag: String
    /// Its size in bytes.
    public var size: Int64

    public init(key: String, tag: String, size: Int64) {
        self.key = key
        self.tag = tag
        self.size = size
    }
}

/// Where a hub's objects are kept: a folder or an S3 prefix. Keys are relative to the hub's
/// root and use `/` between parts. The hub never needs more than these five operations, and
/// never a lock: each replica writes only keys of its own.
public protocol HubStorage: AnyObject, Sendable {
    /// The location as the user wrote it, for messages.
    var location: String { get }
    /// Requests made so far (an S3 request each; a folder counts its operations the same way).
    var requestCount: Int { get }
    /// Every object whose key starts with `prefix`, in key order.
    /// - Throws: ``HubError/missingRoot(location:)`` when the hub's folder or bucket is missing.
    func list(prefix: String) async throws(HubError) -> [HubObject]
    /// The object's bytes and tag, `nil` when there is none.
    ///
    /// An object larger than `limit` bytes is refused before it is read (a folder's file is
    /// measured first; S3 is asked for at most `limit + 1` bytes, with a range): someone who can
    /// write to the hub must not make a reader hold gigabytes.
    /// - Throws: ``HubError/malformed(location:key:reason:)`` for an object over `limit`.
    func get(_ key: String, limit: Int) async throws(HubError) -> (bytes: [UInt8], tag: String)?
    /// Writes an object durably and returns its tag. With `createOnly`, an existing object is
    /// never replaced: the call throws ``HubError/alreadyExists(location:)`` instead.
    func put(_ key: String, _ bytes: [UInt8], createOnly: Bool) async throws(HubError) -> String
    /// Removes an object (no error when it is already gone).
    func delete(_ key: String) async throws(HubError)
    /// The key `key` is stored under: itself, except in an encrypted hub, whose segments and
    /// snapshot parts have opaque names (see ``SealedHubStorage``). A listing shows stored keys.
    func storedKey(for key: String) -> String
    /// What the storage learned that the user should hear (a service without create-only writes).
    var notices: [String] { get }
}

extension HubStorage {
    public var notices: [String] { [] }
    public func storedKey(for key: String) -> String { key }

    /// The refusal of an object of `size` bytes, over the `limit` its kind may be.
    func refusal(of key: String, size: Int64, limit: Int) -> HubError {
        .malformed(
            location: location, key: key,
            reason: "it is \(Self.mebibytes(size)), over the \(Self.mebibytes(Int64(limit))) such an object may be; it was not read")
    }

    private static func mebibytes(_ bytes: Int64) -> String {
        bytes < 1 << 20 ? "\(bytes) bytes" : String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
    }
}
