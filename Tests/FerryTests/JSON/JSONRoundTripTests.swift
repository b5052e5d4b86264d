import FerryTestSupport
import Testing

@testable import Ferry

@Suite struct JSONRoundTripTests {
    @Test func randomValuesSurviveCanonicalAndPrettyRoundTrips() throws {
        var random = RandomJSONValues(seed: RandomJSONValues.seedFromEnvironment())
        let seed = random.seed
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

    @Test func damagedDocumentsAreRejectedOrReadConsistently() {
        var random = RandomJSONValues(seed: RandomJSONValues.seedFromEnvironment())
        let seed = random.seed
        let damage: [UInt8] = Array(#"{}[]",:\/"0-+.eE \#n"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xF4, 0xFF]
        for iteration in 0..<3_000 {
            var bytes = random.value().prettyBytes()
            for _ in 0..<Int.random(in: 1...3, using: &random.generator) {
                let position = Int.random(in: 0..<bytes.count, using: &random.generator)
                let byte = damage.randomElement(using: &random.generator) ?? 0
                switch Int.random(in: 0..<3, using: &random.generator) {
                case 0: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: bytes.remove(at: position)
                }
                if bytes.isEmpty { bytes = [byte] }
            }
            // Whatever the damage, the parser must either refuse with a position inside the
            // document or return a value that survives its own canonical round trip.
            do {
                let value = try JSONParser.parse(bytes)
                #expect((try? JSONParser.parse(value.canonicalBytes())) == value, "seed \(seed), iteration \(iteration)")
            } catch {
                #expect(error.line >= 1 && error.column >= 1 && !error.reason.isEmpty, "seed \(seed), iteration \(iteration)")
            }
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
