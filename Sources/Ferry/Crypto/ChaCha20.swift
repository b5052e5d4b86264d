/// The ChaCha20 stream cipher (RFC 8439) and HChaCha20 (draft-irtf-cfrg-xchacha), on which
/// ``ChaCha20Poly1305`` seals.
enum ChaCha20 {
    /// XORs `data` in place with the keystream of `key` (32 bytes) and `nonce` (12 bytes),
    /// starting at block `counter`.
    static func xor(_ data: inout [UInt8], key: [UInt8], nonce: [UInt8], counter: UInt32) {
        let keyWords = words(key, count: 8), nonceWords = words(nonce, count: 3)
        var block = [UInt32](repeating: 0, count: 16)
        var counter = counter
        data.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                Self.block(key: keyWords, counter: counter, nonce: nonceWords, into: &block)
                let end = min(offset + 64, buffer.count)
                block.withUnsafeBytes { keystream in
                    // Each word is written little-endian, as RFC 8439 serializes the state.
                    for index in offset..<end {
                        let word = keystream.load(fromByteOffset: (index - offset) & ~3, as: UInt32.self).littleEndian
                        buffer[index] ^= UInt8(truncatingIfNeeded: word >> (UInt32((index - offset) & 3) * 8))
                    }
                }
                offset = end
                counter &+= 1
            }
        }
    }

    /// The first 32 bytes of block 0: the one-time Poly1305 key of RFC 8439 section 2.6.
    static func polyKey(key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        var block = [UInt32](repeating: 0, count: 16)
        Self.block(key: words(key, count: 8), counter: 0, nonce: words(nonce, count: 3), into: &block)
        return bytes(of: block[0..<8])
    }

    /// HChaCha20: a 32-byte subkey from `key` and the first 16 bytes of an XChaCha20 nonce.
    static func hChaCha20(key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        var state = constants + words(key, count: 8) + words(nonce, count: 4)
        doubleRounds(&state)
        return bytes(of: state[0..<4] + state[12..<16])
    }

    /// "expand 32-byte k".
    private static let constants: [UInt32] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]

    /// One 64-byte block of keystream, as 16 words.
    private static func block(key: [UInt32], counter: UInt32, nonce: [UInt32], into output: inout [UInt32]) {
        var state = constants + key + [counter] + nonce
        let initial = state
        doubleRounds(&state)
        for index in 0..<16 { output[index] = state[index] &+ initial[index] }
    }

    /// The 20 rounds: ten column rounds, each followed by a diagonal round.
    private static func doubleRounds(_ s: inout [UInt32]) {
        var (x0, x1, x2, x3, x4, x5, x6, x7) = (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])
        var (x8, x9, x10, x11, x12, x13, x14, x15) = (s[8], s[9], s[10], s[11], s[12], s[13], s[14], s[15])
        for _ in 0..<10 {
            quarterRound(&x0, &x4, &x8, &x12)
            quarterRound(&x1, &x5, &x9, &x13)
            quarterRound(&x2, &x6, &x10, &x14)
            quarterRound(&x3, &x7, &x11, &x15)
            quarterRound(&x0, &x5, &x10, &x15)
            quarterRound(&x1, &x6, &x11, &x12)
            quarterRound(&x2, &x7, &x8, &x13)
            quarterRound(&x3, &x4, &x9, &x14)
        }
        s = [x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15]
    }

    @inline(__always)
    private static func quarterRound(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32) {
        a &+= b; d ^= a; d = d << 16 | d >> 16
        c &+= d; b ^= c; b = b << 12 | b >> 20
        a &+= b; d ^= a; d = d << 8 | d >> 24
        c &+= d; b ^= c; b = b << 7 | b >> 25
    }

    /// Little-endian 32-bit words of `bytes`.
    static func words(_ bytes: [UInt8], count: Int) -> [UInt32] {
        (0..<count).map { index in
            (0..<4).reduce(UInt32(0)) { word, byte in word | UInt32(bytes[4 * index + byte]) << UInt32(8 * byte) }
        }
    }

    private static func bytes(of words: some Sequence<UInt32>) -> [UInt8] {
        words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(8 * $0)) } }
    }
}
