import Ferry
import Foundation

/// Issue 50, item 6: how long a write on A takes to reach the record file on B while
/// `ferry sync … --watch` runs, as a user runs it (whole processes, interval ten minutes, so
/// only the kernel's word, a server's feed or an S3 hub's backoff listing moves a change):
/// through two folders, a hub folder, an S3 hub on SeaweedFS (when `weed` is found) and
/// `ferry serve`. Each edit is written on A by this process, timed from the write's return to
/// the moment B's file holds it (the kernel tells this process when B's folder changes).
/// p50 and p99 of `edits` edits, each waited for before the next.
func livePropagationBenchmarks(workDirectory: String, ferry: String, edits: Int) throws -> [BenchmarkRow] {
    let work = workDirectory + "/live-propagation"
    try? FileSystem.removeTree(work)
    _ = try FileSystem.createDirectories(work)
    var rows: [BenchmarkRow] = []

    func row(_ name: String, _ latencies: [Double], p50Target: Double?, p99Target: Double, targetText: String) -> BenchmarkRow {
        let sorted = latencies.sorted()
        let p50 = sorted[sorted.count / 2]
        let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        let met = p99 <= p99Target && (p50Target.map { p50 <= $0 } ?? true)
        return BenchmarkRow(
            name: "live: \(name)", scale: edits, value: "p50 " + Format.milliseconds(p50), target: targetText, met: met,
            note: "p99 " + Format.milliseconds(p99) + ", max " + Format.milliseconds(sorted.last ?? 0) + " over \(edits) edits")
    }

    // Two folders: one watch.
    do {
        let (a, b) = (work + "/folders-a", work + "/folders-b")
        try makeStores(a, b, ferry: ferry)
        let watch = try LiveChild(ferry, ["sync", a, b, "--watch", "--interval", "600"], log: work + "/folders.log")
        defer { watch.stop() }
        try watch.waitForLog("watching", seconds: 60)
        rows.append(row("two folders", try propagate(from: a, to: b, edits: edits), p50Target: nil, p99Target: 0.250, targetText: "p99 ≤ 250 ms"))
    }

    // A hub folder: a watch on each side.
    do {
        let (a, b, hub) = (work + "/hub-a", work + "/hub-b", work + "/hub")
        try makeStores(a, b, ferry: ferry, through: hub, hub: true)
        let watches = try [a, b].map { try LiveChild(ferry, ["sync", $0, hub, "--watch", "--interval", "600"], log: $0 + ".log") }
        defer { watches.forEach { $0.stop() } }
        for watch in watches { try watch.waitForLog("watching", seconds: 60) }
        rows.append(row("hub folder", try propagate(from: a, to: b, edits: edits), p50Target: nil, p99Target: 0.250, targetText: "p99 ≤ 250 ms"))
    }

    // An S3 hub: a watch on each side, listing heads with backoff.
    if let weed = BenchSeaweedFS.executable() {
        let server = try BenchSeaweedFS.start(executable: weed, directory: work + "/weed")
        defer { server.stop() }
        try server.createBucket("live")
        setenv("AWS_ACCESS_KEY_ID", "bench", 1)
        setenv("AWS_SECRET_ACCESS_KEY", "bench-secret", 1)
        setenv("AWS_ENDPOINT_URL_S3", server.endpoint, 1)
        setenv("AWS_REGION", "us-east-1", 1)
        let (a, b, hub) = (work + "/s3-a", work + "/s3-b", "s3://live/notes")
        try makeStores(a, b, ferry: ferry, through: hub, hub: true)
        let watches = try [a, b].map { try LiveChild(ferry, ["sync", $0, hub, "--watch"], log: $0 + ".log") }
        defer { watches.forEach { $0.stop() } }
        for watch in watches { try watch.waitForLog("watching", seconds: 60) }
        rows.append(row("S3 hub, active", try propagate(from: a, to: b, edits: edits), p50Target: nil, p99Target: 2, targetText: "p99 ≤ 2 s"))
    } else {
        rows.append(BenchmarkRow(name: "live: S3 hub: skipped", scale: edits, value: "-", note: "weed not found: run scripts/install-test-tools.sh"))
    }

    // ferry serve: each side watches the served store, which pushes through its change feed.
    do {
        let root = work + "/served"
        _ = try FileSystem.createDirectories(root)
        guard try MeasuredProcess.run(ferry, ["init", root + "/s", "--name", "server"]).status == 0 else { throw BenchError("ferry init (served) failed") }
        let serve = try LiveChild(ferry, ["serve", root, "--port", "0", "--no-auth"], log: work + "/serve.log")
        defer { serve.stop() }
        let said = try serve.waitForLog("serving", seconds: 60)
        guard let range = said.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else {
            throw BenchError("ferry serve did not say its port: \(said)")
        }
        let url = String(said[range]) + "/s"
        let (a, b) = (work + "/served-a", work + "/served-b")
        try makeStores(a, b, ferry: ferry, through: url)
        let watches = try [a, b].map { try LiveChild(ferry, ["sync", $0, url, "--watch", "--interval", "600"], log: $0 + ".log") }
        defer { watches.forEach { $0.stop() } }
        for watch in watches { try watch.waitForLog("watching", seconds: 60) }
        rows.append(row(
            "ferry serve", try propagate(from: a, to: b, edits: edits), p50Target: 0.050, p99Target: 0.250,
            targetText: "p50 ≤ 50 ms, p99 ≤ 250 ms"))
    }
    return rows
}

