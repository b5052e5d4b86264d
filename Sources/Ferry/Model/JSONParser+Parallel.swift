import Dispatch
import Foundation

extension JSONParser {
    /// Inputs at least this large whose top level is an array are parsed on every core.
    static let parallelThreshold = 1 << 20

    /// A large top-level array parsed on every core, or `nil` when the input is not one or any
    /// part of it fails to parse.
    ///
    /// The elements are cut into runs at top-level commas, found by a light pass that only
    /// tracks strings and nesting, and each run is parsed by a ``JSONScanner`` of its own with
    /// the full grammar and limits (one level less deep, for the array around it). Whether
    /// that pass found the true commas does not matter for correctness: runs that each parse
    /// as `value (, value)*` and are joined by commas inside `[` … `]` make a valid array of
    /// exactly those values. When any run fails, the caller parses the whole input in one pass,
    /// which reports the first problem at its true line and column.
    static func parseArrayInParallel(_ bytes: UnsafeBufferPointer<UInt8>, options: Options) -> JSONValue? {
        // The size first: every journal line is parsed here.
        guard bytes.count >= parallelThreshold, options.maximumDepth >= 1, ParallelWork.processorCount > 1 else { return nil }
        let cores = ParallelWork.processorCount
        var start = 0
        while start < bytes.count, isWhitespace(bytes[start]) { start += 1 }
        var end = bytes.count
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        guard end - start >= 2, bytes[start] == UInt8(ascii: "["), bytes[end - 1] == UInt8(ascii: "]") else { return nil }
        // Two runs per core: the cut costs a pass up to the last one, and a core slowed by
        // other work still takes fewer.
        let runs = elementRuns(bytes, from: start + 1, to: end - 1, count: cores * 2)
        let depth = options.maximumDepth - 1
        // Read only, and only while this call runs.
        nonisolated(unsafe) let bytes = bytes
        let parsed = ParallelWork.each(count: runs.count) { run -> [JSONValue]? in
            let range = runs[run]
            var scanner = JSONScanner(input: UnsafeBufferPointer(rebasing: bytes[range]), maximumDepth: depth)
            return try? scanner.parseElementRun()
        }
        var elements: [JSONValue] = []
        elements.reserveCapacity(parsed.reduce(0) { $0 + ($1?.count ?? 0) })
        for run in parsed {
            guard let run else { return nil }
            elements.append(contentsOf: run)
        }
        return .array(elements)
    }

    /// Cuts `bytes[from..<to]`, the inside of an array, into about `count` runs of whole
    /// elements at top-level commas (the commas belong to no run).
    ///
    /// The pass stops at the last cut, and jumps over each string's body with `memchr` to its
    /// closing quote (one preceded by an odd run of backslashes is escaped): most of an API
    /// response's bytes are inside strings.
    static func elementRuns(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, count: Int) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        runs.reserveCapacity(count)
        guard let base = bytes.baseAddress, count > 1 else { return [from..<to] }
        var runStart = from
        var target = from + (to - from) / count
        var depth = 0
        var offset = from
        scan: while offset < to {
            switch bytes[offset] {
            case UInt8(ascii: "\""):
                // The closing quote: the next one not escaped.
                var search = offset + 1
                while true {
                    guard search < to, let found = memchr(base + search, Int32(UInt8(ascii: "\"")), to - search) else { break scan }
                    let quote = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    var backslashes = 0
                    while quote - backslashes - 1 > offset, bytes[quote - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
                    search = quote + 1
                    if backslashes % 2 == 0 { break }
                }
                offset = search
                continue scan
            case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: ",") where depth == 0 && offset >= target:
                runs.append(runStart..<offset)
                runStart = offset + 1
                if runs.count == count - 1 { break scan }
                target = from + (to - from) * (runs.count + 1) / count
            default: break
            }
            offset += 1
        }
        runs.append(runStart..<to)
        return runs
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }
}
