/// Integers modulo the order of edwards25519's base point,
/// ℓ = 2^252 + 27742317777372353535851937790883648493, as 32 little-endian bytes.
///
/// Reduction works bit by bit with a masked subtraction, so it takes the same steps whatever
/// the value: signing reduces secret nonces with it.
enum Scalar25519 {
    /// ℓ in four little-endian 64-bit words.
    static let order: [UInt64] = [0x5812_631a_5cf5_d3ed, 0x14de_f9de_a2f7_9cd6, 0, 0x1000_0000_0000_0000]

    /// Whether the 32 bytes are an integer below ℓ (a signature's S must be: RFC 8032 5.1.7).
    static func isCanonical(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 32 else { return false }
        let words = Self.words(of: bytes)
        for index in (0..<4).reversed() where words[index] != order[index] {
            return words[index] < order[index]
        }
        return false
    }

    /// `bytes` (any length, little-endian) modulo ℓ.
    static func reduced(_ bytes: [UInt8]) -> [UInt8] {
        reduce(words(of: bytes))
    }

    /// (a·b + c) mod ℓ, for 32-byte a, b and c.
    static func multiplyAdd(_ a: [UInt8], _ b: [UInt8], _ c: [UInt8]) -> [UInt8] {
        let x = words(of: a), y = words(of: b)
        var product = [UInt64](repeating: 0, count: 9)
        for i in 0..<4 {
            var carry: UInt64 = 0
            for j in 0..<4 {
                let (high, low) = x[i].multipliedFullWidth(by: y[j])
                let (sum1, overflow1) = product[i + j].addingReportingOverflow(low)
                let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
                product[i + j] = sum2
                carry = high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0)
            }
            product[i + 4] = carry
        }
        var carry: UInt64 = 0
        let addend = words(of: c) + [0, 0, 0, 0]
        for index in 0..<8 {
            let (sum1, overflow1) = product[index].addingReportingOverflow(addend[index])
            let (sum2, overflow2) = sum1.addingReportingOverflow(carry)
            product[index] = sum2
            carry = (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0)
        }
        product[8] = carry
        return reduce(product)
    }

    /// Little-endian 64-bit words of little-endian bytes (at least four words).
    private static func words(of bytes: [UInt8]) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: max(4, (bytes.count + 7) / 8))
        for (index, byte) in bytes.enumerated() {
            words[index / 8] |= UInt64(byte) << UInt64(8 * (index % 8))
        }
        return words
    }

    /// The words' value modulo ℓ: for each bit from the top, r = 2r + bit, then r − ℓ
    /// replaces r when it does not borrow (r stays below ℓ < 2^253, so 2r + 1 fits 256 bits).
    private static func reduce(_ value: [UInt64]) -> [UInt8] {
        var r: [UInt64] = [0, 0, 0, 0]
        for bit in (0..<(value.count * 64)).reversed() {
            let incoming = value[bit / 64] >> UInt64(bit % 64) & 1
            r[3] = r[3] << 1 | r[2] >> 63
            r[2] = r[2] << 1 | r[1] >> 63
            r[1] = r[1] << 1 | r[0] >> 63
            r[0] = r[0] << 1 | incoming
            var difference: [UInt64] = [0, 0, 0, 0]
            var borrow: UInt64 = 0
            for index in 0..<4 {
                let (step1, borrow1) = r[index].subtractingReportingOverflow(order[index])
                let (step2, borrow2) = step1.subtractingReportingOverflow(borrow)
                difference[index] = step2
                borrow = (borrow1 ? 1 : 0) | (borrow2 ? 1 : 0)
            }
            // Keep the difference when there was no borrow (r ≥ ℓ).
            let keep = borrow &- 1
            for index in 0..<4 { r[index] = (difference[index] & keep) | (r[index] & ~keep) }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for word in r {
            for shift in stride(from: UInt64(0), to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return bytes
    }
}