/// Stores `a` and `b` holding the record the edits change, synced once (through `peer` when
/// given), so that the watches start up to date.
private func makeStores(_ a: String, _ b: String, ferry: String, through peer: String? = nil, hub: Bool = false) throws {
    func run(_ arguments: [String]) throws {
        let result = try MeasuredProcess.run(ferry, arguments)
        guard result.status == 0 else { throw BenchError("ferry \(arguments.joined(separator: " ")) exited \(result.status)") }
    }
    try run(["init", a, "--name", "a"])
    try run(["init", b, "--name", "b"])
    if let peer, hub { try run(["hub", "init", peer, "--open"]) }
    try run(["put", a, "Item", "e0", "--json", #"{"n": -1}"#])
    if let peer {
        try run(["sync", a, peer])
        try run(["sync", b, peer])
    } else {
        try run(["sync", b, a])
    }
}

/// Writes `edits` edits on the store at `a`, one at a time, and returns how long each took to
/// reach its record file in `b`.
private func propagate(from a: String, to b: String, edits: Int) throws -> [Double] {
    let store = try Store.open(at: a)
    defer { store.close() }
    let entity = try EntityName("Item")
    let folder = b + "/records/Item"
    let events = try DirectoryEvents()
    guard try events.watch(folder) else { throw BenchError("\(folder) is missing: the first sync did not bring Item/e0") }
    var latencies: [Double] = []
    for edit in 0..<(edits + 5) {
        let key = RecordKey(entity: entity, id: try RecordID("e\(edit % 10)"))
        try store.write([.put(key, ["n": .integer(Int64(edit))])])
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + 30_000_000_000
        let file = folder + "/e\(edit % 10).json"
        while !holds(file, edit) {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { throw BenchError("edit \(edit) on \(a) was not on \(b) after 30 s") }
            _ = try events.read(timeout: .nanoseconds(Int64(deadline - now)), wakeup: nil)
        }
        // The first edits warm up (the watches' first rounds, connections): not counted.
        if edit >= 5 { latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9) }
    }
    return latencies
}

private func holds(_ file: String, _ edit: Int) -> Bool {
    guard let bytes = try? FileSystem.readFile(file), let document = try? JSONParser.parse(bytes) else { return false }
    return document.objectValue?["n"] == .integer(Int64(edit))
}

/// A `ferry` process with its stderr and stdout in a log file, stopped with SIGTERM.
final class LiveChild {
    private let process = Process()
    private let log: String

    init(_ ferry: String, _ arguments: [String], log: String) throws {
        self.log = log
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.executableURL = URL(fileURLWithPath: ferry)
        process.arguments = arguments
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    /// Waits until the log holds `text`; returns the log.
    @discardableResult
    func waitForLog(_ text: String, seconds: Double) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if said.contains(text) { return said }
            guard process.isRunning else { throw BenchError("\(process.arguments?.joined(separator: " ") ?? "ferry") ended: \(said)") }
            usleep(20_000)
        }
        throw BenchError("\(process.arguments?.joined(separator: " ") ?? "ferry") did not say \(text) in \(Int(seconds)) s")
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
