import Ferry
import Foundation

/// Seeded random ``JSONValue``s for property tests: the same seed always gives the same values,
/// so a failure can be replayed by setting `FERRY_TEST_SEED`.
///
/// Values come in the normalized form the parser produces (an integral double that fits
/// `Int64` is an integer), so `parse(canonical(value)) == value` must hold for every one.
///
/// ```swift
/// var random = RandomJSONValues(seed: RandomJSONValues.seedFromEnvironment())
/// let value = random.value()
/// #expect(try JSONParser.parse(value.canonicalBytes()) == value, "seed \(random.seed)")
/// ```
public struct RandomJSONValues {
    /// Steele, Lea and Flood's SplitMix64: small, fast and seedable.
    public struct SplitMix64: RandomNumberGenerator {
        private var state: UInt64

        /// Makes a generator whose whole output is determined by `seed`.
        public init(seed: UInt64) { state = seed }

        /// The next 64 random bits.
        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }

    /// The seed the values come from; print it when a test fails.
    public let seed: UInt64
    /// The generator, for drawing other random things from the same seed.
    public var generator: SplitMix64

    /// Makes a source of values determined by `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        generator = SplitMix64(seed: seed)
    }

    /// `FERRY_TEST_SEED` from the environment when set, otherwise a fresh random seed.
    public static func seedFromEnvironment() -> UInt64 {
        ProcessInfo.processInfo.environment["FERRY_TEST_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
    }

    /// A random value nested at most `maximumDepth` containers deep.
    public mutating func value(maximumDepth: Int = 4) -> JSONValue {
        switch Int.random(in: 0..<(maximumDepth > 0 ? 8 : 6), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(integer())
        case 3: return number()
        case 4, 5: return .string(string())
        case 6:
            let count = Int.random(in: 0...5, using: &generator)
            return .array((0..<count).map { _ in value(maximumDepth: maximumDepth - 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                members[string()] = value(maximumDepth: maximumDepth - 1)
            }
            return .object(members)
        }
    }

    /// A random integer, often at or near the edges of `Int64`.
    public mutating func integer() -> Int64 {
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: return [Int64.max, .min, 0, -1, 9_007_199_254_740_993].randomElement(using: &generator) ?? 0
        case 1: return Int64.random(in: -1000...1000, using: &generator)
        default: return Int64(bitPattern: generator.next())
        }
    }

    /// A random finite number, normalized as the parser would read its canonical digits.
    public mutating func number() -> JSONValue {
        var value: Double
        switch Int.random(in: 0..<3, using: &generator) {
        case 0:
            value = Double.random(in: -1e6...1e6, using: &generator)
        case 1:
            let edges = [0.1, 1e21, 1e20, 1e-7, .leastNonzeroMagnitude, -0.0, .greatestFiniteMagnitude, 1e18]
            value = edges.randomElement(using: &generator) ?? 0
        default:
            repeat { value = Double(bitPattern: generator.next()) } while !value.isFinite
        }
        if value.rounded(.towardZero) == value, let integer = Int64(exactly: value) { return .integer(integer) }
        return .number(value)
    }

    /// A random string of up to 12 scalars, favoring the ones that need care: quotes,
    /// backslashes, control characters, combining marks, non-BMP characters.
    public mutating func string() -> String {
        let tricky: [Unicode.Scalar] = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "e", "\u{301}",
            "€", "\u{FB33}", "\u{FFFF}", "😀", "𝄞", "\u{10FFFF}",
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &generator) {
            if Bool.random(using: &generator), let scalar = tricky.randomElement(using: &generator) {
                scalars.append(scalar)
            } else if let scalar = Unicode.Scalar(UInt32.random(in: 0...0x10FFFF, using: &generator)) {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }
}
