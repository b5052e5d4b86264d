import Ferry
import Foundation

/// Issue 6's import figures at `scale` items, with the baselines timed in the same run:
/// - importing a `scale`-item array into an empty store, against plain writes of the same record
///   files (open, write, close; no journal) and against the store's own batched put of the same
///   documents (target: within 2x of plain writes);
/// - re-importing the same array unchanged (target at 100k: ≤ 1.5 s and zero journal entries);
/// - importing it with 1% of the items changed (target at 100k: ≤ 2 s).
///
/// Each figure is one run: the import itself is the expensive, cache-cold operation measured.
func importBenchmarks(scale: Int, workDirectory: String) throws -> [BenchmarkRow] {
    let root = workDirectory + "/import-\(scale)"
    try? FileSystem.removeTree(root)
    _ = try FileSystem.createDirectories(root)
    defer { try? FileSystem.removeTree(root) }
    let entity = try EntityName("Item")
    let input = ImportBenchmarkData.items(scale, changedEvery: nil)
    let changed = ImportBenchmarkData.items(scale, changedEvery: 100)
    let documents = try JSONParser.parse(input, options: .init(maximumByteCount: 1 << 30)).arrayValue ?? []

    // Baseline 1: the record files written plainly, one open/write/close each.
    let plainDirectory = root + "/plain"
    _ = try FileSystem.createDirectories(plainDirectory)
    let plainSeconds = try Measure.seconds {
        for (offset, document) in documents.enumerated() {
            let file = try FileDescriptor.open(plainDirectory + "/\(offset + 1).json", .writeOnly, options: [.create, .truncate])
            try file.closeAfter { () throws(SystemError) in try file.writeAll(document.prettyBytes()) }
        }
    }

    // Baseline 2: the store's batched put of the same documents (journal, index, files).
    let batchStore = try Store.create(at: root + "/batch")
    let writes = try documents.enumerated().map { offset, document in
        RecordWrite.put(RecordKey(entity: entity, id: try RecordID(String(offset + 1))), document)
    }
    let batchSeconds = try Measure.seconds { try batchStore.write(writes) }
    batchStore.close()

    // The import, from the JSON text: parse, convert, diff, validate, one batch.
    let store = try Store.create(at: root + "/import")
    var firstReport: ImportReport?
    let importSeconds = try Measure.seconds { firstReport = try store.importRecords(input, into: entity) }
    let inserted = firstReport?.counts.inserted ?? 0

    let headBefore = store.headSequence
    var unchangedReport: ImportReport?
    let unchangedSeconds = try Measure.seconds { unchangedReport = try store.importRecords(input, into: entity) }
    let unchangedEntries = unchangedReport?.journalEntries ?? -1

    var changedReport: ImportReport?
    let changedSeconds = try Measure.seconds { changedReport = try store.importRecords(changed, into: entity) }
    store.close()

    let ratio = importSeconds / max(plainSeconds, 1e-9)
    let atFullScale = scale >= 100_000
    return [
        BenchmarkRow(name: "plain record file writes", scale: scale, value: Format.seconds(plainSeconds), note: Format.rate(scale, plainSeconds)),
        BenchmarkRow(name: "store batched put (same documents)", scale: scale, value: Format.seconds(batchSeconds), note: Format.ratio(batchSeconds, plainSeconds, "plain writes")),
        BenchmarkRow(
            name: "import into empty store", scale: scale, value: Format.seconds(importSeconds), target: "≤ 2x plain writes",
            met: ratio <= 2 && inserted == scale,
            note: Format.ratio(importSeconds, plainSeconds, "plain writes") + ", " + Format.ratio(importSeconds, batchSeconds, "batched put")),
        BenchmarkRow(
            name: "re-import unchanged", scale: scale, value: Format.seconds(unchangedSeconds), target: atFullScale ? "≤ 1.5 s, 0 entries" : "0 entries",
            met: unchangedEntries == 0 && store.headSequence >= headBefore && (!atFullScale || unchangedSeconds <= 1.5),
            note: "\(unchangedEntries) journal entries"),
        BenchmarkRow(
            name: "import with 1% changed", scale: scale, value: Format.seconds(changedSeconds), target: atFullScale ? "≤ 2 s" : "",
            met: atFullScale ? changedSeconds <= 2 && changedReport?.counts.updated == scale / 100 : nil,
            note: "\(changedReport?.counts.updated ?? 0) updated, \(changedReport?.journalEntries ?? 0) journal entries"),
    ]
}

/// The API-style input of the import benchmark.
enum ImportBenchmarkData {
    /// `count` items as JSON text: `{"id": n, "name": …, "email": …, "age": …, "createdAt": …,
    /// "active": …}`; with `changedEvery`, every such item has another name.
    static func items(_ count: Int, changedEvery: Int?) -> [UInt8] {
        var text = "["
        text.reserveCapacity(count * 140)
        for id in 1...max(count, 1) where count > 0 {
            if id > 1 { text += "," }
            let renamed = changedEvery.map { id % $0 == 0 } ?? false
            let day = 1 + id % 28
            text += #"{"id":\#(id),"name":"User \#(id)\#(renamed ? " (renamed)" : "")","email":"user\#(id)@example.com","#
            text += #""age":\#(18 + id % 60),"createdAt":"2024-02-\#(day < 10 ? "0" : "")\#(day)T10:00:00.000Z","active":\#(id % 3 != 0)}"#
        }
        text += "]"
        return Array(text.utf8)
    }
}
