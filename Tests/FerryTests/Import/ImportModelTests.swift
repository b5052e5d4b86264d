import FerryTestSupport
import Foundation
import Testing
@testable import Ferry

/// Seeded random imports into a real store, checked against `ImportDiffPlan` applied to plain
/// dictionaries (the reference model): same records afterwards, same counts, and a journal
/// entry only for a record that changed.
@Suite struct ImportModelTests {
    /// A small, seedable generator (SplitMix64), so a failure can be replayed from its seed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func randomItem(id: Int, using random: inout SeededGenerator) -> JSONValue {
        var item: [String: JSONValue] = [:]
        // Ids as integers or strings: they must match across the two.
        item["id"] = Bool.random(using: &random) ? .integer(Int64(id)) : .string(String(id))
        for key in ["name", "team", "score"] where Int.random(in: 0..<4, using: &random) > 0 {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: item[key] = .null
            case 1: item[key] = .integer(Int64(Int.random(in: 0..<3, using: &random)))
            default: item[key] = .string(["a", "b", "c"][Int.random(in: 0..<3, using: &random)])
            }
        }
        return .object(item)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func storeImportsMatchTheDiffPlan(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let directory = try TemporaryDirectory()
        let store = try ImportScenario.store(directory, schema: nil)
        let entity = try EntityName("Row")
        var model: [RecordID: JSONValue] = [:]
        for round in 0..<6 {
            let ids = (1...30).filter { _ in Bool.random(using: &random) }.shuffled(using: &random)
            let items = ids.map { Self.randomItem(id: $0, using: &random) }
            let plan = try ImportDiffPlan(
                stored: model.map { (id: $0.key.rawValue, document: $0.value) }, incoming: items, operations: .all)
            let head = store.headSequence
            let report = try store.importRecords(.array(items), into: entity, options: ImportScenario.forced)
            let context = "seed \(seed), round \(round)"
            #expect(report.counts.inserted == plan.inserts.count, "\(context)")
            #expect(report.counts.updated == plan.updates.count, "\(context)")
            #expect(report.counts.deleted == plan.deletes.count, "\(context)")
            #expect(report.counts.unchanged == plan.unchanged.count, "\(context)")
            #expect(store.headSequence - head == UInt64(plan.inserts.count + plan.updates.count + plan.deletes.count), "\(context)")
            for insert in plan.inserts { model[insert.id] = insert.document }
            for update in plan.updates { model[update.id] = update.document }
            for id in plan.deletes { model[id] = nil }
            let stored = try store.records(of: entity)
            #expect(stored.map(\.id) == model.keys.sorted(), "\(context)")
            for record in stored { #expect(record.document == model[record.id], "\(context): \(record.id)") }
        }
    }
}
