/// HMAC-SHA-256 (RFC 2104), checked against RFC 4231's test cases.
///
/// ```swift
/// let tag = HMACSHA256.authenticate(Array("message".utf8), key: Array("key".utf8))
/// print(tag.hex)  // 64 hexadecimal digits
/// ```
public enum HMACSHA256 {
    /// SHA-256's block size in bytes: keys are padded to it, and longer keys hashed first.
    private static let blockSize = 64

    /// The authentication code of `message` under `key`.
    ///
    /// - Parameters:
    ///   - message: The bytes to authenticate.
    ///   - key: The key, of any length (a key longer than 64 bytes is hashed first).
    /// - Returns: The 32-byte code, as a digest (`.bytes`, `.hex`).
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
