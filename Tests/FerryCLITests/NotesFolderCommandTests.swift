import Ferry
import FerryTestSupport
import Foundation
import Testing

/// A folder of notes, run as a user would (issue 52, items 4 and 4b): what `ferry verify` advises
/// works, leftovers of editors and drives are never a warning, and an import read whole says so
/// before the work.
@Suite struct NotesFolderCommandTests {
    static let note = try! EntityName("Note")

    /// A store of notes `first`, `second`, `third`, `gone` (deleted), `Plan` and `Shopping List`;
    /// with `stale`, also `old` and `dropped` (deleted) whose files hold an earlier version.
    static func notes(_ directory: TemporaryDirectory, _ name: String = "notes", stale: Bool = false) throws -> String {
        let store = try Store.create(at: directory.subpath(name))
        defer { store.close() }
        for id in ["first", "second", "third", "gone", "Plan", "Shopping List"] {
            try store.put(["text": .string(id)], entity: note, id: RecordID(id))
        }
        try store.delete(entity: note, id: RecordID("gone"))
        guard stale else { return store.path }
        for id in ["old", "dropped"] {
            let key = RecordKey(entity: note, id: try RecordID(id))
            try store.put(["v": 1], entity: note, id: key.id)
            let earlier = try FileSystem.readFile(store.layout.recordFile(key))
            if id == "old" { try store.put(["v": 2], entity: note, id: key.id) } else { try store.delete(entity: note, id: key.id) }
            _ = try FileSystem.writeFileAtomically(store.layout.recordFile(key), earlier, durable: false)
        }
        return store.path
    }

