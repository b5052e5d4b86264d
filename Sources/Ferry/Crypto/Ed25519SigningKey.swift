/// A private Ed25519 key (RFC 8032): signs messages that its ``publicKey`` verifies.
///
/// ```swift
/// let key = Ed25519SigningKey.generate()
/// let signature = key.signature(for: Array("hello".utf8))
/// key.publicKey.isValidSignature(signature, for: Array("hello".utf8))  // true
/// ```
///
/// Signing is deterministic (the nonce is derived from the key and the message), and takes the
/// same steps whatever the key: no branch or table index depends on it.
package struct Ed25519SigningKey: Sendable {
    /// The 32-byte seed the key is made from: the secret to keep (file mode 0600, never synced).
    package let seed: [UInt8]
    /// The public half.
    package let publicKey: Ed25519PublicKey
    /// The clamped secret scalar a, and the prefix that derives nonces.
    private let scalar: [UInt8]
    private let prefix: [UInt8]

    /// The key made from a 32-byte seed.
    package init(seed: [UInt8]) throws(CryptoError) {
        guard seed.count == 32 else { throw .wrongLength(what: "an Ed25519 private key seed", expected: 32, found: seed.count) }
        let hash = SHA512.hash(seed)
        var scalar = Array(hash[0..<32])
        scalar[0] &= 248
        scalar[31] &= 127
        scalar[31] |= 64
        self.seed = seed
        self.scalar = scalar
        self.prefix = Array(hash[32..<64])
        self.publicKey = Ed25519PublicKey(verifiedEncoding: EdwardsPoint25519.base.multiplied(bySecret: scalar).encoded())
    }

    /// A new key from the system's random number generator (`getrandom` on Linux).
    package static func generate() -> Ed25519SigningKey {
        var generator = SystemRandomNumberGenerator()
        let seed = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        // 32 bytes always make a key.
        return (try? Ed25519SigningKey(seed: seed)) ?? generate()
    }

    /// The 64-byte signature R ‖ S of `message` (RFC 8032 section 5.1.6).
    package func signature(for message: some Collection<UInt8>) -> [UInt8] {
        var nonceHasher = SHA512()
        nonceHasher.update(prefix)
        nonceHasher.update(message)
        let nonce = Scalar25519.reduced(nonceHasher.finalize())
        let commitment = EdwardsPoint25519.base.multiplied(bySecret: nonce).encoded()
        let challenge = Ed25519PublicKey.challenge(commitment: commitment, publicKey: publicKey.rawRepresentation, message: message)
        return commitment + Scalar25519.multiplyAdd(challenge, scalar, nonce)
    }
}
