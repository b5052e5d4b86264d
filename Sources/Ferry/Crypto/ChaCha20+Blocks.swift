/// The rounds: one block on 16 scalar words (HChaCha20 and the Poly1305 key), and four blocks at
/// once in four-lane vectors, one block per lane, so that each quarter-round is four.
extension ChaCha20 {
    private typealias Lanes = SIMD4<UInt32>

    /// XORs 256 bytes at `source` into `destination` (which may be `source`) with the four
    /// blocks of keystream that start at `state`'s counter.
    static func xorFourBlocks(_ state: SIMD16<UInt32>, from source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer) {
        let i0 = Lanes(repeating: state[0]), i1 = Lanes(repeating: state[1]), i2 = Lanes(repeating: state[2])
        let i3 = Lanes(repeating: state[3]), i4 = Lanes(repeating: state[4]), i5 = Lanes(repeating: state[5])
        let i6 = Lanes(repeating: state[6]), i7 = Lanes(repeating: state[7]), i8 = Lanes(repeating: state[8])
        let i9 = Lanes(repeating: state[9]), i10 = Lanes(repeating: state[10]), i11 = Lanes(repeating: state[11])
        let i12 = Lanes(repeating: state[12]) &+ Lanes(0, 1, 2, 3), i13 = Lanes(repeating: state[13])
        let i14 = Lanes(repeating: state[14]), i15 = Lanes(repeating: state[15])
        var x0 = i0, x1 = i1, x2 = i2, x3 = i3, x4 = i4, x5 = i5, x6 = i6, x7 = i7
        var x8 = i8, x9 = i9, x10 = i10, x11 = i11, x12 = i12, x13 = i13, x14 = i14, x15 = i15
        for _ in 0..<10 {
            quarterRound(&x0, &x4, &x8, &x12); quarterRound(&x1, &x5, &x9, &x13)
            quarterRound(&x2, &x6, &x10, &x14); quarterRound(&x3, &x7, &x11, &x15)
            quarterRound(&x0, &x5, &x10, &x15); quarterRound(&x1, &x6, &x11, &x12)
            quarterRound(&x2, &x7, &x8, &x13); quarterRound(&x3, &x4, &x9, &x14)
        }
        x0 &+= i0; x1 &+= i1; x2 &+= i2; x3 &+= i3; x4 &+= i4; x5 &+= i5; x6 &+= i6; x7 &+= i7
        x8 &+= i8; x9 &+= i9; x10 &+= i10; x11 &+= i11; x12 &+= i12; x13 &+= i13; x14 &+= i14; x15 &+= i15
        for lane in 0..<4 {
            let block = 64 * lane
            xor(lane, of: x0, x1, x2, x3, from: source, into: destination, at: block)
            xor(lane, of: x4, x5, x6, x7, from: source, into: destination, at: block + 16)
            xor(lane, of: x8, x9, x10, x11, from: source, into: destination, at: block + 32)
            xor(lane, of: x12, x13, x14, x15, from: source, into: destination, at: block + 48)
        }
    }

    /// XORs the 16 bytes at `offset` with words a, b, c, d of the block in `lane`.
    @inline(__always)
    private static func xor(
        _ lane: Int, of a: Lanes, _ b: Lanes, _ c: Lanes, _ d: Lanes,
        from source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer, at offset: Int
    ) {
        // Keystream words are serialized little-endian (a no-op on little-endian processors).
        let keystream = Lanes(a[lane].littleEndian, b[lane].littleEndian, c[lane].littleEndian, d[lane].littleEndian)
        let data = source.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
        destination.storeBytes(of: data ^ keystream, toByteOffset: offset, as: Lanes.self)
    }

    @inline(__always)
    private static func quarterRound(_ a: inout Lanes, _ b: inout Lanes, _ c: inout Lanes, _ d: inout Lanes) {
        a &+= b; d ^= a; d = rotated(d, by: 16)
        c &+= d; b ^= c; b = rotated(b, by: 12)
        a &+= b; d ^= a; d = rotated(d, by: 8)
        c &+= d; b ^= c; b = rotated(b, by: 7)
    }

    /// Each lane rotated left. The two halves are added, not OR-ed (they do not overlap, so the
    /// sum is the same): LLVM reads `<< | >>` as a rotate, which SSE2 lacks, and then does it
    /// one lane at a time, four times slower.
    @inline(__always)
    private static func rotated(_ lanes: Lanes, by count: UInt32) -> Lanes {
        (lanes &<< count) &+ (lanes &>> (32 - count))
    }

    /// The 20 rounds on 16 words: ten column rounds, each followed by a diagonal round.
    static func doubleRounds(_ state: SIMD16<UInt32>) -> SIMD16<UInt32> {
        var x = state
        for _ in 0..<10 {
            quarterRound(&x, 0, 4, 8, 12); quarterRound(&x, 1, 5, 9, 13); quarterRound(&x, 2, 6, 10, 14); quarterRound(&x, 3, 7, 11, 15)
            quarterRound(&x, 0, 5, 10, 15); quarterRound(&x, 1, 6, 11, 12); quarterRound(&x, 2, 7, 8, 13); quarterRound(&x, 3, 4, 9, 14)
        }
        return x
    }

    @inline(__always)
    private static func quarterRound(_ x: inout SIMD16<UInt32>, _ a: Int, _ b: Int, _ c: Int, _ d: Int) {
        x[a] &+= x[b]; x[d] ^= x[a]; x[d] = x[d] << 16 | x[d] >> 16
        x[c] &+= x[d]; x[b] ^= x[c]; x[b] = x[b] << 12 | x[b] >> 20
        x[a] &+= x[b]; x[d] ^= x[a]; x[d] = x[d] << 8 | x[d] >> 24
        x[c] &+= x[d]; x[b] ^= x[c]; x[b] = x[b] << 7 | x[b] >> 25
    }
}