    static func write(_ path: String, _ text: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Every kind of record-file finding, each fixed by doing what `verify` says: the commands
    /// it quotes are run as quoted.
    @Test func verifysAdviceFixesEveryRecordFileFinding() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.notes(directory, stale: true)
        let folder = store + "/records/Note/"
        try Self.write(folder + "first.json", #"{"text": "first, edited"}"#)  // modified
        try Self.write(folder + "new.json", #"{"text": "new"}"#)  // created
        try Self.write(folder + "Todo.json", #"{"text": "call Bob"}"#)  // created, named by hand
        try Self.write(folder + "gone.json", #"{"text": "back"}"#)  // re-created
        try Self.write(folder + "broken.json", #"{"text": "#)  // created, not JSON
        try Self.write(folder + "second.json", "{oops")  // modified, not JSON
        try FileManager.default.removeItem(atPath: folder + "third.json")  // missing
        try FileManager.default.removeItem(atPath: folder + "^shopping%20^list.json")  // missing, an id with a space
        try Self.write(folder + "notes.txt", "shopping")  // not a record file
        try FileManager.default.createDirectory(atPath: folder + "sub", withIntermediateDirectories: false)  // a stray folder
        try Self.write(folder + "sub/x.json", "{}")
        try Self.write(folder + "Plan.json", #"{"text": "twin"}"#)  // a second file for Plan (^plan.json)
        try Self.write(folder + "Idea.json", #"{"n": 1}"#)  // one file on a case-insensitive file system…
        try Self.write(folder + "IDEA.json", #"{"n": 2}"#)  // …with this one

        let verify = try runFerry(["verify", store])
        #expect(verify.exitCode != 0)
        let findings = verify.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("records/") }
        func finding(_ name: String) -> String { findings.first { $0.hasPrefix("records/Note/\(name):") } ?? "(none for \(name))" }
        let commit = "uncommitted edit (run ferry commit)"
        for name in ["first.json", "new.json", "Todo.json", "gone.json"] { #expect(finding(name).contains(commit), "\(finding(name))") }
        #expect(finding("Todo.json").contains("renames it to records/Note/^todo.json"))
        #expect(finding("broken.json").contains("invalid record file (fix it, then run ferry commit)"), "\(finding("broken.json"))")
        #expect(finding("second.json").contains("'ferry get "), "\(finding("second.json"))")
        #expect(finding("third.json").contains("'ferry get "), "\(finding("third.json"))")
        #expect(finding("^shopping%20^list.json").contains(#" Note "Shopping List" > "#), "\(finding("^shopping%20^list.json"))")
        #expect(finding("old.json").contains("stale: ") && finding("old.json").contains("'ferry get "), "\(finding("old.json"))")
        #expect(finding("dropped.json").contains("remove the file"), "\(finding("dropped.json"))")
        let notARecord = "not a record (move it out of records/, or list it in .ferryignore)"
        for name in ["notes.txt", "sub/x.json", "Plan.json", "Idea.json", "IDEA.json"] {
            #expect(finding(name).contains(notARecord), "\(finding(name))")
        }
        #expect(findings.count == 15, "\(verify)")

        // What it says, done: the quoted commands run as quoted, the rest as said.
        let binary = try ferryBinaryPath()
        for line in [finding("second.json"), finding("third.json"), finding("^shopping%20^list.json"), finding("old.json")] {
            guard let start = line.range(of: "'ferry get "), let end = line[start.upperBound...].firstIndex(of: "'") else { continue }
            let command = binary + " get " + line[start.upperBound..<end]
            let restored = try runProgram("/bin/sh", ["-c", command])
            #expect(restored.exitCode == 0, "\(command): \(restored)")
        }
        try Self.write(folder + "broken.json", #"{"text": "fixed"}"#)
        try FileManager.default.moveItem(atPath: folder + "notes.txt", toPath: directory.path + "/notes.txt")
        try Self.write(store + "/.ferryignore", "records/Note/sub/\n")
        try FileManager.default.removeItem(atPath: folder + "Plan.json")
        try FileManager.default.removeItem(atPath: folder + "IDEA.json")
        try FileManager.default.removeItem(atPath: folder + "dropped.json")
        let committed = try runFerry(["commit", store])
        #expect(committed.exitCode == 0, "\(committed)")
        #expect(committed.stdout.contains("records/Note/Todo.json (record \"Todo\", renamed to records/Note/^todo.json)"), "\(committed)")
        let after = try runFerry(["verify", store])
        #expect(after.exitCode == 0, "\(after)")
        #expect(after.stdout.contains("ok:"), "\(after)")
    }

    /// A conflict file removed by hand: a commit would not bring it back; the resolve that
    /// verify quotes ends the conflict, and verify is clean.
    @Test func aMissingConflictFileIsFixedAsVerifySays() throws {
        let directory = try TemporaryDirectory()
        let (a, b) = (directory.subpath("a"), directory.subpath("b"))
        for arguments in [
            ["init", a], ["init", b], ["put", a, "Note", "n", "--json", #"{"v": 1}"#], ["sync", a, b],
            ["put", a, "Note", "n", "--json", #"{"v": 2}"#], ["put", b, "Note", "n", "--json", #"{"v": 3}"#], ["sync", a, b],
        ] {
            let result = try runFerry(arguments)
            #expect(result.exitCode == 0, "\(arguments): \(result)")
        }
        let conflictFiles = try FileManager.default.subpathsOfDirectory(atPath: a + "/conflicts").filter { $0.hasSuffix(".json") }
        #expect(conflictFiles.count == 1)
        for file in conflictFiles { try FileManager.default.removeItem(atPath: a + "/conflicts/" + file) }
        let verify = try runFerry(["verify", a])
        #expect(verify.exitCode != 0)
        #expect(verify.stdout.contains("missing conflict file (resolve the conflict)"), "\(verify)")
        guard let start = verify.stdout.range(of: "'ferry resolve "), let end = verify.stdout[start.upperBound...].firstIndex(of: "'") else {
            Issue.record("no command quoted: \(verify)")
            return
        }
        let command = try ferryBinaryPath() + " resolve " + verify.stdout[start.upperBound..<end]
        let resolved = try runProgram("/bin/sh", ["-c", command])
        #expect(resolved.exitCode == 0, "\(command): \(resolved)")
        let after = try runFerry(["verify", a])
        #expect(after.exitCode == 0, "\(after)")
    }

    /// Leftovers of editors, systems and drives: not a word from status, commit, sync or verify.
    @Test func leftoversAreNeverAWarning() throws {
        let directory = try TemporaryDirectory()
        let laptop = try Self.notes(directory, "laptop")
        let phone = try Store.create(at: directory.subpath("phone")).path
        for path in ["records/Note/.first.json.swp", "records/Note/first.json~", "records/Note/#first.json#", "records/Note/.DS_Store",
            "records/.DS_Store", "records/Note/Thumbs.db", "records/Note/desktop.ini", "records/Note/Icon.icloud"]
        {
            try Self.write(laptop + "/" + path, "junk {")
        }
        try Self.write(laptop + "/records/Note/Grocery List.json", #"{"items": ["milk"]}"#)
        let status = try runFerry(["status", laptop])
        #expect(status.exitCode == 0 && !status.stdout.contains("invalid") && status.stderr.isEmpty, "\(status)")
        let sync = try runFerry(["sync", laptop, phone])
        #expect(sync.exitCode == 0, "\(sync)")
        #expect(!sync.stderr.contains("warning"), "\(sync)")
        let got = try runFerry(["get", phone, "Note", "Grocery List"])
        #expect(got.exitCode == 0 && got.stdout.contains("milk"), "\(got)")
        for store in [laptop, phone] {
            let verify = try runFerry(["verify", store])
            #expect(verify.exitCode == 0, "\(verify)")
        }
    }

    /// Users whose note 50 moves to user 2090, in the second batch of 2,048: the batches depend on
    /// each other, so the input is read whole. With `broken`, item 4500 (a batch the first pass
    /// never reaches) is not JSON, so the import fails as it parses the whole input.
    static func dependentUsers(broken: Bool) -> String {
        var text = "[\n" + (1...5_000).map { id in
            let notes = id == 5 ? [51] : id == 2_090 ? [20_900, 50] : [10 * id, 10 * id + 1]
            let noteItems = notes.map { #"{"id": \#($0), "text": "note \#($0)"}"# }.joined(separator: ", ")
            return #"  {"id": \#(id), "first_name": "User \#(id)", "email": "u\#(id)@example.com", "notes": [\#(noteItems)]}"#
        }.joined(separator: ",\n") + "\n]\n"
        if broken { text = text.replacingOccurrences(of: #""id": 4500, "first_name""#, with: #""id": 4500,, "first_name""#) }
        return text
    }

    @Test func anImportReadWholeSaysSoBeforeTheWork() throws {
        let directory = try TemporaryDirectory()
        let store = try ImportCommandTests.sampleStore(directory)
        let seed = directory.path + "/seed.json"
        try Self.write(seed, #"[{"id": 5, "first_name": "User 5", "email": "u5@example.com", "notes": [{"id": 50, "text": "note 50"}]}]"#)
        #expect(try runFerry(["import", store, "User", seed]).exitCode == 0)

        let broken = directory.path + "/broken.json"
        try Self.write(broken, Self.dependentUsers(broken: true))
        let failed = try runFerry(["import", store, "User", broken], timeout: 300)
        #expect(failed.exitCode != 0, "\(failed)")
        let lines = failed.stderr.split(separator: "\n").map(String.init)
        // The note, then the error of the work it announced.
        #expect(lines.count == 2, "\(failed)")
        #expect(lines.first?.hasPrefix("note: reading \(broken) (") == true, "\(failed)")
        #expect(lines.first?.contains("whole instead of streaming it") == true && lines.first?.contains("Note/50") == true, "\(failed)")
        #expect(lines.last?.hasPrefix("error: ") == true, "\(failed)")

        let good = directory.path + "/users.json"
        try Self.write(good, Self.dependentUsers(broken: false))
        let imported = try runFerry(["import", store, "User", good], timeout: 300)
        #expect(imported.exitCode == 0, "\(imported)")
        #expect(imported.stderr.hasPrefix("note: reading \(good) ("), "\(imported)")
    }
}
