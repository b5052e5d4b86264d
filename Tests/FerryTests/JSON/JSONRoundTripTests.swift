import Foundation
import Testing

@testable import Ferry

/// A small, fast, seedable random number generator (Steele, Lea and Flood's SplitMix64),
/// so a failing random test can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// Random ``JSONValue``s in the normalized form the parser produces.
struct RandomJSON {
    var generator: SplitMix64

    mutating func value(depth: Int = 0) -> JSONValue {
        let kind = Int.random(in: 0..<(depth < 4 ? 8 : 6), using: &generator)
        switch kind {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(integer())
        case 3: return double()
        case 4, 5: return .string(string())
        case 6:
            return .array((0..<Int.random(in: 0...5, using: &generator)).map { _ in value(depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                members[string()] = value(depth: depth + 1)
            }
            return .object(members)
        }
    }

    mutating func integer() -> Int64 {
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: return [Int64.max, .min, 0, -1, 9_007_199_254_740_993].randomElement(using: &generator) ?? 0
        case 1: return Int64.random(in: -1000...1000, using: &generator)
        default: return Int64(bitPattern: generator.next())
        }
    }

    /// A finite double; integral ones that fit `Int64` come back as integers, as the parser
    /// reads their canonical digits.
    mutating func double() -> JSONValue {
        var value: Double
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: value = Double.random(in: -1e6...1e6, using: &generator)
        case 1: value = [0.1, 1e21, 1e-7, .leastNonzeroMagnitude, -0.0, 1.7976931348623157e308, 1e20].randomElement(using: &generator) ?? 0
        default:
            repeat { value = Double(bitPattern: generator.next()) } while !value.isFinite
        }
        if value.rounded(.towardZero) == value, let integer = Int64(exactly: value) { return .integer(integer) }
        return .number(value)
    }

    mutating func string() -> String {
        let pool: [Unicode.Scalar] = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "e", "\u{301}",
            "€", "\u{FB33}", "\u{FFFF}", "😀", "𝄞", "\u{10FFFF}",
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &generator) {
            if Bool.random(using: &generator), let element = pool.randomElement(using: &generator) {
                scalars.append(element)
            } else if let scalar = Unicode.Scalar(UInt32.random(in: 0...0x10FFFF, using: &generator)) {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }
}

@Suite struct JSONRoundTripTests {
    @Test func randomValuesSurviveCanonicalAndPrettyRoundTrips() throws {
        let seed = ProcessInfo.processInfo.environment["FERRY_TEST_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        var random = RandomJSON(generator: SplitMix64(seed: seed))
        for iteration in 0..<2_000 {
            let value = random.value()
            let canonical = value.canonicalBytes()
            let parsed: JSONValue
            do {
                parsed = try JSONParser.parse(canonical)
            } catch {
                Issue.record("seed \(seed) (FERRY_TEST_SEED), iteration \(iteration): \(error) for \(value)")
                return
            }
            #expect(parsed == value, "seed \(seed) (FERRY_TEST_SEED), iteration \(iteration)")
            #expect(parsed.canonicalBytes() == canonical, "seed \(seed), iteration \(iteration)")
            #expect((try? JSONParser.parse(value.prettyBytes())) == value, "seed \(seed), iteration \(iteration)")
            if parsed != value { return }
        }
    }

    @Test(arguments: [
        #"{"id":"r-1","n":[1,-2,3.25,1e-9,12345678901234567890],"s":"\ud83d\ude00 \u0000","o":{"":{}}}"#,
        #"[[[]],[{}],null,true,false,"",0,-0,0.5]"#,
        "\"\u{10FFFF}\u{FFFF}\u{E000}\u{D7FF}\"",
    ])
    func parseCanonicalParseIsIdentity(text: String) throws {
        let value = try JSONParser.parse(text)
        let canonical = value.canonicalBytes()
        #expect(try JSONParser.parse(canonical) == value)
        #expect(try JSONParser.parse(canonical).canonicalBytes() == canonical)
    }
}
