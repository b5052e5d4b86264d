// ferry-bench: measures Ferry against the targets the issues set, in one run, side by side
// with plain file writes (and rsync and unison where installed). Run in a release build:
//   swift run -c release ferry-bench [--scales 10000,100000] [--only store,sync]
import Ferry
import Foundation

var scales = [10_000, 100_000]
// "writes" repeats the store section's batched-put-versus-plain-writes pair three times and
// gives the median: plain writes here run anywhere from 43k to 85k files/s from one round to
// the next, so a single pair can land on either side of the 2x target.
var suites: Set<String> = ["crypto", "store", "writes", "sync", "signing", "remote", "hub", "backend", "audit", "import"]
var keepWorkDirectory = false
// Issue 19's opt-in scale run: every command at N records and at a tenth of N (at most 100k), plus the long-history
// scenario (records x edits) beside its single-version twin.
var largeScale: Int?
var history = (records: 10_000, edits: 50)
var arguments = Array(CommandLine.arguments.dropFirst())
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--scales":
        guard let value = arguments.first else { fatalError("--scales needs a list") }
        arguments.removeFirst()
        scales = value.split(separator: ",").compactMap { Int($0.replacingOccurrences(of: "_", with: "")) }
    case "--only":
        guard let value = arguments.first else { fatalError("--only needs a list") }
        arguments.removeFirst()
        suites = Set(value.split(separator: ",").map(String.init))
    case "--prepare-incremental":
        // Profiling aid: builds <dir>/a (N records) and <dir>/b synced with it, then changes
        // 100 records in a, so `ferry sync <dir>/b <dir>/a` can be traced by hand.
        guard arguments.count >= 2, let count = Int(arguments[1]) else { fatalError("--prepare-incremental DIR N") }
        try prepareIncremental(directory: arguments[0], scale: count)
        exit(0)
    case "--scale":
        guard let value = arguments.first, let count = Int(value.replacingOccurrences(of: "_", with: "")), count >= 3 else {
            fatalError("--scale needs a record count, such as 1000000")
        }
        arguments.removeFirst()
        largeScale = count
        if !CommandLine.arguments.contains("--only") { suites = ["scale", "history"] }
    case "--history":
        let parts = arguments.first?.split(separator: "x").compactMap { Int($0.replacingOccurrences(of: "_", with: "")) } ?? []
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { fatalError("--history needs RECORDSxEDITS, such as 10000x50") }
        arguments.removeFirst()
        history = (parts[0], parts[1])
        if !CommandLine.arguments.contains("--only") && largeScale == nil { suites = ["history"] }
    case "--keep":
        // Leaves the work directory in place: deleting 100k files slows every file creation
        // on this machine for minutes after (see below), so back-to-back runs keep them.
        keepWorkDirectory = true
    case "--help", "-h":
        print(
            """
            usage: ferry-bench [--scales 10000,100000] [--only crypto,store,sync,signing,remote,hub,backend,audit,import,writes,live] [--keep]
                   ferry-bench --scale 1000000 [--history 10000x50]   every command at 100k and at N records (opt-in;
                                                                      at 1M: about 80 minutes and 50 GB of disk)
                   ferry-bench --history 10000x50                     a long history's full pull beside its single-version twin
            """)
        exit(0)
    default:
        FileHandle.standardError.write(Data("ferry-bench: unknown argument \(argument)\n".utf8))
        exit(2)
    }
}

let binaryDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
let ferry = binaryDirectory + "/ferry"
guard FileSystem.exists(ferry) else {
    FileHandle.standardError.write(Data("ferry-bench: build the ferry binary first (swift build -c release)\n".utf8))
    exit(1)
}
var template = Array((NSTemporaryDirectory() + "ferry-bench-XXXXXX").utf8CString)
guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { exit(1) }
let workDirectory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
defer { if !keepWorkDirectory { try? FileSystem.removeTree(workDirectory) } }

