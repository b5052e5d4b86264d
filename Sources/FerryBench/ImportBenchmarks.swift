import Ferry
import Foundation

/// Issue 6's import figures at `scale` items, with the baselines timed in the same run:
/// - importing a `scale`-item array into an empty store, against plain writes of the same record
///   files (open, write, close; no journal) and against the store's own batched put of the same
///   documents (target at 100k: within 2x of plain writes; smaller scales show the ratio only,
///   as the issue sets no target for them);
/// - re-importing the same array unchanged (target at 100k: ≤ 1.5 s and zero journal entries);
/// - importing it with 1% of the items changed (target at 100k: ≤ 2 s).
///
/// Each figure is one run: the import itself is the expensive, cache-cold operation measured.
/// The notes give the process CPU time of each step too, which other processes on a shared
/// machine disturb far less than the wall time.
func importBenchmarks(scale: Int, workDirectory: String) throws -> [BenchmarkRow] {
    let root = workDirectory + "/import-\(scale)"
    try? FileSystem.removeTree(root)
    _ = try FileSystem.createDirectories(root)
    let entity = try EntityName("Item")
    let input = ImportBenchmarkData.items(scale, changedEvery: nil)
    let changed = ImportBenchmarkData.items(scale, changedEvery: 100)
    let documents = try JSONParser.parse(input, options: .init(maximumByteCount: 1 << 30)).arrayValue ?? []

    // Baseline 1: the record files written plainly, one open/write/close each.
    var cpu = CPUTime()
    func plainWrites(_ name: String) throws -> (seconds: Double, cpu: CPUSeconds) {
        let directory = root + "/" + name
        _ = try FileSystem.createDirectories(directory)
        Measure.settle()
        _ = cpu.lap()
        let seconds = try Measure.seconds {
            for (offset, document) in documents.enumerated() {
                let file = try FileDescriptor.open(directory + "/\(offset + 1).json", .writeOnly, options: [.create, .truncate])
                try file.closeAfter { () throws(SystemError) in try file.writeAll(document.prettyBytes()) }
            }
        }
        return (seconds, cpu.lap())
    }

    // Baseline 2: the store's batched put of the same documents (journal, index, files).
    let writes = try documents.enumerated().map { offset, document in
        RecordWrite.put(RecordKey(entity: entity, id: try RecordID(String(offset + 1))), document)
    }
    func batchedPut(_ name: String) throws -> (seconds: Double, cpu: CPUSeconds) {
        let batchStore = try Store.create(at: root + "/" + name)
        defer { batchStore.close() }
        Measure.settle()
        _ = cpu.lap()
        let seconds = try Measure.seconds { try batchStore.write(writes) }
        return (seconds, cpu.lap())
    }

    // Each baseline runs before and after the import; the faster run counts, so that neither
    // side pays alone for a cold cache or a busy moment of a shared machine.
    let plainFirst = try plainWrites("plain1")
    let batchFirst = try batchedPut("batch1")

    // The import, from the JSON text: parse, convert, diff, validate, one batch.
    let store = try Store.create(at: root + "/import")
    var firstReport: ImportReport?
    // Each timed step starts with the file system's earlier work committed (`Measure.settle()`):
    // otherwise the import's first fsync commits the 200k files the baselines just created.
    Measure.settle()
    _ = cpu.lap()
    let importSeconds = try Measure.seconds { firstReport = try store.importRecords(input, into: entity) }
    let importCPU = cpu.lap()
    let inserted = firstReport?.counts.inserted ?? 0

    let headBefore = store.headSequence
    var unchangedReport: ImportReport?
    Measure.settle()
    _ = cpu.lap()
    let unchangedSeconds = try Measure.seconds { unchangedReport = try store.importRecords(input, into: entity) }
    let unchangedCPU = cpu.lap()
    let unchangedEntries = unchangedReport?.journalEntries ?? -1

    var changedReport: ImportReport?
    Measure.settle()
    _ = cpu.lap()
    let changedSeconds = try Measure.seconds { changedReport = try store.importRecords(changed, into: entity) }
    let changedCPU = cpu.lap()
    store.close()
    let plainSecond = try plainWrites("plain2")
    let batchSecond = try batchedPut("batch2")
    let (plainSeconds, plainCPU) = plainFirst.seconds <= plainSecond.seconds ? plainFirst : plainSecond
    let (batchSeconds, batchCPU) = batchFirst.seconds <= batchSecond.seconds ? batchFirst : batchSecond

    let ratio = importSeconds / max(plainSeconds, 1e-9)
    let atFullScale = scale >= 100_000
    return [
        BenchmarkRow(name: "plain record file writes", scale: scale, value: Format.seconds(plainSeconds), note: Format.rate(scale, plainSeconds) + ", cpu " + plainCPU.text),
        BenchmarkRow(name: "store batched put (same documents)", scale: scale, value: Format.seconds(batchSeconds), note: Format.ratio(batchSeconds, plainSeconds, "plain writes") + ", cpu " + batchCPU.text),
        BenchmarkRow(
            name: "import into empty store", scale: scale, value: Format.seconds(importSeconds), target: atFullScale ? "≤ 2x plain writes" : "",
            met: inserted != scale ? false : atFullScale ? ratio <= 2 : nil,
            note: Format.ratio(importSeconds, plainSeconds, "plain writes") + ", " + Format.ratio(importSeconds, batchSeconds, "batched put")
                + ", cpu " + importCPU.text),
        BenchmarkRow(
            name: "re-import unchanged", scale: scale, value: Format.seconds(unchangedSeconds), target: atFullScale ? "≤ 1.5 s, 0 entries" : "0 entries",
            met: unchangedEntries == 0 && store.headSequence >= headBefore && (!atFullScale || unchangedSeconds <= 1.5),
            note: "\(unchangedEntries) journal entries, cpu " + unchangedCPU.text),
        BenchmarkRow(
            name: "import with 1% changed", scale: scale, value: Format.seconds(changedSeconds), target: atFullScale ? "≤ 2 s" : "",
            met: atFullScale ? changedSeconds <= 2 && changedReport?.counts.updated == scale / 100 : nil,
            note: "\(changedReport?.counts.updated ?? 0) updated, \(changedReport?.journalEntries ?? 0) journal entries, cpu "
                + changedCPU.text),
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

/// The CPU time this process used (all threads), read between steps.
struct CPUTime {
    private var last = CPUTime.now()

    /// CPU time since the previous lap (or since the value was made).
    mutating func lap() -> CPUSeconds {
        let current = CPUTime.now()
        defer { last = current }
        return CPUSeconds(user: current.user - last.user, system: current.system - last.system)
    }

    private static func now() -> CPUSeconds {
        var usage = rusage()
        #if canImport(Glibc)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return .zero }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return CPUSeconds(user: seconds(usage.ru_utime), system: seconds(usage.ru_stime))
    }
}

/// Process CPU time, all threads: in our code (user) and in the kernel on our behalf (system,
/// mostly file creation here). The user part hardly depends on the file system's mood, so it
/// compares runs that the wall time cannot.
struct CPUSeconds {
    var user: Double
    var system: Double
    var total: Double { user + system }

    static let zero = CPUSeconds(user: 0, system: 0)

    static func + (lhs: CPUSeconds, rhs: CPUSeconds) -> CPUSeconds {
        CPUSeconds(user: lhs.user + rhs.user, system: lhs.system + rhs.system)
    }

    /// "5.07 s (user 2.31 s)".
    var text: String { Format.seconds(total) + " (user " + Format.seconds(user) + ")" }
}
