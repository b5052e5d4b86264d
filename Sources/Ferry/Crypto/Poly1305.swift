internal import CFerryChaCha

/// The Poly1305 one-time authenticator (RFC 8439 section 2.5), in two 64-bit limbs and a few
/// bits above them (radix 2^64), with 64 × 64 → 128-bit products; the same steps whatever the
/// key and message: carries are computed with arithmetic, never with a comparison that could
/// become a branch.
///
/// The block loop runs in C (`ferry_poly1305_blocks`, twice as fast: the compiler's 128-bit
/// integers carry with add-with-carry) wherever the compiler has 128-bit integers, and in Swift
/// elsewhere; tests run both.
///
/// ```swift
/// var poly = Poly1305(key: oneTimeKey)
/// associatedData.withUnsafeBytes { poly.absorbPadded($0) }
/// let tag = poly.tag()
/// ```
struct Poly1305 {
    /// r, clamped: r0 + 2^64 r1.
    private let r0: UInt64, r1: UInt64
    /// 5/4 r1 (exact: clamping clears r1's two low bits), for the product's part above 2^130.
    private let s1: UInt64
    /// s, added to the result: s0 + 2^64 s1.
    private let pad0: UInt64, pad1: UInt64
    /// The accumulator h0 + 2^64 h1 + 2^128 h2, partly reduced (h2 stays below 8).
    private var h: (UInt64, UInt64, UInt64) = (0, 0, 0)
    /// Whether blocks go through the C loop rather than the Swift one.
    private let usesC: Bool

    /// Whether this build has the C block loop (it needs 128-bit integers); checked once.
    static let cAvailable = ferry_poly1305_available() == 1

