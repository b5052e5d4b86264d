import Testing
@testable import Ferry

@Suite struct SHA256Tests {
    /// The FIPS 180-4 example vectors (NIST "Example Algorithms", SHA-256).
    static let vectors: [(message: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ]

    @Test(arguments: 0..<4) func nistVector(index: Int) {
        let (message, expected) = Self.vectors[index]
        #expect(SHA256.hash(Array(message.utf8)).hex == expected)
    }

    @Test func oneMillionA() {
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hash(message).hex == expected)

        // The same, fed in uneven pieces that straddle block boundaries.
        var hasher = SHA256()
        var offset = 0
        var piece = 1
        while offset < message.count {
            let end = min(offset + piece, message.count)
            message[offset..<end].withUnsafeBytes { hasher.update($0) }
            offset = end
            piece = piece % 200 + 7
        }
        #expect(hasher.finalize().hex == expected)
    }

    /// Both compression paths, the processor's SHA instructions and the portable rounds, give
    /// the NIST digests and agree on every length across several blocks (on a processor
    /// without the instructions, both runs take the portable path).
    @Test(arguments: [false, true]) func hardwareAndPortableRoundsAgree(hardware: Bool) {
        for (message, expected) in Self.vectors {
            var hasher = SHA256(hardware: hardware)
            hasher.update(Array(message.utf8))
            #expect(hasher.finalize().hex == expected)
        }
        var million = SHA256(hardware: hardware)
        million.update([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(million.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        for length in 0...300 {
            var one = SHA256(hardware: hardware)
            var other = SHA256(hardware: !hardware)
            one.update(Array(bytes[..<length]))
            other.update(Array(bytes[..<length]))
            #expect(one.finalize() == other.finalize(), "length \(length)")
        }
    }

    @Test func pointerAndArrayEntryPointsAgree() {
        let message = Array("abc".utf8)
        let viaPointer = message.withUnsafeBytes { SHA256.hash($0) }
        #expect(viaPointer == SHA256.hash(message))
        #expect(SHA256.hash(UnsafeRawBufferPointer(start: nil, count: 0)).hex == Self.vectors[0].digest)
    }

    @Test func incrementalUpdatesMatchOneShotAtEverySplit() {
        // 130 bytes: two full blocks plus two bytes, so splits cross both block boundaries.
        let message = (0..<130).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let expected = SHA256.hash(message)
        for split in 0...130 {
            var hasher = SHA256()
            hasher.update(Array(message[..<split]))
            hasher.update(Array(message[split...]))
            #expect(hasher.finalize() == expected, "split at \(split)")
        }
        // Three pieces as well, covering a pending buffer that is filled and left partial.
        for first in stride(from: 0, through: 130, by: 13) {
            for second in first...130 where (second - first) % 11 == 0 {
                var hasher = SHA256()
                hasher.update(Array(message[..<first]))
                hasher.update(Array(message[first..<second]))
                hasher.update(Array(message[second...]))
                #expect(hasher.finalize() == expected, "splits at \(first), \(second)")
            }
        }
    }

    @Test func paddingEdgeLengths() {
        // Lengths around the 55/56/64-byte padding boundaries: incremental equals one-shot, and
        // each length gives a distinct digest.
        var seen = Set<SHA256Digest>()
        for length in [0, 1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129] {
            let message = [UInt8](repeating: 0x61, count: length)
            var hasher = SHA256()
            for byte in message { hasher.update([byte]) }
            let digest = hasher.finalize()
            #expect(digest == SHA256.hash(message), "length \(length)")
            seen.insert(digest)
        }
        #expect(seen.count == 14)
    }

    @Test func finalizeResetsTheHasher() {
        var hasher = SHA256()
        hasher.update(Array("abc".utf8))
        _ = hasher.finalize()
        #expect(hasher.finalize().hex == Self.vectors[0].digest)
    }

    @Test func hexRoundTrip() throws {
        for (message, hex) in Self.vectors {
            let digest = SHA256.hash(Array(message.utf8))
            #expect(digest.description == hex)
            #expect(SHA256Digest(hex: hex) == digest)
            #expect(SHA256Digest(hex: hex.uppercased()) == digest)
            #expect(SHA256Digest(bytes: digest.bytes) == digest)
        }
        let digest = SHA256.hash(Array("abc".utf8))
        #expect(digest.bytes.count == 32)
        #expect(digest.bytes.prefix(4) == [0xba, 0x78, 0x16, 0xbf])
    }

    @Test func rejectsMalformedHex() {
        let valid = Self.vectors[1].digest
        #expect(SHA256Digest(hex: "") == nil)
        #expect(SHA256Digest(hex: String(valid.dropLast())) == nil)
        #expect(SHA256Digest(hex: valid + "0") == nil)
        #expect(SHA256Digest(hex: "g" + valid.dropFirst()) == nil)
        #expect(SHA256Digest(hex: " " + valid.dropFirst()) == nil)
        #expect(SHA256Digest(hex: String(repeating: "é", count: 32)) == nil)
        #expect(SHA256Digest(bytes: [1, 2, 3]) == nil)
    }

    @Test func zeroAndCompactness() {
        #expect(SHA256Digest.zero.bytes == [UInt8](repeating: 0, count: 32))
        #expect(SHA256Digest.zero.hex == String(repeating: "0", count: 64))
        #expect(SHA256Digest(hex: String(repeating: "0", count: 64)) == .zero)
        #expect(MemoryLayout<SHA256Digest>.size == 32)
        #expect(MemoryLayout<SHA256>.size <= 128)
    }
}
