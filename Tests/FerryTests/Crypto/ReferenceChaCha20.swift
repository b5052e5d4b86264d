/// ChaCha20 one block at a time on 16 scalar words, straight from RFC 8439 section 2.3 (Ferry's
/// implementation before it made several blocks at once): the reference the fast paths are
/// checked against, in the tests only.
enum ReferenceChaCha20 {
    /// XORs `data` with the keystream of `key` and `nonce` from block `counter` (wrapping at 2^32).
    static func xor(_ data: [UInt8], key: [UInt8], nonce: [UInt8], counter: UInt32) -> [UInt8] {
        var state = constants + words(key, count: 8) + [counter] + words(nonce, count: 3)
        var output = data
        for start in stride(from: 0, to: data.count, by: 64) {
            let keystream = block(state)
            for index in start..<min(start + 64, data.count) {
                let offset = index - start
                output[index] ^= UInt8(truncatingIfNeeded: keystream[offset / 4] >> (UInt32(offset % 4) * 8))
            }
            state[12] &+= 1
        }
        return output
    }

    /// The AEAD of RFC 8439 section 2.8 on these references (12-byte nonce): ciphertext ‖ tag.
    static func seal(_ message: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8]) -> [UInt8] {
        let polyKey = xor([UInt8](repeating: 0, count: 32), key: key, nonce: nonce, counter: 0)
        let ciphertext = xor(message, key: key, nonce: nonce, counter: 1)
        func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: (16 - bytes.count % 16) % 16) }
        let lengths = [UInt64(associatedData.count), UInt64(ciphertext.count)].flatMap { length in
            (0..<8).map { UInt8(truncatingIfNeeded: length >> UInt64(8 * $0)) }
        }
        return ciphertext + ReferencePoly1305.tag(for: padded(associatedData) + padded(ciphertext) + lengths, key: polyKey)
    }

    private static let constants: [UInt32] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]

    private static func block(_ state: [UInt32]) -> [UInt32] {
        var x = state
        func quarterRound(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {
            x[a] &+= x[b]; x[d] ^= x[a]; x[d] = x[d] << 16 | x[d] >> 16
            x[c] &+= x[d]; x[b] ^= x[c]; x[b] = x[b] << 12 | x[b] >> 20
            x[a] &+= x[b]; x[d] ^= x[a]; x[d] = x[d] << 8 | x[d] >> 24
            x[c] &+= x[d]; x[b] ^= x[c]; x[b] = x[b] << 7 | x[b] >> 25
        }
        for _ in 0..<10 {
            quarterRound(0, 4, 8, 12); quarterRound(1, 5, 9, 13); quarterRound(2, 6, 10, 14); quarterRound(3, 7, 11, 15)
            quarterRound(0, 5, 10, 15); quarterRound(1, 6, 11, 12); quarterRound(2, 7, 8, 13); quarterRound(3, 4, 9, 14)
        }
        return zip(x, state).map { $0 &+ $1 }
    }

    private static func words(_ bytes: [UInt8], count: Int) -> [UInt32] {
        (0..<count).map { index in
            (0..<4).reduce(UInt32(0)) { word, byte in word | UInt32(bytes[4 * index + byte]) << UInt32(8 * byte) }
        }
    }
}
