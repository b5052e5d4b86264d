import Testing
@testable import Ferry

/// Verify reads record files a range of inode numbers at a time; the ranges must hold about
/// the same number of files however the numbers bunch up, or one range holds most of a store.
@Suite struct InodeRangesTests {
    /// Three folders' files in three block groups far apart, as ext4 places them.
    let clusters: [UInt64] = Array(1_000_000..<1_030_000) + Array(9_000_000..<9_050_000) + Array(40_000_000..<40_020_000)

    @Test func bunchedNumbersAreSplitEvenly() {
        var histogram = InodeRanges.Histogram(lowest: clusters.min() ?? 0, highest: clusters.max() ?? 0)
        for inode in clusters { histogram.count(inode) }
        let ranges = InodeRanges(histogram, filesPerRange: 10_000)
        var held = [Int](repeating: 0, count: ranges.count)
        for inode in clusters { held[ranges.range(of: inode)] += 1 }
        // 100,000 files in ranges of about 10,000: a range holds less than 10,000 plus one
        // bin (596 numbers wide here), and only the last holds less than 10,000. Ten ranges of
        // equal width would have held 30,000, 50,000 and 20,000, and seven of them none.
        #expect(histogram.binWidth == 596)
        #expect(ranges.count == 10, "\(ranges.count) ranges")
        #expect(held.allSatisfy { $0 < 10_000 + 596 }, "\(held)")
        #expect(held.dropLast().allSatisfy { $0 >= 10_000 }, "\(held)")
        #expect(held.last.map { $0 > 0 } == true)
    }

    @Test func rangesFollowTheNumbers() {
        var histogram = InodeRanges.Histogram(lowest: clusters.min() ?? 0, highest: clusters.max() ?? 0)
        for inode in clusters { histogram.count(inode) }
        let ranges = InodeRanges(histogram, filesPerRange: 7_000)
        let order = clusters.map(ranges.range(of:))
        #expect(order == order.sorted())
        #expect(order.first == 0 && order.last == ranges.count - 1)
    }

    @Test func oneFileAndOneNumber() {
        var histogram = InodeRanges.Histogram(lowest: 42, highest: 42)
        histogram.count(42)
        let ranges = InodeRanges(histogram, filesPerRange: 32_768)
        #expect(ranges.count == 1)
        #expect(ranges.range(of: 42) == 0)
        // A number outside the span (a file listed after the span was taken) goes to an end.
        #expect(ranges.range(of: 7) == 0 && ranges.range(of: .max) == 0)
    }
}