    /// An authenticator with the 32-byte one-time key (r, clamped, then s); `portable` asks for
    /// the Swift block loop even where the C one is there (for tests).
    init(key: [UInt8], portable: Bool = false) {
        usesC = !portable && Self.cAvailable
        func word(_ index: Int) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { value, byte in value | UInt64(key[8 * index + byte]) << UInt64(8 * byte) }
        }
        r0 = word(0) & 0x0fff_fffc_0fff_ffff
        r1 = word(1) & 0x0fff_fffc_0fff_fffc
        s1 = r1 &+ r1 >> 2
        pad0 = word(2)
        pad1 = word(3)
    }

    /// The 16-byte tag of `message` under `key`.
    static func tag(for message: [UInt8], key: [UInt8], portable: Bool = false) -> [UInt8] {
        var poly = Poly1305(key: key, portable: portable)
        message.withUnsafeBytes { bytes in
            let whole = bytes.count / 16 * 16
            if let base = bytes.baseAddress { poly.absorb(blocksAt: base, count: whole / 16, highBit: 1) }
            guard whole < bytes.count else { return }
            // The last, partial block ends with a 1 byte and zeros, and has no 2^128 bit.
            var last = [UInt8](bytes[whole...]) + [1]
            last += [UInt8](repeating: 0, count: 16 - last.count)
            last.withUnsafeBytes { block in
                if let base = block.baseAddress { poly.absorb(blocksAt: base, count: 1, highBit: 0) }
            }
        }
        return poly.tag()
    }

    /// Absorbs `bytes` followed by zeros up to a multiple of 16 (the AEAD's pad16): each block
    /// whole, with the 2^128 bit.
    mutating func absorbPadded(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        let blocks = bytes.count / 16, rest = bytes.count % 16
        absorb(blocksAt: base, count: blocks, highBit: 1)
        guard rest > 0 else { return }
        var last: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &last) { block in
            block.baseAddress?.copyMemory(from: base + 16 * blocks, byteCount: rest)
        }
        withUnsafeBytes(of: last) { block in
            if let address = block.baseAddress { absorb(blocksAt: address, count: 1, highBit: 1) }
        }
    }

    /// Absorbs the AEAD's last block: the two lengths, little-endian.
    mutating func absorbLengths(_ first: Int, _ second: Int) {
        let lengths = (UInt64(first).littleEndian, UInt64(second).littleEndian)
        withUnsafeBytes(of: lengths) { block in
            if let address = block.baseAddress { absorb(blocksAt: address, count: 1, highBit: 1) }
        }
    }

    /// h = (h + block) · r mod 2^130 − 5, partly reduced, for each of `count` 16-byte blocks at
    /// `blocks`; `highBit` (1, or 0 for a padded last block of ``tag(for:key:)``) is bit 128.
    private mutating func absorb(blocksAt blocks: UnsafeRawPointer, count: Int, highBit: UInt64) {
        if usesC {
            let r = (r0, r1)
            withUnsafeMutableBytes(of: &h) { accumulator in
                withUnsafeBytes(of: r) { r in
                    guard let h = accumulator.bindMemory(to: UInt64.self).baseAddress, let r = r.bindMemory(to: UInt64.self).baseAddress
                    else { return }
                    ferry_poly1305_blocks(h, r, blocks, count, highBit)
                }
            }
            return
        }
        var (h0, h1, h2) = h
        let r0 = r0, r1 = r1, s1 = s1
        for index in 0..<count {
            let m0 = UInt64(littleEndian: blocks.loadUnaligned(fromByteOffset: 16 &* index, as: UInt64.self))
            let m1 = UInt64(littleEndian: blocks.loadUnaligned(fromByteOffset: 16 &* index &+ 8, as: UInt64.self))
            // h += block.
            let a0 = h0 &+ m0
            var carry = Self.carry(of: a0, adding: m0)
            let b1 = h1 &+ carry
            let carry1 = Self.carry(of: b1, adding: carry)
            let a1 = b1 &+ m1
            carry = carry1 | Self.carry(of: a1, adding: m1)
            let a2 = h2 &+ carry &+ highBit
            // d = h · r, where 2^130 ≡ 5 folds the parts above 2^128 of a1 · r1 into s1:
            // d0 = a0 r0 + a1 s1, d1 = a0 r1 + a1 r0 + a2 s1, d2 = a2 r0.
            let p00 = a0.multipliedFullWidth(by: r0), p11 = a1.multipliedFullWidth(by: s1)
            let p01 = a0.multipliedFullWidth(by: r1), p10 = a1.multipliedFullWidth(by: r0)
            let d0 = p00.low &+ p11.low
            let d0High = p00.high &+ p11.high &+ Self.carry(of: d0, adding: p11.low)
            var d1 = p01.low &+ p10.low
            var d1High = p01.high &+ p10.high &+ Self.carry(of: d1, adding: p10.low)
            let a2s1 = a2 &* s1
            d1 &+= a2s1; d1High &+= Self.carry(of: d1, adding: a2s1)
            d1 &+= d0High; d1High &+= Self.carry(of: d1, adding: d0High)
            var d2 = a2 &* r0 &+ d1High
            // Everything from bit 130 up, times 5, back into the bottom.
            carry = (d2 >> 2) &+ (d2 & ~3)
            d2 &= 3
            h0 = d0 &+ carry; carry = Self.carry(of: h0, adding: carry)
            h1 = d1 &+ carry; carry = Self.carry(of: h1, adding: carry)
            h2 = d2 &+ carry
        }
        h = (h0, h1, h2)
    }

    /// The carry out of `sum = x + addend` (mod 2^64), 0 or 1, by arithmetic alone.
    @inline(__always)
    private static func carry(of sum: UInt64, adding addend: UInt64) -> UInt64 {
        (sum ^ ((sum ^ addend) | ((sum &- addend) ^ addend))) >> 63
    }

    /// The tag: h fully reduced, plus s, mod 2^128.
    func tag() -> [UInt8] {
        let (h0, h1, h2) = h
        // g = h + 5: at or above 2^130 exactly when h ≥ p; then h − p is g's low 130 bits.
        let g0 = h0 &+ 5
        var carry = Self.carry(of: g0, adding: 5)
        let g1 = h1 &+ carry
        carry = Self.carry(of: g1, adding: carry)
        let g2 = h2 &+ carry
        let keepG = 0 &- (g2 >> 2)
        let t0 = (h0 & ~keepG) | (g0 & keepG), t1 = (h1 & ~keepG) | (g1 & keepG)
        let f0 = t0 &+ pad0
        let f1 = t1 &+ pad1 &+ Self.carry(of: f0, adding: pad0)
        return (0..<16).map { UInt8(truncatingIfNeeded: ($0 < 8 ? f0 : f1) >> UInt64(8 * ($0 % 8))) }
    }
}
