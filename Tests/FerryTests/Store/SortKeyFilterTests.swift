import Testing
@testable import Ferry

@Suite struct SortKeyFilterTests {
    private func sortKey(_ id: Int) -> [UInt8] { Array("Note\tn\(id)".utf8) }

    @Test func everyKeyAddedIsFoundAndFewOthersAre() {
        var filter = SortKeyFilter(expectedCount: 20_000)
        for id in 0..<20_000 { filter.insert(sortKey(id)) }
        #expect((0..<20_000).allSatisfy { filter.mayContain(sortKey($0)) }, "a Bloom filter never misses a key it holds")
        let falsePositives = (20_000..<70_000).filter { filter.mayContain(sortKey($0)) }.count
        // At about 12 bits and 7 probes a key, about 0.4% of absent keys pass; allow 2%.
        #expect(falsePositives < 1_000, "\(falsePositives) of 50,000 absent keys passed")
    }

    @Test func anEmptyFilterHoldsNothingAndAnyCountIsAccepted() {
        let empty = SortKeyFilter(expectedCount: 0)
        #expect(!empty.mayContain(sortKey(1)) && !empty.mayContain([UInt8]()))
        var tiny = SortKeyFilter(expectedCount: -5)
        tiny.insert([UInt8]())
        #expect(tiny.mayContain([UInt8]()))
    }
}
