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
        let cores = ProcessInfo.processInfo.activeProcessorCount
        guard cores > 1, bytes.count >= parallelThreshold, options.maximumDepth >= 1 else { return nil }
        var start = 0
        while start < bytes.count, isWhitespace(bytes[start]) { start += 1 }
        var end = bytes.count
        while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
        guard end - start >= 2, bytes[start] == UInt8(ascii: "["), bytes[end - 1] == UInt8(ascii: "]") else { return nil }
        // A few runs per core, so that a core slowed by other work takes fewer.
        let runs = elementRuns(bytes, from: start + 1, to: end - 1, count: cores * 4)
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
    static func elementRuns(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, count: Int) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        runs.reserveCapacity(count)
        var runStart = from
        var target = from + (to - from) / count
        var depth = 0
        var inString = false
        var offset = from
        while offset < to {
            let byte = bytes[offset]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    offset += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = false }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
                case UInt8(ascii: ",") where depth == 0 && offset >= target:
                    runs.append(runStart..<offset)
                    runStart = offset + 1
                    target = from + (to - from) * (runs.count + 1) / count
                    if runs.count == count - 1 { offset = to }
                default: break
                }
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
