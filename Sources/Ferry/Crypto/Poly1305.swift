import Foundation

/// The Poly1305 one-time authenticator (RFC 8439 section 2.5), in 26-bit limbs with 64-bit
/// products; the same steps whatever the key and message.
struct Poly1305 {
    private var r: (UInt64, UInt64, UInt64, UInt64, UInt64)
    private var h: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
    private let pad: (UInt64, UInt64, UInt64, UInt64)
    /// Bytes of an incomplete block, waiting for more input.
    private var pending: [UInt8] = []

    private static let mask26: UInt64 = 0x3ff_ffff

    /// An authenticator with the 32-byte one-time key (r, clamped, then s).
    init(key: [UInt8]) {
        let t = ChaCha20.words(key, count: 8).map(UInt64.init)
        r = (t[0] & 0x3ff_ffff, (t[0] >> 26 | t[1] << 6) & 0x3ff_ff03, (t[1] >> 20 | t[2] << 12) & 0x3ff_c0ff,
             (t[2] >> 14 | t[3] << 18) & 0x3f0_3fff, (t[3] >> 8) & 0x00f_ffff)
        pad = (t[4], t[5], t[6], t[7])
    }

    /// The 16-byte tag of `message` under `key`.
    static func tag(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        var poly = Poly1305(key: key)
        poly.update(message)
        return poly.finalize()
    }

    mutating func update(_ bytes: [UInt8]) {
        var offset = 0
        if !pending.isEmpty {
            let taken = min(16 - pending.count, bytes.count)
            pending += bytes[0..<taken]
            offset = taken
            guard pending.count == 16 else { return }
            absorb(blocksOf: pending, highBit: 1 << 24)
            pending.removeAll(keepingCapacity: true)
        }
        let whole = (bytes.count - offset) / 16 * 16
        absorb(blocksOf: bytes[offset..<(offset + whole)], highBit: 1 << 24)
        pending += bytes[(offset + whole)...]
    }

    /// The tag; the authenticator is spent afterwards.
    mutating func finalize() -> [UInt8] {
        if !pending.isEmpty {
            var last = pending + [1]
            last += [UInt8](repeating: 0, count: 16 - last.count)
            absorb(blocksOf: last, highBit: 0)
        }
        var (h0, h1, h2, h3, h4) = h
        let mask = Self.mask26
        var c = h1 >> 26; h1 &= mask
        h2 += c; c = h2 >> 26; h2 &= mask
        h3 += c; c = h3 >> 26; h3 &= mask
        h4 += c; c = h4 >> 26; h4 &= mask
        h0 += c * 5; c = h0 >> 26; h0 &= mask
        h1 += c
        // g = h + 5 − 2^130: h itself when that borrows (h < p), else g.
        var g0 = h0 &+ 5; c = g0 >> 26; g0 &= mask
        var g1 = h1 &+ c; c = g1 >> 26; g1 &= mask
        var g2 = h2 &+ c; c = g2 >> 26; g2 &= mask
        var g3 = h3 &+ c; c = g3 >> 26; g3 &= mask
        var g4 = h4 &+ c &- (1 << 26)
        let keepG = (g4 >> 63) &- 1
        g0 &= keepG; g1 &= keepG; g2 &= keepG; g3 &= keepG; g4 &= keepG
        let keepH = ~keepG
        h0 = (h0 & keepH) | g0; h1 = (h1 & keepH) | g1; h2 = (h2 & keepH) | g2; h3 = (h3 & keepH) | g3; h4 = (h4 & keepH) | g4
        // h mod 2^128 in 32-bit words, plus s.
        let w0 = (h0 | h1 << 26) & 0xffff_ffff
        let w1 = (h1 >> 6 | h2 << 20) & 0xffff_ffff
        let w2 = (h2 >> 12 | h3 << 14) & 0xffff_ffff
        let w3 = (h3 >> 18 | h4 << 8) & 0xffff_ffff
        var f = w0 + pad.0
        var tag: [UInt8] = []
        for (word, padWord) in [(w1, pad.1), (w2, pad.2), (w3, pad.3), (0, 0)] {
            tag += (0..<4).map { UInt8(truncatingIfNeeded: f >> UInt64(8 * $0)) }
            f = word + padWord + (f >> 32)
        }
        return Array(tag.prefix(16))
    }

    /// Absorbs each 16-byte block of `bytes` (a multiple of 16 bytes long).
    private mutating func absorb(blocksOf bytes: some ContiguousBytes, highBit: UInt64) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            for offset in stride(from: 0, to: buffer.count - 15, by: 16) { absorb(base + offset, highBit: highBit) }
        }
    }

    /// h = (h + block) · r mod 2^130 − 5, for the 16 bytes at `block`.
    private mutating func absorb(_ block: UnsafeRawPointer, highBit: UInt64) {
        let t0 = UInt64(UInt32(littleEndian: block.loadUnaligned(as: UInt32.self)))
        let t1 = UInt64(UInt32(littleEndian: block.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
        let t2 = UInt64(UInt32(littleEndian: block.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
        let t3 = UInt64(UInt32(littleEndian: block.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
        let mask = Self.mask26
        let h0 = h.0 + (t0 & mask)
        let h1 = h.1 + ((t0 >> 26 | t1 << 6) & mask)
        let h2 = h.2 + ((t1 >> 20 | t2 << 12) & mask)
        let h3 = h.3 + ((t2 >> 14 | t3 << 18) & mask)
        let h4 = h.4 + (t3 >> 8 | highBit)
        let (r0, r1, r2, r3, r4) = r
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
        h = (n0, n1 + c, n2, n3, n4)
    }
}
