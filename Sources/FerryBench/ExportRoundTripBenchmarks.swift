import Ferry
import Foundation

/// Issue 52's round-trip figures: a GitHub-like store (issues, their authors, labels and
/// assignees: two many-to-many relationships) of `issues` issues, exported with the linked
/// records inline and imported back into the store it came from.
///
/// Targets: the import back is no change; export and import together take ≤ 2x the store's
/// first import of the same data; the process peaks at ≤ 200 MB while doing it. The export is
/// streamed to a file, as `ferry export` writes it.
func exportRoundTripBenchmarks(issues: Int, workDirectory: String) throws -> [BenchmarkRow] {
    let root = workDirectory + "/round-trip-\(issues)"
    try? FileSystem.removeTree(root)
    _ = try FileSystem.createDirectories(root)
    let store = try Store.create(at: root + "/store")
    defer { store.close() }
    try Data(GitHubLikeData.schema.utf8).write(to: URL(fileURLWithPath: store.layout.schema))
    let issue = try EntityName("Issue")
    let input = GitHubLikeData.issues(issues)

    var cpu = CPUTime()
    Measure.settle()
    _ = cpu.lap()
    let importSeconds = try Measure.seconds { _ = try store.importRecords(input, into: issue) }
    let importCPU = cpu.lap()

    var rows: [BenchmarkRow] = []
    for relationships in [ExportOptions.Relationships.array, .nested] {
        var options = ExportOptions()
        options.relationships = relationships
        let file = root + "/export-\(relationships).json"
        Measure.resetPeakMemory()
        Measure.settle()
        _ = cpu.lap()
        var bytes = 0
        let exportSeconds = try Measure.seconds {
            guard FileManager.default.createFile(atPath: file, contents: nil), let output = FileHandle(forWritingAtPath: file) else {
                throw SystemError("create", path: file, code: EIO)
            }
            defer { try? output.close() }
            var writer = PrettyJSONArrayWriter()
            try store.exportRecords(of: issue, options: options) { value in
                let chunk = writer.bytes(appending: value)
                bytes += chunk.count
                output.write(Data(chunk))
            }
            output.write(Data(writer.closingBytes()))
            try output.synchronize()
        }
        let exportCPU = cpu.lap()
        var report: ImportReport?
        let reimportSeconds = try Measure.seconds { report = try store.importRecords(try FileSystem.readFile(file, limit: 1 << 30), into: issue) }
        let reimportCPU = cpu.lap()
        let peak = Measure.peakMemoryMB()
        let total = exportSeconds + reimportSeconds
        let unchanged = report.map { !$0.hasChanges } ?? false
        rows.append(
            BenchmarkRow(
                name: "export --relationships \(relationships) + import back", scale: issues, value: Format.seconds(total),
                target: "no change, ≤ 2x first import", met: unchanged && total <= 2 * importSeconds,
                note: Format.ratio(total, importSeconds, "first import") + " (\(Format.seconds(importSeconds)), cpu \(importCPU.text))"
                    + ", export \(Format.seconds(exportSeconds)) cpu \(exportCPU.text), \(bytes / 1024) KB"
                    + ", import back cpu \(reimportCPU.text)" + (unchanged ? "" : ", CHANGED THE STORE")))
        rows.append(
            BenchmarkRow(
                name: "  peak memory of that round trip", scale: issues, value: String(format: "%.0f MB", peak),
                target: "≤ 200 MB", met: peak <= 200))
    }
    return rows
}

/// A GitHub-like API's issues: each with its author, up to four labels and up to three
/// assignees, inline, over `count / 10` users and 50 labels.
enum GitHubLikeData {
    static let schema = """
        {"formatVersion": 1, "entities": {
          "Issue": {"attributes": {"id": {"type": "integer"}, "title": {"type": "string"}, "state": {"type": "string"},
                                   "body": {"type": "string"}, "createdAt": {"type": "date"}},
                    "relationships": {"user": {"kind": "to-one", "target": "User", "inverse": "issues", "deleteRule": "nullify"},
                                      "labels": {"kind": "many-to-many", "target": "Label", "inverse": "issues"},
                                      "assignees": {"kind": "many-to-many", "target": "User", "inverse": "assigned"}}},
          "User": {"attributes": {"id": {"type": "integer"}, "login": {"type": "string"}, "siteAdmin": {"type": "bool"}},
                   "relationships": {"issues": {"kind": "to-many", "target": "Issue", "inverse": "user", "deleteRule": "nullify"},
                                     "assigned": {"kind": "many-to-many", "target": "Issue", "inverse": "assignees"}}},
          "Label": {"attributes": {"id": {"type": "integer"}, "name": {"type": "string"}, "color": {"type": "string"}},
                    "relationships": {"issues": {"kind": "many-to-many", "target": "Issue", "inverse": "labels"}}}}}
        """

    static func issues(_ count: Int) -> [UInt8] {
        let users = max(count / 10, 3)
        func user(_ id: Int) -> String { #"{"id":\#(id),"login":"user\#(id)","site_admin":\#(id % 50 == 0)}"# }
        func label(_ id: Int) -> String { #"{"id":\#(id),"name":"label \#(id)","color":"\#(String(id * 99_991 % 0xFFFFFF, radix: 16))"}"# }
        var text = "["
        for number in 1...max(count, 1) where count > 0 {
            if number > 1 { text += "," }
            let labels = (0..<(number % 5)).map { label((number + $0 * 13) % 50 + 1) }
            let assignees = Set((0..<(number % 4)).map { (number * 31 + $0 * 17) % users + 1 }).sorted().map(user)
            let day = 1 + number % 28
            text += #"{"id":\#(number),"title":"Issue \#(number)","state":"\#(number % 3 == 0 ? "closed" : "open")","#
            text += #""body":"Steps to reproduce issue \#(number): open the app, tap the button, and watch it fail.","#
            text += #""created_at":"2025-03-\#(day < 10 ? "0" : "")\#(day)T09:30:00Z","user":\#(user(number * 7 % users + 1)),"#
            text += #""labels":[\#(labels.joined(separator: ","))],"assignees":[\#(assignees.joined(separator: ","))]}"#
        }
        return Array((text + "]").utf8)
    }
}
