import FerryTestSupport
import Foundation
import Testing
@testable import Ferry
@testable import FerryCommandLine

/// `ferry list` and `ferry export` stream the index; their output must stay what sorting every
/// id gave, byte for byte, whatever the ids and wherever their records are (image, delta,
/// changes not yet in either), and export shows a progress line on a terminal only.
@Suite struct ListExportOrderTests {
    let notes = try! EntityName("Note")

    private func key(_ id: String) -> RecordKey { RecordKey(entity: notes, id: try! RecordID(id)) }

    /// A store whose `Note` records have tricky ids, in its image, its delta, and in the
    /// journal only (written by a store object that was not closed); returns its live ids.
    private func trickyStore(_ directory: TemporaryDirectory) throws -> (path: String, ids: [RecordID], writer: Store) {
        let path = directory.subpath("s")
        var options = StoreOptions()
        options.imageInterval = 100_000
        var live = Set<RecordID>()
        func put(_ ids: [String], _ store: Store) throws {
            try store.write(ids.map { .put(key($0), ["id": .string($0), "tags": ["x", "y"], "n": 1.5]) })
            for id in ids { live.insert(try RecordID(id)) }
        }
        func delete(_ ids: [String], _ store: Store) throws {
            try store.write(ids.map { .delete(key($0)) })
            for id in ids { live.remove(try RecordID(id)) }
        }
        do {
            let store = try Store.create(at: path, options: options)
            try put(["a", "a b", "a/b", "a:b", "a-b", "Alice", "zeta", "Zürich", "Zug", "日本", "é", "e\u{301}", ".dot", "100%"], store)
            try put([String(repeating: "é", count: 120), String(repeating: "x", count: 245) + ":1"], store)
            try put((0..<40).map { "order:\($0)" } + (0..<40).map { "n\($0)" }, store)
            try store.writeIndexImage()
            store.close()
        }
        do {
            let store = try Store.open(at: path, options: options)
            try delete(["a/b", "é", "order:3", "n7"], store)
            try put(["a:c", "日本語", "Zz", "order:40"], store)
            store.close()
        }
        let writer = try Store.open(at: path, options: options)
        try delete(["a b", "order:5"], writer)
        try put(["a:d", "~", "ü", "order:41"], writer)
        return (path, live.sorted(), writer)
    }

    @Test func listAndExportPrintIDsInByteOrderFromEveryPartOfTheIndex() async throws {
        let directory = try TemporaryDirectory()
        let (path, ids, writer) = try trickyStore(directory)
        defer { writer.close() }
        #expect(FileSystem.exists(path + "/.ferry/index-delta"))
        let commands: [any Command.Type] = [ListCommand.self, ExportCommand.self]

        let list = await runInProcess(["list", path, "Note"], commands: commands)
        #expect(list.exitCode == .success, "\(list.stderr)")
        #expect(list.stdout == ids.map { $0.rawValue + "\n" }.joined())

        let json = await runInProcess(["list", path, "Note", "--json"], commands: commands)
        let reader = try Store.open(at: path)
        defer { reader.close() }
        var expectedLines = ""
        for id in ids {
            let document = try #require(try reader.get(entity: notes, id: id))
            expectedLines += String(decoding: JSONValue.object(["id": .string(id.rawValue), "document": document]).canonicalBytes(), as: UTF8.self) + "\n"
        }
        #expect(json.stdout == expectedLines)

        let export = await runInProcess(["export", path, "Note"], commands: commands)
        #expect(export.exitCode == .success, "\(export.stderr)")
        var arrayWriter = PrettyJSONArrayWriter()
        var expected: [UInt8] = []
        for id in ids { expected += arrayWriter.bytes(appending: try reader.exportRecord(id, of: notes)) }
        expected += arrayWriter.closingBytes()
        #expect(export.stdout == String(decoding: expected, as: UTF8.self))
    }

    @Test func exportDrawsProgressOnATerminalOnly() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        try store.write((0..<1_500).map { .put(key("n\($0)"), ["n": .integer(Int64($0))]) })
        store.close()
        let commands: [any Command.Type] = [ExportCommand.self]
        let piped = await runInProcess(["export", path, "Note"], commands: commands)
        #expect(piped.exitCode == .success)
        #expect(piped.stderr.isEmpty)
        let terminal = await runInProcess(["export", path, "Note"], commands: commands, stderrIsTerminal: true)
        #expect(terminal.exitCode == .success)
        #expect(terminal.stderr.contains("export: records  1,500/1,500 records"), "\(terminal.stderr)")
        #expect(terminal.stderr.hasSuffix("\r\u{1B}[K"), "the line is erased at the end")
        #expect(terminal.stdout == piped.stdout)
        let json = await runInProcess(["export", path, "Note", "--json"], commands: commands, stderrIsTerminal: true)
        #expect(json.stderr.isEmpty)
        #expect(json.stdout == piped.stdout)
    }
}
