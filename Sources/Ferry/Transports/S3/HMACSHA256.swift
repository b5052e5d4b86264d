/// HMAC-SHA-256 (RFC 2104), checked against RFC 4231's test cases.
///
/// ```swift
/// let tag = HMACSHA256.authenticate(Array("message".utf8), key: Array("key".utf8))
/// ```
public enum HMACSHA256 {
    private static let blockSize = 64

    /// The authentication code of `message` under `key` (a key longer than 64 bytes is hashed first).
    public static func authenticate(_ message: [UInt8], key: [UInt8]) -> SHA256Digest {
        var block = key.count > blockSize ? SHA256.hash(key).bytes : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize().bytes)
        return outer.finalize()
    }
}
