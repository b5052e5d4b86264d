/// Splits a span of inode numbers into consecutive ranges that each hold about the same
/// number of files, from a histogram of the numbers seen: inode numbers bunch up (a folder's
/// files lie in one block group, the next folder's far away), so ranges of equal width would
/// hold many times their share in one and none in the next.
///
/// ```swift
/// var histogram = InodeRanges.Histogram(lowest: 1000, highest: 9000)
/// for inode in inodes { histogram.count(inode) }
/// let ranges = InodeRanges(histogram, filesPerRange: 32_768)
/// let range = ranges.range(of: inode)   // 0..<ranges.count, in inode order
/// ```
struct InodeRanges: Sendable {
    /// Counts of inode numbers in `binCount` bins of equal width.
    struct Histogram: Sendable {
        /// The bins; the memory is the same whatever the number of files (a quarter of a
        /// megabyte).
        static let binCount = 1 << 16

        let lowest: UInt64
        let highest: UInt64
        let binWidth: UInt64
        fileprivate var counts: [UInt32]

        /// - Parameters: lowest, highest: The span every number counted lies in.
        init(lowest: UInt64, highest: UInt64) {
            self.lowest = min(lowest, highest)
            self.highest = max(lowest, highest)
            binWidth = (self.highest - self.lowest) / UInt64(Self.binCount) + 1
            counts = [UInt32](repeating: 0, count: Self.binCount)
        }

        /// The bin of `inode` (numbers outside the span go to its nearest end).
        func bin(of inode: UInt64) -> Int {
            Int((min(max(inode, lowest), highest) - lowest) / binWidth)
        }

        mutating func count(_ inode: UInt64) {
            let bin = bin(of: inode)
            counts[bin] = counts[bin] &+ 1
        }
    }

    private let histogram: Histogram
    /// The range of each bin.
    private let rangeOfBin: [UInt32]
    /// The number of ranges (at least one).
    let count: Int

    /// Ranges of whole bins, in order, each closed once it holds `filesPerRange` files or more
    /// (so a range holds fewer than `filesPerRange` plus one bin's count).
    init(_ histogram: Histogram, filesPerRange: Int) {
        let limit = max(1, filesPerRange)
        var rangeOfBin = [UInt32](repeating: 0, count: histogram.counts.count)
        var range: UInt32 = 0
        var held = 0
        for bin in histogram.counts.indices {
            rangeOfBin[bin] = range
            held += Int(histogram.counts[bin])
            if held >= limit {
                range += 1
                held = 0
            }
        }
        self.histogram = histogram
        self.rangeOfBin = rangeOfBin
        count = max(1, Int(range) + (held > 0 ? 1 : 0))
    }

    /// The range `inode` belongs to: ranges of lower numbers come first.
    func range(of inode: UInt64) -> Int {
        min(count - 1, Int(rangeOfBin[histogram.bin(of: inode)]))
    }
}
