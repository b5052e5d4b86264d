/// A point of edwards25519 (−x² + y² = 1 + d·x²·y²), in extended coordinates
/// (X : Y : Z : T) with x = X/Z, y = Y/Z, x·y = T/Z, as RFC 8032 section 5.1.4 computes.
struct EdwardsPoint25519: Sendable {
    var x: FieldElement25519
    var y: FieldElement25519
    var z: FieldElement25519
    var t: FieldElement25519

    /// The neutral element (0, 1).
    static let identity = EdwardsPoint25519(x: .zero, y: .one, z: .one, t: .zero)

    /// d = −121665 / 121666.
    static let d: FieldElement25519 = -FieldElement25519(121_665) * FieldElement25519(121_666).inverted()
    static let d2: FieldElement25519 = d + d

    /// √−1 = 2^((p − 1) / 4).
    static let squareRootOfMinusOne: FieldElement25519 = {
        // (p − 1) / 4 = 2^253 − 5: square-and-multiply over its bits, most significant first.
        var result = FieldElement25519.one
        let two = FieldElement25519(2)
        for bit in (0..<253).reversed() {
            result = result.squared()
            // 2^253 − 5 has every bit from 0 to 252 set except bit 2.
            if bit != 2 { result = result * two }
        }
        return result
    }()

    /// The base point B: y = 4/5, x even.
    static let base: EdwardsPoint25519 = {
        let y = FieldElement25519(4) * FieldElement25519(5).inverted()
        // Always decodes: B is on the curve.
        return EdwardsPoint25519(decoding: y.encoded()) ?? .identity
    }()

    /// Decodes a 32-byte point encoding (RFC 8032 section 5.1.3); `nil` when y is not below p,
    /// when no x satisfies the curve equation, or for x = 0 with the sign bit set.
    init?(decoding bytes: [UInt8]) {
        guard bytes.count == 32, FieldElement25519.isCanonicalEncoding(bytes) else { return nil }
        let sign = bytes[31] >> 7
        let y = FieldElement25519(bytes: bytes)
        let y2 = y.squared()
        let u = y2 - .one
        let v = Self.d * y2 + .one
        // x = u·v³·(u·v⁷)^((p − 5) / 8)
        let v3 = v.squared() * v
        let v7 = v3.squared() * v
        var x = u * v3 * (u * v7).powerPMinus5Over8()
        let vx2 = v * x.squared()
        if vx2.equals(u) {
            // x is a root.
        } else if vx2.equals(-u) {
            x = x * Self.squareRootOfMinusOne
        } else {
            return nil
        }
        if x.isZero && sign == 1 { return nil }
        if (x.isNegative ? 1 : 0) != sign { x = -x }
        self.init(x: x, y: y, z: .one, t: x * y)
    }

    init(x: FieldElement25519, y: FieldElement25519, z: FieldElement25519, t: FieldElement25519) {
        self.x = x
        self.y = y
        self.z = z
        self.t = t
    }

    /// The 32-byte encoding: y, with x's sign in the top bit.
    func encoded() -> [UInt8] {
        let inverse = z.inverted()
        let affineX = x * inverse
        var bytes = (y * inverse).encoded()
        bytes[31] |= (affineX.isNegative ? 1 : 0) << 7
        return bytes
    }

    static func + (p: EdwardsPoint25519, q: EdwardsPoint25519) -> EdwardsPoint25519 {
        let a = (p.y - p.x) * (q.y - q.x)
        let b = (p.y + p.x) * (q.y + q.x)
        let c = p.t * d2 * q.t
        let zz = p.z * q.z
        let dd = zz + zz
        let e = b - a
        let f = dd - c
        let g = dd + c
        let h = b + a
        return EdwardsPoint25519(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    func doubled() -> EdwardsPoint25519 {
        let a = x.squared()
        let b = y.squared()
        let zz = z.squared()
        let c = zz + zz
        let h = a + b
        let e = h - (x + y).squared()
        let g = a - b
        let f = c + g
        return EdwardsPoint25519(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    static prefix func - (p: EdwardsPoint25519) -> EdwardsPoint25519 {
        EdwardsPoint25519(x: -p.x, y: p.y, z: p.z, t: -p.t)
    }

    /// `a` when `choice` is 1, `b` when it is 0, with no branch on `choice`.
    static func select(_ a: EdwardsPoint25519, _ b: EdwardsPoint25519, choice: UInt64) -> EdwardsPoint25519 {
        EdwardsPoint25519(
            x: .select(a.x, b.x, choice: choice), y: .select(a.y, b.y, choice: choice),
            z: .select(a.z, b.z, choice: choice), t: .select(a.t, b.t, choice: choice))
    }

    /// [scalar]·self for a secret scalar (32 little-endian bytes): the same doublings,
    /// additions and selections whatever its bits.
    func multiplied(bySecret scalar: [UInt8]) -> EdwardsPoint25519 {
        var result = EdwardsPoint25519.identity
        for bit in (0..<256).reversed() {
            result = result.doubled()
            let sum = result + self
            let choice = UInt64(scalar[bit / 8] >> UInt8(bit % 8) & 1)
            result = .select(sum, result, choice: choice)
        }
        return result
    }

    /// [a]·B + [b]·point for public scalars (a signature check): variable time.
    static func publicCombination(baseScalar a: [UInt8], point: EdwardsPoint25519, scalar b: [UInt8]) -> EdwardsPoint25519 {
        var result = EdwardsPoint25519.identity
        let both = base + point
        for bit in (0..<256).reversed() {
            result = result.doubled()
            let takeBase = a[bit / 8] >> UInt8(bit % 8) & 1 == 1
            let takePoint = b[bit / 8] >> UInt8(bit % 8) & 1 == 1
            switch (takeBase, takePoint) {
            case (true, true): result = result + both
            case (true, false): result = result + base
            case (false, true): result = result + point
            case (false, false): break
            }
        }
        return result
    }
}
