/// Authenticated encryption with ChaCha20 and Poly1305: the AEAD of RFC 8439 (12-byte nonce),
/// and XChaCha20-Poly1305 (24-byte nonce, draft-irtf-cfrg-xchacha), which is safe with random
/// nonces and is what an encrypted hub seals its objects with.
///
/// ```swift
/// let sealed = try ChaCha20Poly1305.seal(message, key: key, nonce: nonce24, associatedData: Array("segments/a1".utf8))
/// let opened = try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce24, associatedData: Array("segments/a1".utf8))
/// ```
///
/// The sealed form is the ciphertext followed by the 16-byte tag. Opening compares tags in
/// constant time and returns nothing of a message that does not authenticate.
package enum ChaCha20Poly1305 {
    /// The size of the tag that ends every sealed message.
    package static let tagByteCount = 16

    /// Encrypts and authenticates `message` and `associatedData` (a 32-byte key; a nonce of 12
    /// bytes for RFC 8439, 24 for XChaCha20). A nonce must never repeat under one key.
    package static func seal(_ message: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        let (subkey, subnonce) = try derive(key: key, nonce: nonce)
        var ciphertext = message
        ChaCha20.xor(&ciphertext, key: subkey, nonce: subnonce, counter: 1)
        return ciphertext + tag(ciphertext: ciphertext, associatedData: associatedData, key: subkey, nonce: subnonce)
    }

    /// The message `sealed` holds, when its tag authenticates it and `associatedData`;
    /// ``CryptoError/authenticationFailed`` otherwise.
    package static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        let (subkey, subnonce) = try derive(key: key, nonce: nonce)
        guard sealed.count >= tagByteCount else { throw .authenticationFailed }
        var message = Array(sealed[..<(sealed.count - tagByteCount)])
        let expected = tag(ciphertext: message, associatedData: associatedData, key: subkey, nonce: subnonce)
        var difference: UInt8 = 0
        for (x, y) in zip(expected, sealed[(sealed.count - tagByteCount)...]) { difference |= x ^ y }
        guard difference == 0 else { throw .authenticationFailed }
        ChaCha20.xor(&message, key: subkey, nonce: subnonce, counter: 1)
        return message
    }

    /// The ChaCha20 key and 12-byte nonce: as given, or for a 24-byte nonce HChaCha20's subkey
    /// and four zero bytes before the nonce's last eight.
    private static func derive(key: [UInt8], nonce: [UInt8]) throws(CryptoError) -> ([UInt8], [UInt8]) {
        guard key.count == 32 else { throw .wrongLength(what: "a ChaCha20-Poly1305 key", expected: 32, found: key.count) }
        switch nonce.count {
        case 12:
            return (key, nonce)
        case 24:
            return (ChaCha20.hChaCha20(key: key, nonce: Array(nonce[0..<16])), [0, 0, 0, 0] + nonce[16..<24])
        default:
            throw .wrongLength(what: "a ChaCha20-Poly1305 nonce (12 bytes, or 24 for XChaCha20)", expected: 24, found: nonce.count)
        }
    }

    /// Poly1305 of aad ‖ pad16 ‖ ciphertext ‖ pad16 ‖ len(aad) ‖ len(ciphertext).
    private static func tag(ciphertext: [UInt8], associatedData: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        var poly = Poly1305(key: ChaCha20.polyKey(key: key, nonce: nonce))
        poly.update(associatedData)
        poly.update([UInt8](repeating: 0, count: (16 - associatedData.count % 16) % 16))
        poly.update(ciphertext)
        poly.update([UInt8](repeating: 0, count: (16 - ciphertext.count % 16) % 16))
        var lengths: [UInt8] = []
        for length in [UInt64(associatedData.count), UInt64(ciphertext.count)] {
            lengths += (0..<8).map { UInt8(truncatingIfNeeded: length >> UInt64(8 * $0)) }
        }
        poly.update(lengths)
        return poly.finalize()
    }
}
