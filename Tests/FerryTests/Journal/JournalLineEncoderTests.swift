import Testing
@testable import Ferry

/// The journal line encoder writes numbers, digests, the clock stamp and the version vector
/// straight into bytes; its lines must stay exactly the canonical form of the entry's JSON
/// object, built the slow way, and its hash the SHA-256 of that object without `hash`.
@Suite struct JournalLineEncoderTests {
    @Test(arguments: [7, 8, 9])
    func linesAreTheCanonicalFormOfTheEntry(seed: UInt64) throws {
        let generator = CanonicalEntryDecoderTests()
        var random = CanonicalEntryDecoderTests.Random(state: seed)
        // Several replicas, so that version vectors of two and three members are sorted.
        let replicas = (0..<3).map { _ in ReplicaID.generate() }
        var multiMember = 0
        for _ in 0..<300 {
            let entry = try generator.entry(&random, replicas: replicas)
            if entry.change.version.counters.count > 1 { multiMember += 1 }
            let line = generator.line(entry)
            #expect(line == entry.jsonValue.canonicalBytes(), "seed \(seed): \(String(decoding: line, as: UTF8.self))")
            guard case .object(var members) = entry.jsonValue else { continue }
            members["hash"] = nil
            #expect(entry.hash == SHA256.hash(JSONValue.object(members).canonicalBytes()))
        }
        #expect(multiMember > 0)
    }

    @Test func versionVectorsWriteTheirCanonicalForm() {
        let replicas = (0..<5).map { _ in ReplicaID.generate() }
        for count in 0...5 {
            var vector = VersionVector()
            for (offset, replica) in replicas.prefix(count).enumerated() { vector[replica] = UInt64(offset * 1_000_003 + 1) }
            var bytes: [UInt8] = []
            vector.writeCanonical(to: &bytes)
            #expect(bytes == vector.jsonValue.canonicalBytes())
        }
    }
}
