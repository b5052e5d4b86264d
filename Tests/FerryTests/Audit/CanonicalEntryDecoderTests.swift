import Testing
@testable import Ferry

/// The verifier's positional decoder against the journal's general one: the same entry for
/// every canonical line, and never an entry for a line the general decoder rejects. Seeded,
/// so a failure can be replayed from the printed seed.
@Suite struct CanonicalEntryDecoderTests {
    /// A small deterministic generator (SplitMix64).
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static let pieces = ["a", "Z", "é", "😀", "\"", "\\", "\n", "\u{1}", "/", " ", "0", "-", ".", "\u{301}", "~"]

    func text(_ random: inout Random) -> String {
        (0..<random.below(8)).map { _ in Self.pieces[random.below(Self.pieces.count)] }.joined()
    }

    func value(_ random: inout Random, depth: Int) -> JSONValue {
        switch random.below(depth > 2 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(random.below(2) == 0)
        case 2: return .integer(Int64(random.below(2_000_000)) - 1_000_000)
        case 3: return .number(Double(random.below(10_000)) / 7)
        case 4: return .string(text(&random))
        case 5: return .array((0..<random.below(4)).map { _ in value(&random, depth: depth + 1) })
        default: return object(&random, depth: depth + 1)
        }
    }

    func object(_ random: inout Random, depth: Int) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for _ in 0..<random.below(5) { members[text(&random)] = value(&random, depth: depth) }
        return .object(members)
    }

    func entry(_ random: inout Random, replicas: [ReplicaID]) throws -> JournalEntry {
        let origin = replicas[random.below(replicas.count)]
        let counter = UInt64(random.below(1000) + 1)
        var version = VersionVector()
        for replica in replicas where random.below(2) == 0 { version[replica] = UInt64(random.below(1000) + 1) }
        version[origin] = counter
        var id = text(&random)
        if id.isEmpty { id = "x" }
        let change = Change(
            origin: origin, counter: counter, timestamp: HybridTimestamp(physical: random.next() >> 20, logical: UInt32(random.below(5))),
            key: RecordKey(entity: try EntityName(["Note", "A_1", "x"][random.below(3)]), id: try RecordID(id)),
            operation: random.below(4) == 0 ? .delete : .put(object(&random, depth: 1)), version: version)
        let previous = SHA256.hash(Array("\(random.next())".utf8))
        let sequence = UInt64(random.below(100_000) + 1)
        // Half the entries belong to a batch of several.
        let batch = random.below(2) == 0
            ? nil : BatchPosition(first: sequence - UInt64(random.below(Int(min(sequence, 20)))), remaining: UInt64(random.below(12)))
        return JournalEntry.make(
            sequence: sequence, change: change, previousSequenceOfRecord: UInt64(random.below(50)),
            previousHash: previous, batch: batch
        ).entry
    }

    func line(_ entry: JournalEntry) -> [UInt8] {
        Array(JournalEntry.make(
            sequence: entry.sequence, change: entry.change, previousSequenceOfRecord: entry.previousSequenceOfRecord,
            previousHash: entry.previousHash, batch: entry.batch
        ).line.dropLast())
    }

    func slow(_ bytes: [UInt8]) -> JournalEntry? {
        bytes.withUnsafeBytes { try? JournalEntry.decode(line: $0) }
    }

    func fast(_ bytes: [UInt8]) -> JournalEntry? {
        bytes.withUnsafeBytes { CanonicalEntryDecoder.decode($0) }
    }

    @Test(arguments: [1, 2, 3, 4])
    func agreesWithTheGeneralDecoder(seed: UInt64) throws {
        var random = Random(state: seed)
        let replicas = (0..<3).map { _ in ReplicaID.generate() }
        var mutatedAccepted = 0
        for _ in 0..<300 {
            let original = try entry(&random, replicas: replicas)
            let bytes = line(original)
            #expect(fast(bytes) == original, "seed \(seed): \(String(decoding: bytes, as: UTF8.self))")
            #expect(slow(bytes) == original, "seed \(seed)")
            // Damaged copies: whatever the fast decoder accepts, the general one accepts alike.
            for _ in 0..<10 {
                var damaged = bytes
                let position = random.below(damaged.count)
                switch random.below(3) {
                case 0: damaged[position] = UInt8(truncatingIfNeeded: random.next())
                case 1: damaged.remove(at: position)
                default:
                    let inserts = Array(#" ,:"{}0e\"#.utf8)
                    damaged.insert(inserts[random.below(inserts.count)], at: position)
                }
                if let accepted = fast(damaged) {
                    mutatedAccepted += 1
                    #expect(slow(damaged) == accepted, "seed \(seed): \(String(decoding: damaged, as: UTF8.self))")
                }
            }
        }
        #expect(mutatedAccepted > 0, "some damage leaves a valid entry (inside a document string)")
    }

    @Test func nonCanonicalLayoutsFallBack() throws {
        var random = Random(state: 99)
        var original = try entry(&random, replicas: [ReplicaID.generate()])
        original.batch = nil
        let text = String(decoding: line(original), as: UTF8.self)
        #expect(fast(Array(text.utf8)) != nil)
        for variant in [
            text.replacingOccurrences(of: #","seq":"#, with: #", "seq":"#),
            text.replacingOccurrences(of: #"{"counter":"#, with: #"{"counter":0"#),
            text + " ",
            // `more` without `batch`, and a batch that starts after its entry.
            text.replacingOccurrences(of: #","op":"#, with: #","more":0,"op":"#),
            #"{"batch":\#(original.sequence + 1),"# + text.dropFirst(),
        ] {
            #expect(fast(Array(variant.utf8)) == nil, "\(variant)")
        }
    }

    @Test func documentBytesAreFoundWithAndWithoutABatch() throws {
        let change = Change(
            origin: ReplicaID.generate(), counter: 3, timestamp: HybridTimestamp(physical: 1, logical: 0),
            key: RecordKey(entity: try EntityName("Note"), id: try RecordID("a")), operation: .put(["b": [1, "c"]]),
            version: VersionVector())
        var versioned = change
        versioned.version[change.origin] = 3
        for batch in [nil, BatchPosition(first: 40, remaining: 2)] {
            let made = JournalEntry.make(sequence: 41, change: versioned, previousSequenceOfRecord: 0, previousHash: .zero, batch: batch)
            let bytes = Array(made.line.dropLast())
            #expect(fast(bytes) == made.entry)
            let document = bytes.withUnsafeBytes { line in
                CanonicalJournalLine.hashMemberStart(line).flatMap {
                    CanonicalJournalLine.documentRange(line, memberStart: $0, entity: versioned.key.entity)
                }.map { Array(line[$0]) }
            }
            #expect(document == JSONValue.object(["b": [1, "c"]]).canonicalBytes())
        }
    }
}
