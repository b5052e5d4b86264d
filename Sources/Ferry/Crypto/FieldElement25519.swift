/// An element of the field of integers modulo p = 2^255 − 19, where Curve25519 and
/// edwards25519 live: five 51-bit limbs, little-endian.
///
/// Every operation runs in time independent of the values (no branch and no table index
/// depends on them): signing multiplies secret scalars with these.
///
/// Limbs may exceed 51 bits between operations. The bounds this file keeps: the results of
/// ``*(_:_:)``, ``-(_:_:)`` and ``reduced()`` have limbs below 2^52; ``+(_:_:)`` of two such
/// is below 2^53, and ``*(_:_:)`` accepts limbs below 2^54.
struct FieldElement25519: Sendable {
    var limbs: (UInt64, UInt64, UInt64, UInt64, UInt64)

    static let mask51: UInt64 = (1 << 51) - 1

    init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64, _ l4: UInt64) {
        limbs = (l0, l1, l2, l3, l4)
    }

    static let zero = FieldElement25519(0, 0, 0, 0, 0)
    static let one = FieldElement25519(1, 0, 0, 0, 0)

    /// A small integer.
    init(_ value: UInt64) {
        self.init(value & Self.mask51, value >> 51, 0, 0, 0)
    }

    /// The element whose little-endian encoding is `bytes` (32 bytes), ignoring the top bit;
    /// values from p to 2^255 − 1 are taken modulo p (see ``isCanonicalEncoding(_:)``).
    init(bytes: some Collection<UInt8>) {
        var words: [UInt64] = [0, 0, 0, 0]
        for (index, byte) in bytes.prefix(32).enumerated() {
            words[index / 8] |= UInt64(byte) << UInt64(8 * (index % 8))
        }
        let mask = Self.mask51
        self.init(
            words[0] & mask,
            (words[0] >> 51 | words[1] << 13) & mask,
            (words[1] >> 38 | words[2] << 26) & mask,
            (words[2] >> 25 | words[3] << 39) & mask,
            (words[3] >> 12) & mask)
    }

    /// Whether the 32 bytes, less their top bit, are an integer below p (the only encoding
    /// RFC 8032 accepts).
    static func isCanonicalEncoding(_ bytes: [UInt8]) -> Bool {
        var masked = bytes
        masked[31] &= 0x7f
        return FieldElement25519(bytes: masked).encoded() == masked
    }

    /// The canonical 32-byte little-endian encoding (fully reduced below p).
    func encoded() -> [UInt8] {
        let reduced = self.reduced()
        var (l0, l1, l2, l3, l4) = reduced.limbs
        // q is 1 when the value is p or more (it is below 2p here), else 0.
        var q = (l0 &+ 19) >> 51
        q = (l1 &+ q) >> 51
        q = (l2 &+ q) >> 51
        q = (l3 &+ q) >> 51
        q = (l4 &+ q) >> 51
        l0 &+= 19 &* q
        l1 &+= l0 >> 51
        l0 &= Self.mask51
        l2 &+= l1 >> 51
        l1 &= Self.mask51
        l3 &+= l2 >> 51
        l2 &= Self.mask51
        l4 &+= l3 >> 51
        l3 &= Self.mask51
        l4 &= Self.mask51
        let words = [l0 | l1 << 51, l1 >> 13 | l2 << 38, l2 >> 26 | l3 << 25, l3 >> 39 | l4 << 12]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for word in words {
            for shift in stride(from: UInt64(0), to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return bytes
    }

    /// Whether the element is zero (in constant time over its encoding).
    var isZero: Bool {
        encoded().reduce(0, |) == 0
    }

    /// Whether the canonical encoding is odd ("negative" in RFC 8032's terms).
    var isNegative: Bool {
        encoded()[0] & 1 == 1
    }

    /// The same value with every limb below 2^51 + 2^13 (carries propagated once around).
    func reduced() -> FieldElement25519 {
        var (l0, l1, l2, l3, l4) = limbs
        let mask = Self.mask51
        let c0 = l0 >> 51, c1 = l1 >> 51, c2 = l2 >> 51, c3 = l3 >> 51, c4 = l4 >> 51
        l0 = (l0 & mask) &+ c4 &* 19
        l1 = (l1 & mask) &+ c0
        l2 = (l2 & mask) &+ c1
        l3 = (l3 & mask) &+ c2
        l4 = (l4 & mask) &+ c3
        return FieldElement25519(l0, l1, l2, l3, l4)
    }

    static func + (a: FieldElement25519, b: FieldElement25519) -> FieldElement25519 {
        FieldElement25519(
            a.limbs.0 &+ b.limbs.0, a.limbs.1 &+ b.limbs.1, a.limbs.2 &+ b.limbs.2,
            a.limbs.3 &+ b.limbs.3, a.limbs.4 &+ b.limbs.4)
    }

    /// a − b, as a + 16p − b (each limb of b below 2^55), reduced.
    static func - (a: FieldElement25519, b: FieldElement25519) -> FieldElement25519 {
        let low: UInt64 = 36_028_797_018_963_664  // 16 · (2^51 − 19)
        let high: UInt64 = 36_028_797_018_963_952  // 16 · (2^51 − 1)
        return FieldElement25519(
            (a.limbs.0 &+ low) &- b.limbs.0, (a.limbs.1 &+ high) &- b.limbs.1, (a.limbs.2 &+ high) &- b.limbs.2,
            (a.limbs.3 &+ high) &- b.limbs.3, (a.limbs.4 &+ high) &- b.limbs.4
        ).reduced()
    }

    static prefix func - (a: FieldElement25519) -> FieldElement25519 {
        zero - a
    }

    static func * (a: FieldElement25519, b: FieldElement25519) -> FieldElement25519 {
        let (a0, a1, a2, a3, a4) = a.limbs
        let (b0, b1, b2, b3, b4) = b.limbs
        let (b1x19, b2x19, b3x19, b4x19) = (b1 &* 19, b2 &* 19, b3 &* 19, b4 &* 19)
        let r0 = Wide(a0, b0) + Wide(a1, b4x19) + Wide(a2, b3x19) + Wide(a3, b2x19) + Wide(a4, b1x19)
        var r1 = Wide(a0, b1) + Wide(a1, b0) + Wide(a2, b4x19) + Wide(a3, b3x19) + Wide(a4, b2x19)
        var r2 = Wide(a0, b2) + Wide(a1, b1) + Wide(a2, b0) + Wide(a3, b4x19) + Wide(a4, b3x19)
        var r3 = Wide(a0, b3) + Wide(a1, b2) + Wide(a2, b1) + Wide(a3, b0) + Wide(a4, b4x19)
        var r4 = Wide(a0, b4) + Wide(a1, b3) + Wide(a2, b2) + Wide(a3, b1) + Wide(a4, b0)
        // With limbs below 2^54 each sum is below 2^115, so each carry fits 64 bits, and r4
        // (no factor 19) is below 2^111, so 19 times its carry does too.
        r1.add(r0.shiftedRight51)
        r2.add(r1.shiftedRight51)
        r3.add(r2.shiftedRight51)
        r4.add(r3.shiftedRight51)
        let mask = Self.mask51
        var l0 = (r0.low & mask) &+ r4.shiftedRight51 &* 19
        var l1 = r1.low & mask
        l1 &+= l0 >> 51
        l0 &= mask
        return FieldElement25519(l0, l1, r2.low & mask, r3.low & mask, r4.low & mask)
    }

    func squared() -> FieldElement25519 {
        self * self
    }

    /// self^(2^count), by `count` squarings.
    func squared(times count: Int) -> FieldElement25519 {
        var result = self
        for _ in 0..<count { result = result * result }
        return result
    }

    /// (self^(2^250 − 1), self^11): the common start of inversion and square roots.
    private func power22501() -> (FieldElement25519, FieldElement25519) {
        let t0 = squared()                      // 2
        let t1 = t0.squared(times: 2)           // 8
        let t2 = self * t1                      // 9
        let t3 = t0 * t2                        // 11
        let t4 = t3.squared()                   // 22
        let t5 = t2 * t4                        // 2^5 − 1
        let t7 = t5.squared(times: 5) * t5      // 2^10 − 1
        let t9 = t7.squared(times: 10) * t7     // 2^20 − 1
        let t11 = t9.squared(times: 20) * t9    // 2^40 − 1
        let t13 = t11.squared(times: 10) * t7   // 2^50 − 1
        let t15 = t13.squared(times: 50) * t13  // 2^100 − 1
        let t17 = t15.squared(times: 100) * t15 // 2^200 − 1
        let t19 = t17.squared(times: 50) * t13  // 2^250 − 1
        return (t19, t3)
    }

    /// The multiplicative inverse, self^(p − 2) (zero for zero).
    func inverted() -> FieldElement25519 {
        let (t19, t3) = power22501()
        return t19.squared(times: 5) * t3       // 2^255 − 21 = p − 2
    }

    /// self^((p − 5) / 8) = self^(2^252 − 3), the heart of a square root.
    func powerPMinus5Over8() -> FieldElement25519 {
        let (t19, _) = power22501()
        return t19.squared(times: 2) * self
    }

    /// `a` when `choice` is 1, `b` when it is 0, with no branch on `choice`.
    static func select(_ a: FieldElement25519, _ b: FieldElement25519, choice: UInt64) -> FieldElement25519 {
        let mask = 0 &- choice
        return FieldElement25519(
            b.limbs.0 ^ (mask & (a.limbs.0 ^ b.limbs.0)), b.limbs.1 ^ (mask & (a.limbs.1 ^ b.limbs.1)),
            b.limbs.2 ^ (mask & (a.limbs.2 ^ b.limbs.2)), b.limbs.3 ^ (mask & (a.limbs.3 ^ b.limbs.3)),
            b.limbs.4 ^ (mask & (a.limbs.4 ^ b.limbs.4)))
    }

    /// Whether two elements are equal (compared over their canonical encodings).
    func equals(_ other: FieldElement25519) -> Bool {
        var difference: UInt8 = 0
        for (x, y) in zip(encoded(), other.encoded()) { difference |= x ^ y }
        return difference == 0
    }
}

/// A 128-bit unsigned sum of 64-bit products, for ``FieldElement25519`` multiplication.
private struct Wide {
    var high: UInt64
    var low: UInt64

    @inline(__always)
    init(_ a: UInt64, _ b: UInt64) {
        (high, low) = a.multipliedFullWidth(by: b)
    }

    @inline(__always)
    static func + (x: Wide, y: Wide) -> Wide {
        var sum = x
        let (low, carry) = x.low.addingReportingOverflow(y.low)
        sum.low = low
        sum.high = x.high &+ y.high &+ (carry ? 1 : 0)
        return sum
    }

    @inline(__always)
    mutating func add(_ value: UInt64) {
        let (sum, carry) = low.addingReportingOverflow(value)
        low = sum
        high &+= carry ? 1 : 0
    }

    /// The value shifted right by 51 bits, as 64 bits (callers keep it below 2^115).
    @inline(__always)
    var shiftedRight51: UInt64 {
        high << 13 | low >> 51
    }
}
