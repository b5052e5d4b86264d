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
/// constant time and returns nothing of a message that does not authenticate: it decrypts only
/// after the tag is checked.
package enum ChaCha20Poly1305 {
    /// The size of the tag that ends every sealed message.
    package static let tagByteCount = 16

    /// Encrypts and authenticates `message` and `associatedData` (a 32-byte key; a nonce of 12
    /// bytes for RFC 8439, 24 for XChaCha20). A nonce must never repeat under one key.
    package static func seal(_ message: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try seal(message, key: key, nonce: nonce, associatedData: associatedData, using: .fastest)
    }

    /// ``seal(_:key:nonce:associatedData:)`` with the keystream made by `implementation`.
    static func seal(
        _ message: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8], using implementation: ChaCha20.Implementation
    ) throws(CryptoError) -> [UInt8] {
        let (subkey, subnonce) = try derive(key: key, nonce: nonce)
        let state = ChaCha20.state(key: subkey, nonce: subnonce, counter: 1)
        return [UInt8](unsafeUninitializedCapacity: message.count + tagByteCount) { sealed, initialized in
            guard let output = sealed.baseAddress else { return }
            message.withUnsafeBytes { input in ChaCha20.xor(input, into: UnsafeMutableRawPointer(output), state: state, using: implementation) }
            let ciphertext = UnsafeRawBufferPointer(start: output, count: message.count)
            let tag = tag(ciphertext: ciphertext, associatedData: associatedData, key: subkey, nonce: subnonce)
            (output + message.count).initialize(from: tag, count: tagByteCount)
            initialized = message.count + tagByteCount
        }
    }

    /// The message `sealed` holds, when its tag authenticates it and `associatedData`;
    /// ``CryptoError/authenticationFailed`` otherwise.
    package static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try open(sealed, key: key, nonce: nonce, associatedData: associatedData, using: .fastest)
    }

    /// ``open(_:key:nonce:associatedData:)`` with the keystream made by `implementation`.
    static func open(
        _ sealed: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8], using implementation: ChaCha20.Implementation
    ) throws(CryptoError) -> [UInt8] {
        let (subkey, subnonce) = try derive(key: key, nonce: nonce)
        guard sealed.count >= tagByteCount else { throw .authenticationFailed }
        let count = sealed.count - tagByteCount
        let authentic = sealed.withUnsafeBytes { bytes in
            let expected = tag(ciphertext: UnsafeRawBufferPointer(rebasing: bytes[..<count]), associatedData: associatedData, key: subkey, nonce: subnonce)
            var difference: UInt8 = 0
            for (x, y) in zip(expected, bytes[count...]) { difference |= x ^ y }
            return difference == 0
        }
        guard authentic else { throw .authenticationFailed }
        let state = ChaCha20.state(key: subkey, nonce: subnonce, counter: 1)
        return [UInt8](unsafeUninitializedCapacity: count) { message, initialized in
            guard let output = message.baseAddress else { return }
            sealed.withUnsafeBytes { bytes in
                ChaCha20.xor(UnsafeRawBufferPointer(rebasing: bytes[..<count]), into: UnsafeMutableRawPointer(output), state: state, using: implementation)
            }
            initialized = count
        }
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
    private static func tag(ciphertext: UnsafeRawBufferPointer, associatedData: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        var poly = Poly1305(key: ChaCha20.polyKey(key: key, nonce: nonce))
        associatedData.withUnsafeBytes { poly.absorbPadded($0) }
        poly.absorbPadded(ciphertext)
        poly.absorbLengths(associatedData.count, ciphertext.count)
        return poly.tag()
    }
}
