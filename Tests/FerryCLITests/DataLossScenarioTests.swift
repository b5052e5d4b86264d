import Foundation
import FerryTestSupport
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The ways a new user lost data silently before (issue 22), each run with the built binary.
@Suite struct DataLossScenarioTests {
    func ferry(_ arguments: [String], in directory: TemporaryDirectory) throws -> CLIResult {
        try runFerry(arguments, currentDirectory: directory.path)
    }

    func journalBytes(_ store: String) throws -> [String: Data] {
        let folder = store + "/journal"
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return files
    }

    @Test func aCopiedStoreIsStoppedThenReidentifiedAndNothingIsLost() throws {
        let directory = try TemporaryDirectory()
        for (store, name) in [("c1", "c1"), ("hub", "hub")] { #expect(try ferry(["init", store, "--name", name], in: directory).exitCode == 0) }
        _ = try ferry(["put", "c1", "Note", "shared", "--json", #"{"t": 0}"#], in: directory)
        #expect(try ferry(["sync", "c1", "hub"], in: directory).exitCode == 0)
        try FileManager.default.copyItem(atPath: directory.subpath("c1"), toPath: directory.subpath("c2"))
        _ = try ferry(["put", "c1", "Note", "from-c1", "--json", #"{"t": 1}"#], in: directory)
        _ = try ferry(["put", "c2", "Note", "from-c2", "--json", #"{"t": 2}"#], in: directory)
        _ = try ferry(["put", "c1", "Note", "shared", "--json", #"{"t": "c1"}"#], in: directory)
        _ = try ferry(["put", "c2", "Note", "shared", "--json", #"{"t": "c2"}"#], in: directory)
        #expect(try ferry(["sync", "c1", "hub"], in: directory).exitCode == 0)

        // The copy meets the hub: stopped, with what happened and what to run.
        let hubBefore = try journalBytes(directory.subpath("hub"))
        let refused = try ferry(["sync", "c2", "hub"], in: directory)
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(refused.stderr.contains("a store folder was copied"), "\(refused)")
        #expect(refused.stderr.contains("ferry reidentify \(directory.subpath("c2"))"), "\(refused)")
        #expect(try journalBytes(directory.subpath("hub")) == hubBefore)
        // Syncing the two copies directly, or diffing them, says so too.
        let direct = try ferry(["sync", "c2", "c1"], in: directory)
        #expect(direct.exitCode == 1 && direct.stderr.contains("same replica id"), "\(direct)")
        let diff = try ferry(["diff", "c1", "c2"], in: directory)
        #expect(diff.exitCode == 1, "\(diff)")
        #expect(diff.stdout.contains("diverged"), "\(diff)")

        let reidentified = try ferry(["reidentify", "c2"], in: directory)
        #expect(reidentified.exitCode == 0, "\(reidentified)")
        #expect(FileManager.default.fileExists(atPath: directory.subpath("c2.before-reidentify/ferry.json")))
        for store in ["c2", "c1", "c2"] { #expect(try ferry(["sync", store, "hub"], in: directory).exitCode == 0) }
        for store in ["c1", "c2", "hub"] {
            let list = try ferry(["list", store, "Note"], in: directory)
            #expect(list.stdout == "from-c1\nfrom-c2\nshared\n", "\(store): \(list)")
            #expect(try ferry(["verify", store], in: directory).exitCode == 0)
        }
        // Both edits of the shared record are kept: one wins, the other is a conflict.
        let conflicts = try ferry(["conflicts", "hub", "--json"], in: directory)
        #expect(conflicts.stdout.contains("Note/shared") || conflicts.stdout.contains("\"shared\""), "\(conflicts)")
    }

    @Test func aHandEditSurvivesASyncThatPullsANewerVersion() throws {
        let directory = try TemporaryDirectory()
        _ = try ferry(["init", "a", "--name", "a"], in: directory)
        _ = try ferry(["init", "b", "--name", "b"], in: directory)
        _ = try ferry(["put", "a", "Product", "p", "--json", #"{"price": 1}"#], in: directory)
        _ = try ferry(["sync", "b", "a"], in: directory)
        _ = try ferry(["put", "a", "Product", "p", "--json", #"{"price": 2}"#], in: directory)
        let file = directory.subpath("b/records/Product/p.json")
        try Data("{\n  \"price\": 99\n}\n".utf8).write(to: URL(fileURLWithPath: file))
        // Even with --no-commit, the edit is journaled before anything replaces the file.
        let sync = try ferry(["sync", "b", "a", "--no-commit"], in: directory)
        #expect(sync.exitCode == 0, "\(sync)")
        #expect(sync.stdout.contains("1 conflict"), "\(sync)")
        let versions = try ferry(["show", "b", "Product", "p", "--history"], in: directory)
        #expect(versions.stdout.contains("99"), "\(versions)")
        let conflicts = try ferry(["conflicts", "b"], in: directory)
        #expect(conflicts.stdout.contains("Product/p"), "\(conflicts)")
        // Both versions exist as files: the winner's record file and the loser's conflict file.
        let kept = try FileManager.default.subpathsOfDirectory(atPath: directory.subpath("b/conflicts"))
        let texts = try ([file] + kept.filter { $0.hasSuffix(".json") }.map { directory.subpath("b/conflicts/" + $0) })
            .map { try String(contentsOfFile: $0, encoding: .utf8) }
        #expect(texts.contains { $0.contains("99") } && texts.contains { $0.contains("\"price\": 2") }, "\(texts)")
    }

    @Test func aHandEditThatIsNotJSONStopsTheSyncInsteadOfBeingOverwritten() throws {
        let directory = try TemporaryDirectory()
        _ = try ferry(["init", "a"], in: directory)
        _ = try ferry(["init", "b"], in: directory)
        _ = try ferry(["put", "a", "Product", "p", "--json", #"{"price": 1}"#], in: directory)
        _ = try ferry(["sync", "b", "a"], in: directory)
        _ = try ferry(["put", "a", "Product", "p", "--json", #"{"price": 2}"#], in: directory)
        let file = directory.subpath("b/records/Product/p.json")
        try Data("{ price: half-typed".utf8).write(to: URL(fileURLWithPath: file))
        let sync = try ferry(["sync", "b", "a"], in: directory)
        #expect(sync.exitCode == 1, "\(sync)")
        #expect(sync.stderr.contains("edited by hand"), "\(sync)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "{ price: half-typed")
    }

    /// `put`, `import` and `delete` over a hand-edited record file: the edit is journaled first
    /// and each command says so; a file that is not JSON stops the write.
    @Test func localWritesJournalAHandEditBeforeReplacingIt() throws {
        let directory = try TemporaryDirectory()
        _ = try ferry(["init", "s"], in: directory)
        _ = try ferry(["put", "s", "Product", "1", "--json", #"{"price": 1}"#], in: directory)
        let file = directory.subpath("s/records/Product/1.json")
        try Data("{\n  \"price\": 99\n}\n".utf8).write(to: URL(fileURLWithPath: file))
        let put = try ferry(["put", "s", "Product", "1", "--json", #"{"price": 2}"#], in: directory)
        #expect(put.exitCode == 0 && put.stdout == "1\n", "\(put)")
        #expect(put.stderr.contains("note: records/Product/1.json was edited by hand"), "\(put)")
        #expect(put.stderr.contains("ferry show s Product 1 --history"), "\(put)")
        let history = try ferry(["show", "s", "Product", "1", "--history"], in: directory)
        #expect(history.stdout.contains("99"), "\(history)")

        try Data(#"{"price": 5, "made": "by hand"}"#.utf8).write(to: URL(fileURLWithPath: directory.subpath("s/records/Product/2.json")))
        try Data(#"[{"id": "1", "price": 2}, {"id": "2", "price": 3}]"#.utf8).write(to: URL(fileURLWithPath: directory.subpath("in.json")))
        let dryRun = try ferry(["import", "s", "Product", "in.json", "--dry-run"], in: directory)
        #expect(dryRun.stdout.contains("would journal the hand edit of records/Product/2.json first"), "\(dryRun)")
        let imported = try ferry(["import", "s", "Product", "in.json"], in: directory)
        #expect(imported.exitCode == 0, "\(imported)")
        #expect(imported.stdout.contains("journaled the hand edit of records/Product/2.json first"), "\(imported)")
        let made = try ferry(["show", "s", "Product", "2", "--history"], in: directory)
        #expect(made.stdout.contains("by hand"), "\(made)")

        try Data("not json".utf8).write(to: URL(fileURLWithPath: file))
        let refused = try ferry(["delete", "s", "Product", "1"], in: directory)
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(refused.stderr.contains("was edited by hand and is not a valid record"), "\(refused)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "not json")
    }

    @Test func aTamperedJournalLineNeverTravels() throws {
        let directory = try TemporaryDirectory()
        _ = try ferry(["init", "t"], in: directory)
        _ = try ferry(["init", "b"], in: directory)
        _ = try ferry(["put", "t", "Product", "p", "--json", #"{"price": 2}"#], in: directory)
        let segment = directory.subpath("t/journal/00000000000000000001.jsonl")
        let text = try String(contentsOfFile: segment, encoding: .utf8)
        try Data(text.replacingOccurrences(of: #""price":2"#, with: #""price":20"#).utf8).write(to: URL(fileURLWithPath: segment))
        let bBefore = try journalBytes(directory.subpath("b"))
        let sync = try ferry(["sync", "t", "b"], in: directory)
        #expect(sync.exitCode == 1, "\(sync)")
        #expect(sync.stderr.contains("journal/00000000000000000001.jsonl:1"), "\(sync)")
        #expect(sync.stderr.contains("altered"), "\(sync)")
        #expect(try journalBytes(directory.subpath("b")) == bBefore)
        // Pulling from it is refused the same way.
        let pull = try ferry(["sync", "b", "t"], in: directory)
        #expect(pull.exitCode == 1 && pull.stderr.contains("altered"), "\(pull)")
        #expect(try ferry(["list", "b", "Product"], in: directory).stdout.isEmpty)
    }

    @Test func oneWaySyncsAndADryRunThatShowsItsRefusals() throws {
        let directory = try TemporaryDirectory()
        _ = try ferry(["init", "a"], in: directory)
        _ = try ferry(["init", "b"], in: directory)
        for id in 1...4 { _ = try ferry(["put", "a", "Note", "n\(id)", "--json", #"{"n": 1}"#], in: directory) }
        _ = try ferry(["sync", "b", "a"], in: directory)
        _ = try ferry(["put", "b", "Note", "only-b", "--json", #"{"n": 2}"#], in: directory)
        let pull = try ferry(["sync", "a", "b", "--pull-only"], in: directory)
        #expect(pull.exitCode == 0 && pull.stdout.contains("pulled 1, pushed 0"), "\(pull)")
        _ = try ferry(["put", "a", "Note", "only-a", "--json", #"{"n": 3}"#], in: directory)
        let push = try ferry(["sync", "b", "a", "--pull-only"], in: directory)
        #expect(push.stdout.contains("pulled 1, pushed 0"), "\(push)")
        for id in 1...4 { _ = try ferry(["delete", "a", "Note", "n\(id)"], in: directory) }
        let dry = try ferry(["sync", "b", "a", "--dry-run", "--max-delete-count", "0"], in: directory)
        #expect(dry.exitCode == 0, "\(dry)")
        #expect(dry.stdout.contains("would refuse: this sync would delete 4 of 6 records"), "\(dry)")
        #expect(try ferry(["sync", "b", "a", "--max-delete-count", "0"], in: directory).exitCode == 1)
    }

    @Test func twoUnrelatedStoresAreNeverMergedSilently() throws {
        let directory = try TemporaryDirectory()
        _ = try ferry(["init", "a"], in: directory)
        _ = try ferry(["init", "b"], in: directory)
        _ = try ferry(["put", "a", "Note", "x", "--json", #"{"n": 1}"#], in: directory)
        _ = try ferry(["put", "b", "Note", "y", "--json", #"{"n": 2}"#], in: directory)
        _ = try ferry(["put", "b", "Note", "z", "--json", #"{"n": 3}"#], in: directory)
        let dry = try ferry(["sync", "a", "b", "--dry-run"], in: directory)
        #expect(dry.stdout.contains("would merge two stores that never synced"), "\(dry)")
        #expect(dry.stdout.contains("brings 1 record,") && dry.stdout.contains("brings 2"), "\(dry)")
        let sync = try ferry(["sync", "a", "b"], in: directory)
        #expect(sync.stdout.hasPrefix("merging two stores that never synced"), "\(sync)")
    }
}

/// `ferry sync --watch` prints a line only when something happened.
@Suite struct SyncWatchOutputTests {
    @Test func quietUntilAChangeMoves() async throws {
        let directory = try TemporaryDirectory()
        for store in ["a", "b"] { _ = try runFerry(["init", store], currentDirectory: directory.path) }
        _ = try runFerry(["put", "a", "Note", "n", "--json", #"{"v": 1}"#], currentDirectory: directory.path)
        _ = try runFerry(["sync", "a", "b"], currentDirectory: directory.path)
        try FileManager.default.createDirectory(atPath: directory.subpath("watch-output"), withIntermediateDirectories: true)
        // -v: each quiet round says so on standard error, which the test counts.
        let watcher = try ChildProcess(
            try ferryBinaryPath(), ["-v", "sync", directory.subpath("a"), directory.subpath("b"), "--watch", "--interval", "0.2"],
            outputDirectory: directory.subpath("watch-output"))
        defer { watcher.kill() }
        @Sendable func quietRounds(_ errors: String) -> Int {
            errors.split(separator: "\n").filter { $0.hasPrefix("detail: up-to-date, nothing moved") }.count
        }
        // The first sync and several up-to-date rounds after it: nothing to print.
        #expect(await watcher.waitForErrorOutput(timeout: 60) { quietRounds($0) >= 3 })
        #expect(try String(contentsOfFile: watcher.stdoutPath, encoding: .utf8).isEmpty)
        _ = try runFerry(["put", "a", "Note", "m", "--json", #"{"v": 2}"#], currentDirectory: directory.path)
        #expect(await watcher.waitForOutput(lineStartingWith: "incremental: pulled 0, pushed 1", timeout: 30))
        let before = quietRounds(watcher.errorOutput)
        // Two quiet rounds after the one that moved the change: still one line.
        #expect(await watcher.waitForErrorOutput(timeout: 60) { quietRounds($0) >= before + 2 })
        watcher.kill(SIGINT)
        _ = watcher.wait()
        let lines = try String(contentsOfFile: watcher.stdoutPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1, "\(lines)")
    }
}

/// Every way into a store gives the same verdict on the same bytes (issue 22, item 2b).
@Suite struct SameBytesSameAnswerTests {
    @Test func invalidUTF8IsRefusedByEveryEntryPoint() throws {
        let directory = try TemporaryDirectory()
        let ferry = try ferryBinaryPath()
        _ = try runFerry(["init", "s"], currentDirectory: directory.path)
        // The shell passes the raw byte 0xFF, which a Swift String could not hold.
        let script = """
            printf '{"a":"\\377"}' > bad.json
            "$1" put s Note argv --json "$(printf '{"a":"\\377"}')"; echo "argv $?"
            "$1" put s Note file --file bad.json; echo "file $?"
            "$1" put s Note stdin < bad.json; echo "stdin $?"
            """
        let result = try runProgram("/bin/bash", ["-c", script, "bash", ferry], currentDirectory: directory.path)
        #expect(result.stdout == "argv 1\nfile 1\nstdin 1\n", "\(result)")
        #expect(result.stderr.contains("not valid UTF-8"), "\(result)")
        let listed = try runFerry(["list", "s", "Note"], currentDirectory: directory.path)
        #expect(listed.stdout.isEmpty, "nothing was stored: \(listed)")
    }
}
