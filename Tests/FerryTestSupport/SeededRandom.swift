import Foundation

/// A seeded random number generator (SplitMix64) for reproducible randomized tests.
///
/// ```swift
/// let seed = SeededRandom.seed(from: "FERRY_CONVERGENCE_SEED", default: 1)
/// var random = SeededRandom(seed: seed)
/// let n = Int.random(in: 0..<10, using: &random)
/// ```
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// - Parameter seed: any value; equal seeds give equal sequences.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Whether an event of probability `percent`/100 happens.
    public mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }

    /// The unsigned integer in environment variable `name`, else `fallback`.
    public static func environmentNumber(_ name: String, default fallback: UInt64) -> UInt64 {
        guard let text = ProcessInfo.processInfo.environment[name], let value = UInt64(text) else { return fallback }
        return value
    }
}