print("ferry-bench \(FerryVersion.current) — \(ProcessInfo.processInfo.activeProcessorCount) cores, work directory \(workDirectory)")
print("SHA-256: \(SHA256.usesProcessorInstructions ? "the processor's SHA instructions" : "portable Swift rounds")")
print("load average: \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?")")
var rows: [BenchmarkRow] = []
// Nothing is deleted until the end (but for the scale section's baseline run, followed by a
// wait): on ext4 without a journal (this machine's root), allocating
// an inode skips every inode freed in the last 60 seconds (360 when its inode table block is
// still dirty), one inode-table lookup each. A suite started after 100k files were deleted
// pays several times the normal cost of creating a file, and so would whichever side of a
// comparison happened to run first. (A bench started within minutes of a big deletion, such
// as the previous run's cleanup, is slowed the same way: its plain-write figures show it.)
@MainActor func section(_ name: String, _ body: () throws -> [BenchmarkRow]) {
    guard suites.contains(name) else { return }
    do {
        let produced = try body()
        rows += produced
        for row in produced { printRow(row) }
    } catch {
        print("\(name): failed: \(error)")
    }
}
@MainActor func asyncSection(_ name: String, _ body: () async throws -> [BenchmarkRow]) async {
    guard suites.contains(name) else { return }
    do {
        let produced = try await body()
        rows += produced
        for row in produced { printRow(row) }
    } catch {
        print("\(name): failed: \(error)")
    }
}
@MainActor func printRow(_ row: BenchmarkRow) {
    let verdict = row.met.map { $0 ? "ok" : "MISSED" } ?? ""
    print(
        row.name.padding(toLength: 44, withPad: " ", startingAt: 0) + String(row.scale).leftPadded(8) + "  "
            + row.value.leftPadded(14) + "  " + row.target.padding(toLength: 34, withPad: " ", startingAt: 0) + verdict.padding(toLength: 8, withPad: " ", startingAt: 0) + row.note)
}
extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}

print("what".padding(toLength: 44, withPad: " ", startingAt: 0) + "records".leftPadded(8) + "  " + "measured".leftPadded(14) + "  " + "target".padding(toLength: 34, withPad: " ", startingAt: 0) + "verdict".padding(toLength: 8, withPad: " ", startingAt: 0) + "comparison")
if let largeScale {
    let directory = workDirectory + "/scale"
    try FileSystem.createDirectories(directory)
    section("scale") { try scaleBenchmarks(scale: largeScale, baseline: max(3, min(100_000, largeScale / 10)), workDirectory: directory, ferry: ferry) }
    scales = []
}
// Not scaled: Ferry's own crypto, once.
section("crypto") { try cryptoBenchmarks() }
if suites.contains("history") {
    section("history") { try historyBenchmarks(records: history.records, edits: history.edits, workDirectory: workDirectory, ferry: ferry) }
    if largeScale == nil && suites == ["history"] { scales = [] }
}
for scale in scales {
    let directory = workDirectory + "/\(scale)"
    try FileSystem.createDirectories(directory)
    section("store") {
        // The store's own peak, not that of the sections of the scale before.
        Measure.resetPeakMemory()
        return try storeBenchmarks(scale: scale, workDirectory: directory)
    }
    section("writes") { try writeComparison(scale: scale, rounds: 3, workDirectory: directory) }
    // Not in the default suites: --only live.
    section("live") {
        let edits = Int(ProcessInfo.processInfo.environment["FERRY_BENCH_LIVE_EDITS"] ?? "") ?? 200
        return try livePropagationBenchmarks(workDirectory: directory, ferry: ferry, edits: edits)
            + watchedNoOpBenchmarks(scale: scale, workDirectory: directory, ferry: ferry)
    }
    section("sync") { try syncBenchmarks(scale: scale, workDirectory: directory, ferry: ferry) }
    await asyncSection("signing") { try await signingBenchmarks(scale: scale, workDirectory: directory) }
    await asyncSection("remote") { try await remoteBenchmarks(scale: scale, workDirectory: directory) }
    await asyncSection("hub") { try await hubBenchmarks(scale: scale, workDirectory: directory, ferry: ferry) }
    await asyncSection("backend") { try await backendBenchmarks(scale: scale, workDirectory: directory) }
    section("import") {
        // Issue 52's round trip is set at 10k issues (about 11k records with their users and labels).
        try importBenchmarks(scale: scale, workDirectory: directory)
            + (scale <= 10_000 ? try exportRoundTripBenchmarks(issues: scale, workDirectory: directory) : [])
    }
    section("audit") { try auditBenchmarks(scale: scale, workDirectory: directory) }
}
let missed = rows.filter { $0.met == false }.count
print("\(rows.count) figures, \(missed) target\(missed == 1 ? "" : "s") missed")
