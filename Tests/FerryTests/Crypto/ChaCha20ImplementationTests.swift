import Testing
import FerryTestSupport
@testable import Ferry

/// Every way Ferry makes ChaCha20's keystream (eight blocks with AVX2, four in SIMD4 lanes, and
/// each one's tail of fewer blocks) and its radix-2^64 Poly1305, against the one-block and
/// 26-bit references of RFC 8439, at every length where a batch of blocks begins or ends.
@Suite struct ChaCha20ImplementationTests {
    /// 0 to 600 bytes, then each side of every batch boundary (64-byte blocks, 256-byte steps
    /// of four, 512-byte steps of eight) up to a few steps, and lengths that end mid-word.
    static let lengths: [Int] = Array(0...600) + [
        639, 640, 641, 767, 768, 769, 1023, 1024, 1025, 1279, 1280, 1281, 1535, 1536, 1537,
        2047, 2048, 2049, 4096 + 7, 4096 + 255, 4096 + 256 + 3, 65536 + 511, 65536 + 513,
    ]

    static var implementations: [ChaCha20.Implementation] { ChaCha20.Implementation.allCases.filter(\.isAvailable) }

    @Test(arguments: implementations)
    func keystreamMatchesTheOneBlockReference(_ implementation: ChaCha20.Implementation) {
        var random = SeededRandom(seed: SeededRandom.environmentNumber("FERRY_SEED", default: 51))
        for length in Self.lengths {
            let key = bytes(32, &random), nonce = bytes(12, &random), data = bytes(length, &random)
            // Counters near 2^32 too: the block counter wraps inside a batch, as the reference's does.
            let counter: UInt32 = length % 3 == 0 ? UInt32.max - UInt32(length % 11) : UInt32.random(in: 0...1000, using: &random)
            var fast = data
            ChaCha20.xor(&fast, key: key, nonce: nonce, counter: counter, using: implementation)
            #expect(firstDifference(fast, ReferenceChaCha20.xor(data, key: key, nonce: nonce, counter: counter)) == nil, "\(length) bytes, counter \(counter)")
        }
    }

    /// Seal writes into a new buffer (not in place) and open decrypts after the tag: both, at
    /// every length, against the reference AEAD, each opening the other's.
    @Test(arguments: implementations)
    func sealAndOpenMatchTheReference(_ implementation: ChaCha20.Implementation) throws {
        var random = SeededRandom(seed: SeededRandom.environmentNumber("FERRY_SEED", default: 8439))
        for length in Self.lengths {
            let key = bytes(32, &random), nonce = bytes(12, &random), aad = bytes(length % 41, &random), message = bytes(length, &random)
            let expected = ReferenceChaCha20.seal(message, key: key, nonce: nonce, associatedData: aad)
            let sealed = try ChaCha20Poly1305.seal(message, key: key, nonce: nonce, associatedData: aad, using: implementation)
            #expect(firstDifference(sealed, expected) == nil, "\(length) bytes")
            let opened = try ChaCha20Poly1305.open(expected, key: key, nonce: nonce, associatedData: aad, using: implementation)
            #expect(firstDifference(opened, message) == nil, "\(length) bytes")
        }
    }

    @Test(arguments: implementations)
    func aMebibyteMatchesTheReference(_ implementation: ChaCha20.Implementation) throws {
        var random = SeededRandom(seed: SeededRandom.environmentNumber("FERRY_SEED", default: 1 << 20))
        let key = bytes(32, &random), nonce = bytes(12, &random), message = bytes(1 << 20, &random)
        let sealed = try ChaCha20Poly1305.seal(message, key: key, nonce: nonce, associatedData: [], using: implementation)
        let expected = ReferenceChaCha20.seal(message, key: key, nonce: nonce, associatedData: [])
        #expect(firstDifference(sealed, expected) == nil)
        let opened = try ChaCha20Poly1305.open(expected, key: key, nonce: nonce, associatedData: [], using: implementation)
        #expect(firstDifference(opened, message) == nil)
    }

    /// Poly1305's block loops (C where it is compiled, and Swift), each with random keys and
    /// messages, and with the ones that push the accumulator's carries and the final reduction to
    /// their limits: every byte 0xff in the key, the message or both.
    @Test(arguments: Poly1305.cAvailable ? ["C", "Swift"] : ["Swift"])
    func poly1305MatchesTheReference(loop: String) {
        var random = SeededRandom(seed: SeededRandom.environmentNumber("FERRY_SEED", default: 1305))
        for length in 0...300 {
            for kind in 0..<4 {
                let key = kind & 1 == 0 ? bytes(32, &random) : [UInt8](repeating: 0xff, count: 32)
                let message = kind & 2 == 0 ? bytes(length, &random) : [UInt8](repeating: 0xff, count: length)
                let tag = Poly1305.tag(for: message, key: key, portable: loop == "Swift")
                #expect(tag == ReferencePoly1305.tag(for: message, key: key), "\(length) bytes, case \(kind)")
            }
        }
    }

    /// Where `bytes` first differs from `expected` (a shorter array differs at its end); `nil`
    /// when they are equal. A failure names one offset rather than printing a mebibyte.
    private func firstDifference(_ bytes: [UInt8], _ expected: [UInt8]) -> Int? {
        bytes.indices.first { $0 >= expected.count || bytes[$0] != expected[$0] } ?? (bytes.count < expected.count ? bytes.count : nil)
    }

    private func bytes(_ count: Int, _ random: inout SeededRandom) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }
}
