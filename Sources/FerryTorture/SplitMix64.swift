/// A small, fast, seeded random number generator (SplitMix64), so a torture run is
/// reproducible from the seed it prints.
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let n = Int.random(in: 0..<10, using: &random)
/// ```
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    /// - Parameter seed: any value; equal seeds give equal sequences.
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Whether an event of probability `percent`/100 happens.
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
}
