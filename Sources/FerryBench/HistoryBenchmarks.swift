import Ferry
import Foundation

/// Issue 19's long-history figures: a full pull into an empty store of a store whose `records`
/// records were each written `edits` times, beside the same pull of its single-version twin
/// (the same final records, one version each) and the pull with `--history full`. Target: the
/// long history pulls in at most 1.5x the time of its twin.
func historyBenchmarks(records: Int, edits: Int, workDirectory: String, ferry: String) throws -> [BenchmarkRow] {
    let root = workDirectory + "/history-\(records)x\(edits)"
    try? FileSystem.removeTree(root)
    try FileSystem.createDirectories(root)
    let long = root + "/long"
    let twin = root + "/twin"
    // The twin's single round is the long store's last one, so both hold the same documents.
    try AuditBench.makeStore(at: long, name: "long", records: records, rounds: edits)
    try AuditBench.makeStore(at: twin, name: "twin", records: records, rounds: 1, firstRound: edits - 1)

    func pull(_ source: String, _ name: String, _ extra: [String] = []) throws -> MeasuredProcess.Outcome {
        let destination = root + "/" + name
        try ScaleRun.check(MeasuredProcess.run(ferry, ["init", destination]), "ferry init")
        sync()
        Measure.resetPeakMemory()
        let outcome = try MeasuredProcess.run(ferry, ["sync", destination, source] + extra)
        try ScaleRun.check(outcome, "ferry sync \(destination) \(source)")
        return outcome
    }
    let longPull = try pull(long, "from-long")
    let twinPull = try pull(twin, "from-twin")
    let fullPull = try pull(long, "from-long-full", ["--history", "full"])
    let journal = ScaleData.bytes(long + "/journal", apparent: true)
    let pulledJournal = ScaleData.bytes(root + "/from-long/journal", apparent: true)
    let scenario = "\(ScaleData.short(records)) x \(edits)"
    return [
        BenchmarkRow(
            name: "history: full pull of \(scenario) edits", scale: records,
            value: String(format: "%.2f s %4.0f MB", longPull.seconds, longPull.peakMemoryMiB), target: "≤ 1.5x its twin",
            met: longPull.seconds <= 1.5 * twinPull.seconds,
            note: "twin (1 version each) " + Format.seconds(twinPull.seconds) + ", " + Format.ratio(longPull.seconds, twinPull.seconds, "twin")
                + String(format: "; journal %.0f MB there, %.1f MB pulled", Double(journal) / 1e6, Double(pulledJournal) / 1e6)),
        BenchmarkRow(
            name: "history: same, --history full", scale: records,
            value: String(format: "%.2f s %4.0f MB", fullPull.seconds, fullPull.peakMemoryMiB),
            note: Format.ratio(fullPull.seconds, twinPull.seconds, "twin") + ", every version copied"),
    ]
}
