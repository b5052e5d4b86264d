import Ferry
import Foundation

/// What signing costs (issue 48): the same syncs with stores that sign and check signatures
/// and with stores that do neither (`StoreOptions.signsWork`, which only this benchmark turns
/// off), side by side in one run, alternating which goes first.
/// - a full pull of the whole history into an empty store (`--history full`: every change is
///   copied, and one signature an origin a page is checked), target ≤ 1.15x;
/// - an incremental sync of 100 changes made by 100 separate puts (100 signed batches, one
///   signature checked), median of 5, target ≤ 1.2x;
/// - writing the source store, for the record (one signature a batch of 1,000).
func signingBenchmarks(scale: Int, workDirectory: String) async throws -> [BenchmarkRow] {
    let notes = try EntityName("Note")
    var write: [Bool: [Double]] = [:], full: [Bool: [Double]] = [:], incremental: [Bool: [Double]] = [:]
    for round in 0..<2 {
        // Alternate which goes first: the second of a pair meets a warmer page cache.
        for signs in round == 0 ? [true, false] : [false, true] {
            var options = StoreOptions()
            options.signsWork = signs
            let directory = workDirectory + "/signing-\(signs ? "on" : "off")-\(round)"
            try? FileManager.default.removeItem(atPath: directory)
            let source = try Store.create(at: directory + "/source", options: options)
            write[signs, default: []].append(try Measure.seconds {
                var index = 0
                while index < scale {
                    let end = min(scale, index + 1_000)
                    try source.write((index..<end).map { .put(RecordKey(entity: notes, id: try RecordID("n\($0)")), ["title": .string("note \($0)"), "n": .integer(Int64($0))]) })
                    index = end
                }
            })
            let target = try Store.create(at: directory + "/target", options: options)
            var syncOptions = SyncOptions()
            syncOptions.history = .full
            var pulled = 0
            full[signs, default: []].append(try await Measure.seconds {
                pulled = try await target.sync(with: FolderTransport(path: source.path, options: options), options: syncOptions).pulled
            })
            guard pulled == scale else { throw BenchmarkError("signing: the full pull took \(pulled) of \(scale) changes") }
            for repetition in 0..<5 {
                for edit in 0..<100 {
                    try source.put(["title": .string("edit \(repetition)"), "n": .integer(Int64(edit))], entity: notes, id: RecordID("n\(edit * 7 % scale)"))
                }
                var report: SyncReport?
                incremental[signs, default: []].append(try await Measure.seconds {
                    report = try await target.sync(with: FolderTransport(path: source.path, options: options), options: syncOptions)
                })
                guard report?.pulled == 100 else { throw BenchmarkError("signing: an incremental sync pulled \(report?.pulled ?? 0) of 100") }
            }
            source.close()
            target.close()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
    func row(_ name: String, _ samples: [Bool: [Double]], target: Double?, format: (Double) -> String) -> BenchmarkRow {
        let on = Measure.median(samples[true] ?? []), off = Measure.median(samples[false] ?? [])
        var row = BenchmarkRow(name: name, scale: scale, value: format(on), note: Format.ratio(on, off, "unsigned") + " (unsigned \(format(off)))")
        if let target {
            row.target = String(format: "≤ %.2fx unsigned", target)
            row.met = on <= off * target
        }
        return row
    }
    return [
        row("signing: write, batches of 1,000", write, target: nil, format: Format.seconds),
        row("signing: full pull, whole history", full, target: 1.15, format: Format.seconds),
        row("signing: incremental, 100 puts (med of 10)", incremental, target: 1.2, format: Format.milliseconds),
    ]
}
