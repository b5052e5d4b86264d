/// PBKDF2 with HMAC-SHA-256 (RFC 8018 section 5.2), the outer layers of ``Scrypt``.
enum PBKDF2 {
    /// `length` bytes derived from `password` and `salt` in `iterations` rounds.
    static func derive(password: [UInt8], salt: [UInt8], iterations: Int, length: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(length)
        var blockIndex: UInt32 = 1
        while output.count < length {
            var u = HMACSHA256.authenticate(salt + withUnsafeBytes(of: blockIndex.bigEndian, Array.init), key: password).bytes
            var t = u
            for _ in 1..<max(iterations, 1) {
                u = HMACSHA256.authenticate(u, key: password).bytes
                for index in 0..<32 { t[index] ^= u[index] }
            }
            output += t.prefix(length - output.count)
            blockIndex += 1
        }
        return output
    }
}
