/// HKDF with HMAC-SHA-256 (RFC 5869): keys of up to 32 bytes from a secret, a salt and a label.
///
/// ```swift
/// let key = HKDFSHA256.derive(secret: shared, salt: salt, info: Array("label".utf8))
/// ```
package enum HKDFSHA256 {
    /// The first `length` (at most 32) bytes of HKDF-Expand(HKDF-Extract(salt, secret), info).
    package static func derive(secret: [UInt8], salt: [UInt8], info: [UInt8], length: Int = 32) -> [UInt8] {
        let pseudorandomKey = HMACSHA256.authenticate(secret, key: salt).bytes
        let block = HMACSHA256.authenticate(info + [1], key: pseudorandomKey).bytes
        return Array(block.prefix(min(length, 32)))
    }
}
