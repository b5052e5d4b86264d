/// An X25519 private key (RFC 7748): agrees on a shared secret with another party's public key.
///
/// ```swift
/// let mine = X25519PrivateKey.generate(), theirs = X25519PrivateKey.generate()
/// try mine.sharedSecret(with: theirs.publicKey) == theirs.sharedSecret(with: mine.publicKey)  // true
/// ```
///
/// The Montgomery ladder takes the same steps for every key, with conditional swaps that are
/// masks, not branches.
package struct X25519PrivateKey: Sendable {
    /// The 32 secret bytes (clamped when used, as RFC 7748 says).
    package let rawRepresentation: [UInt8]
    /// The public key: the scalar times the base point u = 9.
    package let publicKey: [UInt8]

    package init(rawRepresentation bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == 32 else { throw .wrongLength(what: "an X25519 private key", expected: 32, found: bytes.count) }
        rawRepresentation = bytes
        var nine = [UInt8](repeating: 0, count: 32)
        nine[0] = 9
        publicKey = Self.multiply(scalar: bytes, u: nine)
    }

    /// A new key from the system's random number generator.
    package static func generate() -> X25519PrivateKey {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        // 32 bytes always make a key.
        return (try? X25519PrivateKey(rawRepresentation: bytes)) ?? generate()
    }

    /// The 32-byte shared secret with `publicKey`; refused when it is all zeros (a public key
    /// of small order, which would make the secret known to anyone).
    package func sharedSecret(with publicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard publicKey.count == 32 else { throw .wrongLength(what: "an X25519 public key", expected: 32, found: publicKey.count) }
        let secret = Self.multiply(scalar: rawRepresentation, u: publicKey)
        guard secret.reduce(0, |) != 0 else { throw .lowOrderPublicKey }
        return secret
    }

    /// RFC 7748's X25519(k, u): the clamped scalar times the point with u-coordinate `u`
    /// (its top bit ignored, values from p up taken modulo p).
    static func multiply(scalar: [UInt8], u: [UInt8]) -> [UInt8] {
        var k = scalar
        k[0] &= 248
        k[31] &= 127
        k[31] |= 64
        let x1 = FieldElement25519(bytes: u)
        var (x2, z2, x3, z3) = (FieldElement25519.one, FieldElement25519.zero, x1, FieldElement25519.one)
        var swap: UInt64 = 0
        let a24 = FieldElement25519(121_665)
        for bit in (0..<255).reversed() {
            let kt = UInt64(k[bit / 8] >> UInt8(bit % 8) & 1)
            swap ^= kt
            (x2, x3) = (.select(x3, x2, choice: swap), .select(x2, x3, choice: swap))
            (z2, z3) = (.select(z3, z2, choice: swap), .select(z2, z3, choice: swap))
            swap = kt
            let a = x2 + z2, b = x2 - z2
            let aa = a.squared(), bb = b.squared()
            let e = aa - bb
            let c = x3 + z3, d = x3 - z3
            let da = d * a, cb = c * b
            x3 = (da + cb).squared()
            z3 = x1 * (da - cb).squared()
            x2 = aa * bb
            z2 = e * (aa + a24 * e)
        }
        (x2, x3) = (.select(x3, x2, choice: swap), .select(x2, x3, choice: swap))
        (z2, z3) = (.select(z3, z2, choice: swap), .select(z2, z3, choice: swap))
        return (x2 * z2.inverted()).encoded()
    }
}
