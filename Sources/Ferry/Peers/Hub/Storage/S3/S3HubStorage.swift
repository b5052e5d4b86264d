import Foundation

/// A hub under an S3 prefix. Every key of the hub is `<prefix>/<key>`; new objects are written
/// create-only (`If-None-Match: *`), so a replayed write or a replica id collision never
/// replaces anything. A service without conditional writes is noted once, and the hub relies
/// on its keys instead (segments are named by their content's hash, heads by their replica).
public final class S3HubStorage: HubStorage, @unchecked Sendable {
    public let s3Location: S3Location
    public let client: S3Client
    private let state = S3HubStorageState()

    public init(location: S3Location, client: S3Client) {
        self.s3Location = location
        self.client = client
    }

    public var location: String { s3Location.description }
    public var requestCount: Int { client.requestCount }
    public var notices: [String] { state.notices }

    private func fullKey(_ key: String) -> String { s3Location.key(key) }

    public func list(prefix: String) async throws(HubError) -> [HubObject] {
        let base = s3Location.prefix.isEmpty ? "" : s3Location.prefix + "/"
        let listed = try await client.listObjects(bucket: s3Location.bucket, prefix: base + prefix)
        return listed.compactMap { object in
            guard object.key.hasPrefix(base) else { return nil }
            return HubObject(key: String(object.key.dropFirst(base.count)), tag: object.etag, size: object.size)
        }
    }

    public func get(_ key: String, limit: Int) async throws(HubError) -> (bytes: [UInt8], tag: String)? {
        guard let object = try await client.getObject(bucket: s3Location.bucket, key: fullKey(key), limit: limit) else { return nil }
        guard object.size <= Int64(limit) else { throw refusal(of: key, size: object.size, limit: limit) }
        return (object.bytes, object.etag)
    }

    public func put(_ key: String, _ bytes: [UInt8], createOnly: Bool) async throws(HubError) -> String {
        let full = fullKey(key)
        guard createOnly else { return try await client.putObject(bucket: s3Location.bucket, key: full, bytes: bytes) }
        if state.conditionalWrites {
            switch try await client.putObjectIfAbsent(bucket: s3Location.bucket, key: full, bytes: bytes) {
            case .created(let etag): return etag
            case .exists: throw .alreadyExists(location: "\(location)/\(key)")
            case .unsupported:
                state.noteUnsupported(
                    "\(location): this S3 service does not support create-only writes (If-None-Match: *); the hub relies on "
                        + "its keys being unique instead (segments are named by their hash)")
            }
        }
        if try await client.headObject(bucket: s3Location.bucket, key: full) != nil { throw .alreadyExists(location: "\(location)/\(key)") }
        return try await client.putObject(bucket: s3Location.bucket, key: full, bytes: bytes)
    }

    public func delete(_ key: String) async throws(HubError) {
        try await client.deleteObject(bucket: s3Location.bucket, key: fullKey(key))
    }
}

/// What an ``S3HubStorage`` learned about its service.
final class S3HubStorageState: @unchecked Sendable {
    private let lock = NSLock()
    private var supported = true
    private var noted: [String] = []

    var conditionalWrites: Bool { lock.withLock { supported } }
    var notices: [String] { lock.withLock { noted } }

    func noteUnsupported(_ notice: String) {
        lock.withLock {
            supported = false
            noted.append(notice)
        }
    }
}
