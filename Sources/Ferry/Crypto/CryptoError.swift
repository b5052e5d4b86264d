/// Why a key could not be made or a sealed message opened.
package enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A key, nonce or message part of the wrong size.
    case wrongLength(what: String, expected: Int, found: Int)
    /// 32 bytes that encode no point of edwards25519.
    case notAPoint
    /// An X25519 public key of small order: the shared secret would be all zeros, known to anyone.
    case lowOrderPublicKey
    /// A sealed message whose tag does not match: altered, truncated, or sealed under another
    /// key, nonce or associated data.
    case authenticationFailed
    /// Parameters out of range (a scrypt cost that is not a power of two, say).
    case invalidParameters(String)

    package var description: String {
        switch self {
        case .wrongLength(let what, let expected, let found):
            return "\(what) is \(expected) bytes, not \(found)"
        case .notAPoint:
            return "not an Ed25519 public key: the 32 bytes encode no point of the curve"
        case .lowOrderPublicKey:
            return "an X25519 public key of small order, which would give an all-zero shared secret"
        case .authenticationFailed:
            return "the sealed data does not authenticate: altered, truncated, or sealed under another key"
        case .invalidParameters(let reason):
            return reason
        }
    }
}
