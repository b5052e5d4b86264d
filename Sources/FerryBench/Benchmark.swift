import Ferry
import Foundation

/// One measured figure of the benchmark table.
struct BenchmarkRow {
    /// What was measured, e.g. "batched put".
    var name: String
    /// The store size it was measured at (records).
    var scale: Int
    /// The figure, already formatted with its unit ("12.3 ms", "45,000 rec/s").
    var value: String
    /// The target the issue sets, formatted ("≤ 1 ms"), or "" when there is none.
    var target: String = ""
    /// Whether the target was met; `nil` when there is no target.
    var met: Bool? = nil
    /// A comparison, such as "1.4x plain writes" or "0.8x rsync -a".
    var note: String = ""
}

/// Timing helpers shared by the benchmark suites.
enum Measure {
    /// Seconds taken by `body`.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Seconds taken by an async `body`.
    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    /// Flushes every dirty page and inode of the machine to disk (`sync(2)`), outside any timed
    /// part, so that a measured phase does not pay for the file system work an earlier phase
    /// left behind: on ext4 the store's first fsync would otherwise commit the inodes the plain
    /// writes just created, and background writeback of the store's files would slow the next
    /// round of plain writes.
    static func settle() {
        sync()
    }

    /// How many times a no-op row syncs: `$FERRY_BENCH_NOOPS`, else `standard`. Many more
    /// (`FERRY_BENCH_NOOPS=500`) make the no-op the bulk of a profile of `--only hub` or
    /// `--only backend`.
    static func noOpRepeats(standard: Int) -> Int {
        Int(ProcessInfo.processInfo.environment["FERRY_BENCH_NOOPS"] ?? "").map { max(1, $0) } ?? standard
    }

    /// The median of samples.
    static func median(_ samples: [Double]) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Runs a command line as a whole process; returns its wall time in seconds and exit status.
    static func process(_ executable: String, _ arguments: [String]) throws -> (seconds: Double, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        process.waitUntilExit()
        return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, process.terminationStatus)
    }

    /// Peak resident memory of this process so far, in MB (Linux `VmHWM`; 0 elsewhere).
    /// Starts the peak-memory measurement afresh: resets this process's high-water mark
    /// (`VmHWM`) to its current resident size (`/proc/self/clear_refs`, Linux 4.0 and later;
    /// does nothing elsewhere).
    ///
    /// Needed twice: so that a section's peak is its own, not that of an earlier section; and
    /// before spawning a process to measure, because `posix_spawn` starts the child in this
    /// process's memory (vfork), and Linux gives the child's `ru_maxrss` this process's
    /// high-water mark when it execs: without the reset, `ferry sync` was reported to peak at
    /// the bench's own 221 MB.
    ///
    /// It first hands memory that earlier sections freed back to the system (glibc's
    /// `malloc_trim`), so that a section's peak starts from what is still in use, not from
    /// what the allocator kept.
    static func resetPeakMemory() {
        #if canImport(Glibc)
        // `<malloc.h>` is not in Swift's Glibc module: look the function up (RTLD_DEFAULT).
        if let symbol = dlsym(nil, "malloc_trim") {
            typealias Trim = @convention(c) (Int) -> Int32
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        }
        #endif
        guard let file = fopen("/proc/self/clear_refs", "w") else { return }
        fputs("5", file)
        fclose(file)
    }

    static func peakMemoryMB() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.filter(\.isNumber)
            return (Double(digits) ?? 0) / 1024
        }
        return 0
    }
}

/// Formats figures for the table.
enum Format {
    static func milliseconds(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
    static func seconds(_ seconds: Double) -> String { String(format: "%.3f s", seconds) }
    static func rate(_ count: Int, _ seconds: Double) -> String {
        String(format: "%.0f rec/s", Double(count) / max(seconds, 1e-9))
    }
    static func ratio(_ value: Double, _ reference: Double, _ name: String) -> String {
        String(format: "%.2fx %@", value / max(reference, 1e-9), name)
    }
}

/// A benchmark that found the store in a state it did not expect.
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
