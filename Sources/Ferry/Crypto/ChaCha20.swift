/// The ChaCha20 stream cipher (RFC 8439) and HChaCha20 (draft-irtf-cfrg-xchacha), on which
/// ``ChaCha20Poly1305`` seals.
enum ChaCha20 {
    /// XORs `data` in place with the keystream of `key` (32 bytes) and `nonce` (12 bytes),
    /// starting at block `counter`.
    static func xor(_ data: inout [UInt8], key: [UInt8], nonce: [UInt8], counter: UInt32) {
        let keyWords = words(key, count: 8), nonceWords = words(nonce, count: 3)
        var state = constants + keyWords + [counter] + nonceWords
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { keystream in
            data.withUnsafeMutableBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                var offset = 0
                while offset < buffer.count {
                    Self.block(state, into: keystream)
                    if buffer.count - offset >= 64 {
                        for index in 0..<16 {
                            let address = base + offset + 4 * index
                            let word = address.loadUnaligned(as: UInt32.self) ^ keystream[index].littleEndian
                            address.storeBytes(of: word, as: UInt32.self)
                        }
                    } else {
                        // The last, partial block: each keystream word is serialized little-endian.
                        for index in offset..<buffer.count {
                            let word = keystream[(index - offset) / 4]
                            buffer[index] ^= UInt8(truncatingIfNeeded: word >> (UInt32((index - offset) % 4) * 8))
                        }
                    }
                    offset += 64
                    state[12] &+= 1
                }
            }
        }
    }

    /// The first 32 bytes of block 0: the one-time Poly1305 key of RFC 8439 section 2.6.
    static func polyKey(key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { block in
            Self.block(constants + words(key, count: 8) + [0] + words(nonce, count: 3), into: block)
            return bytes(of: block[0..<8])
        }
    }

    /// HChaCha20: a 32-byte subkey from `key` and the first 16 bytes of an XChaCha20 nonce.
    static func hChaCha20(key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        let state = constants + words(key, count: 8) + words(nonce, count: 4)
        let (x0, x1, x2, x3, _, _, _, _, _, _, _, _, x12, x13, x14, x15) = doubleRounds(state)
        return bytes(of: [x0, x1, x2, x3, x12, x13, x14, x15])
    }

    /// "expand 32-byte k".
    private static let constants: [UInt32] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]

    /// One 64-byte block of keystream for `state` (constants, key, counter, nonce), as 16 words.
    private static func block(_ state: [UInt32], into output: UnsafeMutableBufferPointer<UInt32>) {
        let x = doubleRounds(state)
        output[0] = x.0 &+ state[0]; output[1] = x.1 &+ state[1]; output[2] = x.2 &+ state[2]; output[3] = x.3 &+ state[3]
        output[4] = x.4 &+ state[4]; output[5] = x.5 &+ state[5]; output[6] = x.6 &+ state[6]; output[7] = x.7 &+ state[7]
        output[8] = x.8 &+ state[8]; output[9] = x.9 &+ state[9]; output[10] = x.10 &+ state[10]; output[11] = x.11 &+ state[11]
        output[12] = x.12 &+ state[12]; output[13] = x.13 &+ state[13]; output[14] = x.14 &+ state[14]; output[15] = x.15 &+ state[15]
    }

    /// The 20 rounds on 16 words held in registers: ten column rounds, each followed by a
    /// diagonal round.
    private static func doubleRounds(_ s: [UInt32]) -> (
        UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32
    ) {
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
        return (x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15)
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
