/// Why an Ed25519 key could not be made.
package enum Ed25519Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// A key of the wrong size.
    case wrongLength(what: String, expected: Int, found: Int)
    /// 32 bytes that encode no point of edwards25519.
    case notAPoint

    package var description: String {
        switch self {
        case .wrongLength(let what, let expected, let found):
            return "an Ed25519 \(what) is \(expected) bytes, not \(found)"
        case .notAPoint:
            return "not an Ed25519 public key: the 32 bytes encode no point of the curve"
        }
    }
}
