/// A public Ed25519 key (RFC 8032): checks signatures made by its ``Ed25519SigningKey``.
///
/// Verification is strict: S must be below the group order (no malleable signatures), the key
/// and R must be canonical point encodings, and the equation is checked without the cofactor,
/// by re-encoding [S]B − [k]A and comparing it with R byte for byte (as BoringSSL and
/// libsodium do). Every case of Wycheproof's Ed25519 vectors gives its expected answer.
package struct Ed25519PublicKey: Sendable, Hashable {
    /// The 32-byte encoding.
    package let rawRepresentation: [UInt8]

    /// A key from its 32-byte encoding; refused when it is not a point of the curve.
    package init(rawRepresentation bytes: [UInt8]) throws(CryptoError) {
        guard bytes.count == 32 else { throw .wrongLength(what: "an Ed25519 public key", expected: 32, found: bytes.count) }
        guard EdwardsPoint25519(decoding: bytes) != nil else { throw .notAPoint }
        rawRepresentation = bytes
    }

    /// A key computed from a private one (a point by construction).
    init(verifiedEncoding bytes: [UInt8]) {
        rawRepresentation = bytes
    }

    /// Whether `signature` is this key's signature of `message` (RFC 8032 section 5.1.7).
    package func isValidSignature(_ signature: [UInt8], for message: some Collection<UInt8>) -> Bool {
        guard signature.count == 64 else { return false }
        let commitment = Array(signature[0..<32])
        let s = Array(signature[32..<64])
        guard Scalar25519.isCanonical(s), FieldElement25519.isCanonicalEncoding(commitment),
              let point = EdwardsPoint25519(decoding: rawRepresentation)
        else { return false }
        let k = Self.challenge(commitment: commitment, publicKey: rawRepresentation, message: message)
        let check = EdwardsPoint25519.publicCombination(baseScalar: s, point: -point, scalar: k)
        return check.encoded() == commitment
    }

    /// k = SHA-512(R ‖ A ‖ M) mod ℓ.
    static func challenge(commitment: [UInt8], publicKey: [UInt8], message: some Collection<UInt8>) -> [UInt8] {
        var hasher = SHA512()
        hasher.update(commitment)
        hasher.update(publicKey)
        hasher.update(message)
        return Scalar25519.reduced(hasher.finalize())
    }
}
