/// Poly1305 in five 26-bit limbs with 64-bit products, as RFC 8439 section 2.5 describes it
/// (Ferry's implementation before the radix-2^64 one): the reference the fast one is checked
/// against, in the tests only.
enum ReferencePoly1305 {
    private static let mask26: UInt64 = 0x3ff_ffff

    /// The 16-byte tag of `message` under the 32-byte one-time `key`.
    static func tag(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        let t = (0..<8).map { index in (0..<4).reduce(UInt64(0)) { $0 | UInt64(key[4 * index + $1]) << UInt64(8 * $1) } }
        let r = [t[0] & 0x3ff_ffff, (t[0] >> 26 | t[1] << 6) & 0x3ff_ff03, (t[1] >> 20 | t[2] << 12) & 0x3ff_c0ff,
                 (t[2] >> 14 | t[3] << 18) & 0x3f0_3fff, (t[3] >> 8) & 0x00f_ffff]
        var h: [UInt64] = [0, 0, 0, 0, 0]
        for start in stride(from: 0, to: message.count, by: 16) {
            var block = Array(message[start..<min(start + 16, message.count)])
            let highBit: UInt64 = block.count == 16 ? 1 << 24 : 0
            if block.count < 16 { block += [1] + [UInt8](repeating: 0, count: 15 - block.count) }
            h = absorb(block, into: h, r: r, highBit: highBit)
        }
        return finish(h, pad: Array(t[4...]))
    }

    private static func absorb(_ block: [UInt8], into h: [UInt64], r: [UInt64], highBit: UInt64) -> [UInt64] {
        let t = (0..<4).map { index in (0..<4).reduce(UInt64(0)) { $0 | UInt64(block[4 * index + $1]) << UInt64(8 * $1) } }
        let mask = mask26
        let h0 = h[0] + (t[0] & mask), h1 = h[1] + ((t[0] >> 26 | t[1] << 6) & mask), h2 = h[2] + ((t[1] >> 20 | t[2] << 12) & mask)
        let h3 = h[3] + ((t[2] >> 14 | t[3] << 18) & mask), h4 = h[4] + (t[3] >> 8 | highBit)
        let (r0, r1, r2, r3, r4) = (r[0], r[1], r[2], r[3], r[4])
        let (s1, s2, s3, s4) = (r1 * 5, r2 * 5, r3 * 5, r4 * 5)
        let d0 = h0 * r0 + h1 * s4 + h2 * s3 + h3 * s2 + h4 * s1
        var d1 = h0 * r1 + h1 * r0 + h2 * s4 + h3 * s3 + h4 * s2
        var d2 = h0 * r2 + h1 * r1 + h2 * r0 + h3 * s4 + h4 * s3
        var d3 = h0 * r3 + h1 * r2 + h2 * r1 + h3 * r0 + h4 * s4
        var d4 = h0 * r4 + h1 * r3 + h2 * r2 + h3 * r1 + h4 * r0
        var c = d0 >> 26
        var n0 = d0 & mask
        d1 += c; c = d1 >> 26; let n1 = d1 & mask
        d2 += c; c = d2 >> 26; let n2 = d2 & mask
        d3 += c; c = d3 >> 26; let n3 = d3 & mask
        d4 += c; c = d4 >> 26; let n4 = d4 & mask
        n0 += c * 5; c = n0 >> 26; n0 &= mask
        return [n0, n1 + c, n2, n3, n4]
    }

    private static func finish(_ h: [UInt64], pad: [UInt64]) -> [UInt8] {
        var (h0, h1, h2, h3, h4) = (h[0], h[1], h[2], h[3], h[4])
        let mask = mask26
        var c = h1 >> 26; h1 &= mask
        h2 += c; c = h2 >> 26; h2 &= mask
        h3 += c; c = h3 >> 26; h3 &= mask
        h4 += c; c = h4 >> 26; h4 &= mask
        h0 += c * 5; c = h0 >> 26; h0 &= mask
        h1 += c
        var g0 = h0 &+ 5; c = g0 >> 26; g0 &= mask
        var g1 = h1 &+ c; c = g1 >> 26; g1 &= mask
        var g2 = h2 &+ c; c = g2 >> 26; g2 &= mask
        var g3 = h3 &+ c; c = g3 >> 26; g3 &= mask
        var g4 = h4 &+ c &- (1 << 26)
        let keepG = (g4 >> 63) &- 1
        g0 &= keepG; g1 &= keepG; g2 &= keepG; g3 &= keepG; g4 &= keepG
        let keepH = ~keepG
        h0 = (h0 & keepH) | g0; h1 = (h1 & keepH) | g1; h2 = (h2 & keepH) | g2; h3 = (h3 & keepH) | g3; h4 = (h4 & keepH) | g4
        let words = [(h0 | h1 << 26) & 0xffff_ffff, (h1 >> 6 | h2 << 20) & 0xffff_ffff, (h2 >> 12 | h3 << 14) & 0xffff_ffff, (h3 >> 18 | h4 << 8) & 0xffff_ffff]
        var tag: [UInt8] = []
        var f: UInt64 = 0
        for index in 0..<4 {
            f = words[index] + pad[index] + (f >> 32)
            tag += (0..<4).map { UInt8(truncatingIfNeeded: f >> UInt64(8 * $0)) }
        }
        return tag
    }
}
