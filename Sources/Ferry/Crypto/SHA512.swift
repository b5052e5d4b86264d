/// An incremental SHA-512 hasher (FIPS 180-4), the hash inside Ed25519 signatures.
///
/// ```swift
/// var hasher = SHA512()
/// hasher.update(Array("ab".utf8))
/// hasher.update(Array("c".utf8))
/// let digest = hasher.finalize()  // 64 bytes: ddaf35a1…a54ca49f
/// ```
///
/// Written here, as ``SHA256`` is, because Ferry has no package dependencies; the tests check
/// it against FIPS 180-4's examples and against Python's `hashlib` on random input.
package struct SHA512: Sendable {
    /// The eight 64-bit words of the running hash value.
    private var state: [UInt64] = Self.initialState
    /// Bytes of an incomplete block, waiting for more input (fewer than 128).
    private var pending: [UInt8] = []
    /// Total bytes fed so far, for the length field of the padding.
    private var totalByteCount: UInt64 = 0

    /// The size of one compression block in bytes.
    static let blockByteCount = 128

    /// Creates a hasher with nothing hashed yet.
    package init() {
        pending.reserveCapacity(Self.blockByteCount)
    }

    /// The SHA-512 digest of `bytes`, in one call.
    package static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var hasher = SHA512()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Hashes more bytes.
    package mutating func update(_ bytes: some Collection<UInt8>) {
        totalByteCount &+= UInt64(bytes.count)
        var rest = bytes[...]
        if !pending.isEmpty {
            let taken = rest.prefix(Self.blockByteCount - pending.count)
            pending.append(contentsOf: taken)
            rest = rest.dropFirst(taken.count)
            guard pending.count == Self.blockByteCount else { return }
            compress(pending[...])
            pending.removeAll(keepingCapacity: true)
        }
        while rest.count >= Self.blockByteCount {
            compress(rest.prefix(Self.blockByteCount))
            rest = rest.dropFirst(Self.blockByteCount)
        }
        pending.append(contentsOf: rest)
    }

    /// Pads the message and returns the 64-byte digest. The hasher is spent afterwards.
    package mutating func finalize() -> [UInt8] {
        let bitCount = totalByteCount &* 8
        var padding: [UInt8] = [0x80]
        let used = (pending.count + 1) % Self.blockByteCount
        let zeros = used <= 112 ? 112 - used : Self.blockByteCount + 112 - used
        padding += [UInt8](repeating: 0, count: zeros + 8)
        // A 128-bit big-endian length; messages here are far below 2^64 bits.
        for shift in stride(from: 56, through: 0, by: -8) { padding.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift))) }
        let total = totalByteCount
        update(padding)
        totalByteCount = total
        var digest: [UInt8] = []
        digest.reserveCapacity(64)
        for word in state {
            for shift in stride(from: 56, through: 0, by: -8) { digest.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return digest
    }

    /// One 128-byte block through the 80 rounds.
    private mutating func compress(_ block: some Collection<UInt8>) {
        var w = [UInt64](repeating: 0, count: 80)
        var index = block.startIndex
        for t in 0..<16 {
            var word: UInt64 = 0
            for _ in 0..<8 {
                word = word << 8 | UInt64(block[index])
                index = block.index(after: index)
            }
            w[t] = word
        }
        for t in 16..<80 {
            let s0 = w[t - 15].rotatedRight(1) ^ w[t - 15].rotatedRight(8) ^ (w[t - 15] >> 7)
            let s1 = w[t - 2].rotatedRight(19) ^ w[t - 2].rotatedRight(61) ^ (w[t - 2] >> 6)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for t in 0..<80 {
            let s1 = e.rotatedRight(14) ^ e.rotatedRight(18) ^ e.rotatedRight(41)
            let choice = (e & f) ^ (~e & g)
            let temp1 = h &+ s1 &+ choice &+ Self.roundConstants[t] &+ w[t]
            let s0 = a.rotatedRight(28) ^ a.rotatedRight(34) ^ a.rotatedRight(39)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temp2 = s0 &+ majority
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temp1, c, b, a, temp1 &+ temp2)
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }

    /// The first 64 bits of the fractional parts of the square roots of the first 8 primes.
    private static let initialState: [UInt64] = [
        0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
        0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
    ]

    /// The first 64 bits of the fractional parts of the cube roots of the first 80 primes.
    private static let roundConstants: [UInt64] = [
        0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
        0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
        0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
        0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
        0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
        0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
        0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
        0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
        0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
        0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
        0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
        0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
        0x19a4c116b8d2d0c8, 0x1e376c085141ab53, 0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8,
        0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373, 0x682e6ff3d6b2b8a3,
        0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
        0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b,
        0xca273eceea26619c, 0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178,
        0x06f067aa72176fba, 0x0a637dc5a2c898a6, 0x113f9804bef90dae, 0x1b710b35131c471b,
        0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc, 0x431d67c49c100d4c,
        0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
    ]
}

extension UInt64 {
    /// The bits rotated right by `count` (0 < count < 64).
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt64) -> UInt64 {
        (self >> count) | (self << (64 - count))
    }
}
