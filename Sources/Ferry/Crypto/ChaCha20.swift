internal import CFerryChaCha

/// The ChaCha20 stream cipher (RFC 8439) and HChaCha20 (draft-irtf-cfrg-xchacha), on which
/// ``ChaCha20Poly1305`` seals.
///
/// The keystream is made several blocks at a time and XORed straight from the input into the
/// output: eight blocks per step with AVX2 where the processor has it (``Implementation``), four
/// blocks in Swift's four-lane vectors everywhere else (`ChaCha20+Blocks.swift`).
enum ChaCha20 {
    /// How the keystream is made; every one gives the same bytes, and tests run each of them.
    enum Implementation: CaseIterable, CustomStringConvertible {
        /// Eight blocks at a time with AVX2 (C, `CFerryChaCha`), then four-block steps for the rest.
        case eightBlocksAVX2
        /// Four blocks at a time in Swift's `SIMD4<UInt32>` (SSE2 on x86-64, NEON on arm64).
        case fourBlocksSIMD

        /// The fastest one this processor runs, checked once per process.
        static let fastest: Implementation = ferry_chacha20_avx2_available() == 1 ? .eightBlocksAVX2 : .fourBlocksSIMD

        /// Whether this processor runs it (tests skip the ones it does not).
        var isAvailable: Bool { self == .fourBlocksSIMD || Self.fastest == .eightBlocksAVX2 }

        var description: String { self == .eightBlocksAVX2 ? "AVX2, eight blocks" : "SIMD4, four blocks" }
    }

    /// The 16 words a block starts from (RFC 8439 section 2.3): the constants, the key (32
    /// bytes), the block counter and the nonce (12 bytes).
    static func state(key: [UInt8], nonce: [UInt8], counter: UInt32) -> SIMD16<UInt32> {
        let words = constants + words(key, count: 8) + [counter] + words(nonce, count: 3)
        return SIMD16(words)
    }

    /// XORs `data` in place with the keystream of `key` (32 bytes) and `nonce` (12 bytes),
    /// starting at block `counter`.
    static func xor(_ data: inout [UInt8], key: [UInt8], nonce: [UInt8], counter: UInt32, using implementation: Implementation = .fastest) {
        let state = state(key: key, nonce: nonce, counter: counter)
        data.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            xor(UnsafeRawBufferPointer(buffer), into: base, state: state, using: implementation)
        }
    }

    /// XORs the bytes of `input` with the keystream of `state` (its word 12 is the first block's
    /// counter) into `output`, which holds at least as many bytes and may be `input`'s own.
    static func xor(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, state: SIMD16<UInt32>,
                    using implementation: Implementation = .fastest) {
        guard let source = input.baseAddress else { return }
        var state = state
        var offset = 0
        if implementation == .eightBlocksAVX2 && Implementation.fastest == .eightBlocksAVX2 {
            let groups = input.count / 512
            withUnsafeBytes(of: state) { words in
                guard groups > 0, let words = words.bindMemory(to: UInt32.self).baseAddress else { return }
                ferry_chacha20_xor_eight_blocks_avx2(
                    words, source.assumingMemoryBound(to: UInt8.self), output.assumingMemoryBound(to: UInt8.self), groups)
            }
            offset = groups * 512
            state[12] &+= UInt32(truncatingIfNeeded: groups * 8)
        }
        while input.count - offset >= 256 {
            xorFourBlocks(state, from: source + offset, into: output + offset)
            offset += 256
            state[12] &+= 4
        }
        guard offset < input.count else { return }
        // The last 1 to 255 bytes: four blocks over a zeroed copy of them, of which the first
        // `count` bytes are kept.
        let count = input.count - offset
        withUnsafeTemporaryAllocation(byteCount: 256, alignment: 16) { buffer in
            guard let scratch = buffer.baseAddress else { return }
            scratch.initializeMemory(as: UInt8.self, repeating: 0, count: 256)
            scratch.copyMemory(from: source + offset, byteCount: count)
            xorFourBlocks(state, from: scratch, into: scratch)
            (output + offset).copyMemory(from: scratch, byteCount: count)
        }
    }

    /// The first 32 bytes of block 0: the one-time Poly1305 key of RFC 8439 section 2.6.
    static func polyKey(key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        let initial = state(key: key, nonce: nonce, counter: 0)
        let block = doubleRounds(initial) &+ initial
        return bytes(of: (0..<8).map { block[$0] })
    }

    /// HChaCha20: a 32-byte subkey from `key` and the first 16 bytes of an XChaCha20 nonce.
    static func hChaCha20(key: [UInt8], nonce: [UInt8]) -> [UInt8] {
        let x = doubleRounds(SIMD16(constants + words(key, count: 8) + words(nonce, count: 4)))
        return bytes(of: [x[0], x[1], x[2], x[3], x[12], x[13], x[14], x[15]])
    }

    /// "expand 32-byte k".
    private static let constants: [UInt32] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]

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
