import FerryTestSupport
import Testing
@testable import Ferry

/// The compact replay against the store's own index (the reference model), on seeded random
/// histories of three replicas editing a few records: fast-forwards, stale versions, concurrent
/// edits (conflicts), vectors of one to three replicas, deletes.
@Suite struct ReplayTableTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64]) func agreesWithTheStoreIndex(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let replicas = (0..<3).map { _ in ReplicaID.generate() }
        let entity = try EntityName("Product")
        let keys = try (0..<12).map { RecordKey(entity: entity, id: try RecordID("r\($0)")) }
        let numbers = Dictionary(uniqueKeysWithValues: replicas.enumerated().map { ($0.element, $0.offset) })
        var reference = StoreIndex()
        var replay = ReplayTable(lineNumbers: numbers)
        var counters = [UInt64](repeating: 0, count: replicas.count)
        var seen: [RecordKey: [VersionVector]] = [:]
        var versions: [UInt64: RecordVersion] = [:]
        var files: [UInt64: FileFingerprint] = [:]
        for sequence in UInt64(1)...400 {
            let key = keys[Int.random(in: 0..<keys.count, using: &random)]
            let origin = Int.random(in: 0..<replicas.count, using: &random)
            // A version built on one this record had (often the latest), or on nothing.
            var vector = (seen[key]?.randomElement(using: &random)) ?? VersionVector()
            if random.chance(60), let latest = reference.records[key]?.mergedVersion { vector = latest }
            counters[origin] += 1
            vector[replicas[origin]] = counters[origin]
            seen[key, default: []].append(vector)
            let document: JSONValue = ["n": .integer(Int64(sequence))]
            let isDelete = random.chance(15)
            let change = Change(
                origin: replicas[origin], counter: counters[origin], timestamp: HybridTimestamp(physical: sequence * 10, logical: 0),
                key: key, operation: isDelete ? .delete : .put(document), version: vector)
            let entry = JournalEntry(sequence: sequence, change: change, previousSequenceOfRecord: 0, previousHash: .zero, hash: .zero)
            let content = isDelete ? SHA256Digest.zero : SHA256.hash(document.canonicalBytes())
            let file = isDelete ? nil : document.canonicalBytes().withUnsafeBytes { FileFingerprint($0) }
            versions[sequence] = RecordVersion(
                identity: change.identity, timestamp: change.timestamp, version: vector, isDelete: isDelete, contentHash: content,
                sequence: sequence)
            files[sequence] = file
            _ = reference.apply(entry, contentHash: content)
            if case .needsVersion(let wanted) = replay.apply(ReplayTable.Entry(entry), content: content, file: file) {
                #expect(replay.apply(ReplayTable.Entry(entry), content: content, file: file, current: versions[wanted]) == .applied)
            }
        }
        #expect(replay.count == reference.records.count, "seed \(seed)")
        #expect(replay.liveCounts == reference.liveCounts, "seed \(seed)")
        #expect(replay.conflicted == reference.conflicted, "seed \(seed)")
        #expect(!replay.complex.isEmpty, "seed \(seed): the history should hold concurrent versions")
        for (key, expected) in reference.records {
            let index = try #require(replay.index(of: key))
            #expect(replay.key(at: index) == key)
            let state = replay.state(at: index) { versions[$0] }
            #expect(state?.versions == expected.versions, "seed \(seed), \(key)")
            #expect(state?.lastSequence == expected.lastSequence, "seed \(seed), \(key)")
            #expect(replay.slots[index].versionsHash == IndexComparison.VersionsText.fingerprint(expected.versions, numbers: numbers))
            #expect(replay.expectedFile(at: index) == (expected.isLive ? files[expected.winner.sequence] : nil), "seed \(seed), \(key)")
        }
    }

    @Test func aJournalMayNameMoreEntitiesThanASmallNumberHolds() throws {
        let origin = ReplicaID.generate()
        var replay = ReplayTable(lineNumbers: [origin: 0])
        let count = 70_000
        for number in 0..<count {
            let key = RecordKey(entity: try EntityName("E\(number)"), id: try RecordID("r"))
            let entry = ReplayTable.Entry(
                key: key, origin: origin, counter: UInt64(number + 1), timestamp: HybridTimestamp(physical: UInt64(number)),
                version: VersionVector([origin: UInt64(number + 1)]), isDelete: false, sequence: UInt64(number + 1))
            #expect(replay.apply(entry, content: .zero, file: nil) == .applied)
        }
        #expect(replay.count == count)
        #expect(replay.liveCounts.count == count)
        let last = try EntityName("E\(count - 1)")
        #expect(replay.index(of: RecordKey(entity: last, id: try RecordID("r"))).map { replay.entity(at: $0) } == last)
    }
}
