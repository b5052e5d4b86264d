import Ferry
import Foundation

/// Issue 50, item 2's figure: `ferry status` and a default `ferry sync a b` (hand edits
/// journaled first, nothing to do) at `scale` records, whole processes, with `ferry watch`
/// running for both stores, beside the same commands scanning without it.
func watchedNoOpBenchmarks(scale: Int, workDirectory: String, ferry: String) throws -> [BenchmarkRow] {
    let a = workDirectory + "/watched-a"
    let b = workDirectory + "/watched-b"
    try BenchData.itemStore(at: a, name: "a", count: scale).close()
    _ = try MeasuredProcess.run(ferry, ["init", b])
    guard try MeasuredProcess.run(ferry, ["sync", b, a]).status == 0 else { throw BenchError("ferry sync (full pull) exited non-zero") }
    // Past the timestamp granularity, so that one status confirms every racily clean file.
    Thread.sleep(forTimeInterval: 2.1)
    func median(_ arguments: [String], runs: Int) throws -> Double {
        var samples: [Double] = []
        for _ in 0..<runs {
            let run = try MeasuredProcess.run(ferry, arguments)
            guard run.status == 0 else { throw BenchError("ferry \(arguments.joined(separator: " ")) exited \(run.status)") }
            samples.append(run.seconds)
        }
        return Measure.median(samples)
    }
    _ = try median(["status", a], runs: 1)
    let scannedStatus = try median(["status", a], runs: 3)
    let scannedSync = try median(["sync", a, b], runs: 3)

    let watchers = try [a, b].map { try LiveChild(ferry, ["watch", $0], log: $0 + ".watch.log") }
    defer { watchers.forEach { $0.stop() } }
    for watcher in watchers { try watcher.waitForLog("ferry watch: watching", seconds: 60) }
    // The first of each, with nothing to start from, scans.
    _ = try median(["sync", a, b], runs: 1)
    let status = try median(["status", a], runs: 9)
    let sync = try median(["sync", a, b], runs: 9)
    return [
        BenchmarkRow(
            name: "status, ferry watch running", scale: scale, value: Format.milliseconds(status), target: "≤ 30 ms", met: status <= 0.03,
            note: "without it " + Format.milliseconds(scannedStatus)),
        BenchmarkRow(
            name: "default sync a b, no-op, both watched", scale: scale, value: Format.milliseconds(sync), target: "≤ 30 ms",
            met: sync <= 0.03, note: "without it " + Format.milliseconds(scannedSync)),
    ]
}
