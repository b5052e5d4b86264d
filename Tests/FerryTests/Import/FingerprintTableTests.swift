import FerryTestSupport
import Testing

@testable import Ferry

/// The ledger's table of fingerprints: every entry found with the union of its flags, through
/// growth, with collisions in the probe sequence and fingerprints whose only difference is in
/// the flag bits.
@Suite struct FingerprintTableTests {
    @Test func entriesKeepTheirFlagsThroughGrowth() {
        var table = FingerprintTable(capacity: 4)
        var generator = RandomJSONValues.SplitMix64(seed: 7)
        let fingerprints = (0..<50_000).map { _ in generator.next() }
        for (number, fingerprint) in fingerprints.enumerated() {
            table.insert(fingerprint, flags: UInt8(1 << (number % 3)))
        }
        for (number, fingerprint) in fingerprints.enumerated() where number % 2 == 0 {
            table.insert(fingerprint, flags: 4)
        }
        #expect(table.count == Set(fingerprints.map { $0 & ~7 }).count)
        for (number, fingerprint) in fingerprints.enumerated() {
            let expected = UInt8(1 << (number % 3)) | (number % 2 == 0 ? 4 : 0)
            #expect(table.flags(of: fingerprint) == expected)
        }
        var misses = 0
        for _ in 0..<50_000 where table.flags(of: generator.next()) != nil { misses += 1 }
        #expect(misses == 0)
    }

    @Test func theLowThreeBitsAreFlagsNotPartOfTheFingerprint() {
        var table = FingerprintTable()
        table.insert(0x1234_5678_9ABC_DEF0, flags: 1)
        table.insert(0x1234_5678_9ABC_DEF7, flags: 2)
        #expect(table.count == 1)
        #expect(table.flags(of: 0x1234_5678_9ABC_DEF3) == 3)
        // Zero is the empty slot's mark: a fingerprint of zero is kept all the same.
        table.insert(0, flags: 4)
        #expect(table.flags(of: 0) == 4 && table.flags(of: 5) == 4)
        #expect(table.flags(of: 16) == nil)
    }
}
