import Testing
import Foundation
import FerryTestSupport
@testable import Ferry

/// Record keys hash a digest worked out when they are made (``PrecomputedHash``): equal values must still hash alike, unequal ones must stay apart in
/// tables, and a table of them must spread them over its buckets.
@Suite struct PrecomputedHashTests {
    @Test func equalKeysMadeApartAreEqualAndHashAlike() throws {
        let entity = try EntityName("User")
        // Built from separate strings, so equality cannot come from sharing storage.
        let first = RecordKey(entity: entity, id: try RecordID(String(decoding: Array("user-42".utf8), as: UTF8.self)))
        let second = RecordKey(entity: try EntityName("Us" + "er"), id: try RecordID("user-" + String(42)))
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        var table: [RecordKey: Int] = [first: 1]
        table[second, default: 0] += 1
        #expect(table.count == 1 && table[first] == 2)
    }

    @Test func keysDifferingInEntityOrIdAreTwoEntries() throws {
        let (users, notes) = (try EntityName("User"), try EntityName("Note"))
        let ids = try ["1", "2", "a", "A", "\u{E9}", "e\u{301}", "a/b", String(repeating: "x", count: 256)].map { try RecordID($0) }
        var keys = Set<RecordKey>()
        for id in ids {
            keys.insert(RecordKey(entity: users, id: id))
            keys.insert(RecordKey(entity: notes, id: id))
        }
        #expect(keys.count == ids.count * 2)
        for id in ids {
            #expect(keys.contains(RecordKey(entity: users, id: try RecordID(id.rawValue))))
            #expect(RecordKey(entity: users, id: id) != RecordKey(entity: notes, id: id))
        }
    }

    @Test func aLargeTableSpreadsItsKeys() throws {
        // A mix that threw digest bits away would pile keys into few buckets. The table's own
        // numbers are not visible, so count distinct low bits of the values it would use.
        let entity = try EntityName("Item")
        let keys = try (0..<4096).map { RecordKey(entity: entity, id: try RecordID(String($0))) }
        let seed = 0x5eed
        let buckets = Set(keys.map { $0._rawHashValue(seed: seed) & 4095 })
        // 4,096 keys thrown at random into 4,096 buckets fill about 63% of them.
        #expect(buckets.count > 2_300, "\(buckets.count) of 4096 buckets used")
        let table = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        #expect(keys.enumerated().allSatisfy { table[$1] == $0 })
    }

    @Test func theMixIsABijectionOnSmallInputs() {
        var seen = Set<Int>()
        for digest in -2048..<2048 { seen.insert(PrecomputedHash.rawHashValue(digest, seed: 7)) }
        #expect(seen.count == 4096)
        #expect(PrecomputedHash.rawHashValue(1, seed: 1) != PrecomputedHash.rawHashValue(1, seed: 2), "the table's seed changes the value")
    }
}
