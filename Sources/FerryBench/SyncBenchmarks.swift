import Ferry
import Foundation

/// Issue 3's figures at `scale` records, timing whole `ferry sync` processes side by side with
/// `rsync -a` and `unison -batch` on the same records trees, in the same run.
func syncBenchmarks(scale: Int, workDirectory: String, ferry: String) throws -> [BenchmarkRow] {
    var rows: [BenchmarkRow] = []
    let entity = try EntityName("Product")
    let source = workDirectory + "/sync-a-\(scale)"
    let destination = workDirectory + "/sync-b-\(scale)"
    let a = try Store.create(at: source, name: "a")
    var start = 0
    while start < scale {
        let end = min(start + 5000, scale)
        try a.write(try (start..<end).map { .put(RecordKey(entity: entity, id: try RecordID("p\($0)")), BenchData.product($0)) })
        start = end
    }
    a.close()
    let rsync = MeasuredProcess.find("rsync")
    let unison = MeasuredProcess.find("unison")

    // Full pull into an empty store vs rsync -a of the records tree into an empty folder.
    // Each timed step starts with the disk's write-back queue empty (sync(2)): otherwise one
    // tool's fsync waits behind gigabytes the step before it left dirty.
    _ = try MeasuredProcess.run(ferry, ["init", destination])
    sync()
    // A spawned child's peak memory starts from this process's (see `Measure.resetPeakMemory()`).
    Measure.resetPeakMemory()
    let pull = try MeasuredProcess.run(ferry, ["sync", destination, source])
    guard pull.status == 0 else { throw BenchError("ferry sync (full pull) exited \(pull.status)") }
    var rsyncFull: MeasuredProcess.Outcome?
    if let rsync {
        sync()
        rsyncFull = try MeasuredProcess.run(rsync, ["-a", source + "/records/", workDirectory + "/rsync-\(scale)/"])
    }
    rows.append(
        BenchmarkRow(
            name: "sync: full pull into an empty store", scale: scale, value: Format.seconds(pull.seconds),
            target: "≤ 1.5x rsync -a", met: rsyncFull.map { pull.seconds <= 1.5 * $0.seconds },
            note: rsyncFull.map { "rsync -a \(Format.seconds($0.seconds)); " + Format.ratio(pull.seconds, $0.seconds, "rsync") } ?? "rsync not installed"))

    // Unison needs its own first sync of the trees before it can find changes.
    let unisonRoot = workDirectory + "/unison-\(scale)"
    let unisonHome = workDirectory + "/unison-home-\(scale)"
    if let unison, let rsync {
        _ = try MeasuredProcess.run(rsync, ["-a", source + "/records/", unisonRoot + "/"])
        setenv("UNISON", unisonHome, 1)
        try FileSystem.createDirectories(unisonHome)
        _ = try MeasuredProcess.run(unison, [source + "/records", unisonRoot, "-batch", "-silent", "-times"])
    }

    // No-op sync: nothing changed on either side. The targets are the exchange's own cost
    // (--no-commit); by default a sync first scans both stores' record files for hand edits,
    // which costs a stat of every file, and is shown beside it.
    sync()
    var noops: [Double] = []
    for _ in 0..<9 { noops.append(try MeasuredProcess.run(ferry, ["sync", destination, source, "--no-commit"]).seconds) }
    let noop = Measure.median(noops)
    rows.append(BenchmarkRow(name: "sync: no-op (up-to-date), --no-commit", scale: scale, value: Format.milliseconds(noop), target: "≤ 20 ms", met: noop <= 0.020))
    var scanned: [Double] = []
    for _ in 0..<3 { scanned.append(try MeasuredProcess.run(ferry, ["sync", destination, source]).seconds) }
    rows.append(
        BenchmarkRow(
            name: "sync: no-op, default (hand-edit scan)", scale: scale, value: Format.milliseconds(Measure.median(scanned)),
            target: "", met: nil, note: "scans both stores' record files first (median of 3)"))

    // Incremental: 100 records changed at the source, five times over (the median counts);
    // rsync and unison then find the last 100 changes.
    var incrementals: [Double] = []
    var incrementalPeak = 0.0
    for round in 0..<5 {
        let reopened = try Store.open(at: source)
        var writes: [RecordWrite] = []
        for index in 0..<100 {
            let number = (index * 977 + round * 13) % scale
            var document = BenchData.product(number)
            document["price"] = .number(1.5 + Double(round))
            writes.append(.put(RecordKey(entity: entity, id: try RecordID("p\(number)")), document))
        }
        try reopened.write(writes)
        reopened.close()
        sync()
        Measure.resetPeakMemory()
        let outcome = try MeasuredProcess.run(ferry, ["sync", destination, source, "--no-commit"])
        guard outcome.status == 0 else { throw BenchError("ferry sync (incremental) exited \(outcome.status)") }
        incrementals.append(outcome.seconds)
        incrementalPeak = max(incrementalPeak, outcome.peakMemoryMiB)
    }
    let incremental = (seconds: Measure.median(incrementals), peakMemoryMiB: incrementalPeak)
    var rsyncIncremental: MeasuredProcess.Outcome?
    sync()
    if let rsync { rsyncIncremental = try MeasuredProcess.run(rsync, ["-a", source + "/records/", workDirectory + "/rsync-\(scale)/"]) }
    var unisonIncremental: MeasuredProcess.Outcome?
    sync()
    if let unison { unisonIncremental = try MeasuredProcess.run(unison, [source + "/records", unisonRoot, "-batch", "-silent", "-times"]) }
    var note = ""
    var met = incremental.seconds <= 0.050
    if let rsyncIncremental {
        note += "rsync \(Format.milliseconds(rsyncIncremental.seconds)) (" + Format.ratio(rsyncIncremental.seconds, incremental.seconds, "faster") + ")"
        met = met && incremental.seconds * 10 <= rsyncIncremental.seconds
    }
    if let unisonIncremental {
        note += "; unison \(Format.milliseconds(unisonIncremental.seconds)) (" + Format.ratio(unisonIncremental.seconds, incremental.seconds, "faster") + ")"
        met = met && incremental.seconds * 20 <= unisonIncremental.seconds
    }
    rows.append(
        BenchmarkRow(
            name: "sync: incremental, 100 changes, --no-commit (median of 5)", scale: scale, value: Format.milliseconds(incremental.seconds),
            target: "≤ 50 ms, ≥ 10x rsync, ≥ 20x unison", met: met, note: note))
    let peak = [pull.peakMemoryMiB, incremental.peakMemoryMiB].max() ?? 0
    rows.append(BenchmarkRow(name: "sync: peak memory of ferry sync", scale: scale, value: String(format: "%.0f MB", peak), target: "≤ 200 MB", met: peak <= 200))
    // Issue 3 sets its targets at 100k records; smaller scales show the figures only (at 10k,
    // rsync and unison look at a tenth of the files, so the ratios shrink by design).
    guard scale < 100_000 else { return rows }
    return rows.map { row in
        var figure = row
        figure.target = ""
        figure.met = nil
        return figure
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Builds `<directory>/a` with `scale` records, `<directory>/b` synced with it, then changes 100
/// records in a.
func prepareIncremental(directory: String, scale: Int) throws {
    let entity = try EntityName("Product")
    let a = try Store.create(at: directory + "/a", name: "a")
    var start = 0
    while start < scale {
        let end = min(start + 5000, scale)
        try a.write(try (start..<end).map { .put(RecordKey(entity: entity, id: try RecordID("p\($0)")), BenchData.product($0)) })
        start = end
    }
    let b = try Store.create(at: directory + "/b", name: "b")
    let semaphore = DispatchSemaphore(value: 0)
    Task {
        _ = try? await b.sync(with: FolderTransport(path: directory + "/a"))
        semaphore.signal()
    }
    semaphore.wait()
    b.close()
    var writes: [RecordWrite] = []
    for index in 0..<100 {
        var document = BenchData.product(index * 7)
        document["price"] = 2.5
        writes.append(.put(RecordKey(entity: entity, id: try RecordID("p\(index * 7)")), document))
    }
    try a.write(writes)
    a.close()
}
