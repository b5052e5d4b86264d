import Ferry
import Foundation

/// The audit suite: `verify` of a `scale`-record store, `diff` of two `scale`-record replicas
/// that differ by 100 changes, and `log --id` on a journal of ten changes per record (1M
/// entries at 100k records). Each is timed through the library (opening the stores included,
/// as the CLI does) and, when the `ferry` binary sits next to `ferry-bench`, as a whole process.
///
/// - Parameters:
///   - scale: Records per store (100,000 for the targets).
///   - workDirectory: A directory for the stores; they stay until the run's work directory
///     is removed at its end (deleting them here would slow the next scale's file creation,
///     see `main.swift`).
/// - Returns: One row per figure.
func auditBenchmarks(scale: Int, workDirectory: String) throws -> [BenchmarkRow] {
    let root = workDirectory + "/audit-\(scale)"
    try? FileSystem.removeTree(root)
    _ = try FileSystem.createDirectories(root)
    let ferry = AuditBench.ferryBinary()
    var rows: [BenchmarkRow] = []
    let targetScale = 100_000

    // verify
    let single = root + "/single"
    try AuditBench.makeStore(at: single, name: "laptop", records: scale, rounds: 1)
    let verifySeconds = Measure.median(try (0..<3).map { _ in
        try Measure.seconds {
            let report = try Store.verify(at: single)
            guard report.isClean else { throw AuditBench.Failure("verify found \(report.findings.count) problems") }
        }
    })
    rows.append(AuditBench.row("verify (library)", scale, verifySeconds, limit: 3.0 * Double(scale) / Double(targetScale)))
    if let ferry {
        let run = try Measure.process(ferry, ["verify", single])
        rows.append(AuditBench.row("ferry verify (process)", scale, run.seconds, limit: 3.0 * Double(scale) / Double(targetScale),
            note: run.status == 0 ? "" : "exit \(run.status)"))
    }

    // diff of two replicas differing by 100 changes
    let first = root + "/a"
    let second = root + "/b"
    try AuditBench.makeStore(at: first, name: "a", records: scale, rounds: 1)
    try AuditBench.copyReplica(from: first, to: second, name: "b")
    try AuditBench.edit(first, count: 50, tag: "a")
    try AuditBench.edit(second, count: 50, tag: "b")
    var differences = 0
    let diffSeconds = Measure.median(try (0..<3).map { _ in
        try Measure.seconds {
            let a = try Store.open(at: first)
            let b = try Store.open(at: second)
            let comparison = try a.compare(with: b)
            differences = comparison.onlyInFirst.count + comparison.onlyInSecond.count
            a.close()
            b.close()
        }
    })
    rows.append(AuditBench.row("diff, 100 changes apart (library)", scale, diffSeconds, limit: 1.0,
        note: differences == 100 ? "" : "found \(differences) changes, expected 100"))
    if let ferry {
        let run = try Measure.process(ferry, ["diff", first, second])
        rows.append(AuditBench.row("ferry diff (process)", scale, run.seconds, limit: 1.0, note: run.status == 1 ? "" : "exit \(run.status)"))
    }

    // log --id on a journal of ten changes per record
    let long = root + "/long"
    try AuditBench.makeStore(at: long, name: "laptop", records: scale, rounds: 10)
    let id = try RecordID("p\(scale / 2)")
    var found = 0
    let logSeconds = Measure.median(try (0..<3).map { _ in
        try Measure.seconds {
            let store = try Store.open(at: long)
            found = try store.log(LogQuery(id: id)).count
            store.close()
        }
    })
    rows.append(AuditBench.row("log --id, \(scale * 10) entries (library)", scale, logSeconds, limit: 1.0,
        note: found == 10 ? "" : "found \(found) versions, expected 10"))
    if let ferry {
        let run = try Measure.process(ferry, ["log", long, "--id", id.rawValue])
        rows.append(AuditBench.row("ferry log --id (process)", scale, run.seconds, limit: 1.0, note: run.status == 0 ? "" : "exit \(run.status)"))
    }
    return rows
}

/// Store builders and helpers for ``auditBenchmarks(scale:workDirectory:)``.
enum AuditBench {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let entity = try! EntityName("Product")

    /// A product document of about 150 bytes, different in each round.
    static func document(_ index: Int, round: Int) -> JSONValue {
        [
            "name": .string("Product \(index)"), "price": .integer(Int64(index % 1000 + round)),
            "tags": ["home", .string("batch-\(index % 17)")],
            "address": ["city": .string(round % 2 == 0 ? "Lyon" : "Paris"), "zip": .string("690\(index % 100)")],
            "revision": .integer(Int64(round)),
        ]
    }

    /// A store with `records` products, each written `rounds` times (rounds `firstRound`,
    /// `firstRound + 1`, …), in batches of 10,000.
    static func makeStore(at path: String, name: String, records: Int, rounds: Int, firstRound: Int = 0) throws {
        let store = try Store.create(at: path, name: name)
        for round in firstRound..<(firstRound + rounds) {
            var start = 0
            while start < records {
                let end = min(records, start + 10_000)
                var writes: [RecordWrite] = []
                writes.reserveCapacity(end - start)
                for index in start..<end {
                    writes.append(.put(RecordKey(entity: entity, id: try RecordID("p\(index)")), document(index, round: round)))
                }
                try store.write(writes)
                start = end
            }
        }
        store.close()
    }

    /// A second replica of the store at `source`, made by a full sync.
    static func copyReplica(from source: String, to path: String, name: String) throws {
        let store = try Store.create(at: path, name: name)
        let done = DispatchSemaphore(value: 0)
        let failure = Outcome()
        Task {
            do { _ = try await store.sync(with: FolderTransport(path: source)) } catch { failure.set(error) }
            done.signal()
        }
        done.wait()
        store.close()
        if let error = failure.get() { throw error }
    }

    /// Changes `count` records of the store at `path` (a different slice for each tag).
    static func edit(_ path: String, count: Int, tag: String) throws {
        let store = try Store.open(at: path)
        let offset = tag == "a" ? 0 : 1_000
        var writes: [RecordWrite] = []
        for index in 0..<count {
            writes.append(.put(RecordKey(entity: entity, id: try RecordID("p\(offset + index)")), ["edited": .string(tag)]))
        }
        try store.write(writes)
        store.close()
    }

    /// The error a sync task ended with, read after it signalled.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var error: (any Error)?
        func get() -> (any Error)? { lock.withLock { error } }
        func set(_ newValue: any Error) { lock.withLock { error = newValue } }
    }

    /// The `ferry` binary next to this `ferry-bench`, if built.
    static func ferryBinary() -> String? {
        let bench = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let path = bench.deletingLastPathComponent().appendingPathComponent("ferry").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    static func row(_ name: String, _ scale: Int, _ seconds: Double, limit: Double, note: String = "") -> BenchmarkRow {
        BenchmarkRow(
            name: name, scale: scale, value: Format.seconds(seconds), target: String(format: "≤ %.1f s", limit),
            met: seconds <= limit, note: note)
    }
}
