import Foundation
import FerryTestSupport
import Testing

/// `ferry watch <dir>`: the daemon whose word lets `status` and `sync` examine only the
/// record files that changed, and whose death costs them one scan, never a wrong answer.
@Suite struct WatchCommandTests {
    /// Starts `ferry watch <store>` in `directory` and waits for its ready line.
    static func startWatch(_ store: String, in directory: TemporaryDirectory) async throws -> ChildProcess {
        let logs = directory.subpath("watch-\(store)")
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        let watch = try ChildProcess(try ferryBinaryPath(), ["watch", directory.subpath(store)], outputDirectory: logs)
        let ready = await watch.waitForOutput(lineStartingWith: "ferry watch: watching", timeout: 60)
        try #require(ready, "no ready line: \(watch.errorOutput)")
        return watch
    }

    /// A store `s` of three notes in `directory`, watched, with a first status behind it (the
    /// point the next ones start from).
    static func watchedStore(in directory: TemporaryDirectory) async throws -> ChildProcess {
        try makeStore("s", in: directory)
        let watch = try await startWatch("s", in: directory)
        _ = try runFerry(["status", "s"], currentDirectory: directory.path)
        return watch
    }

    static func makeStore(_ name: String, in directory: TemporaryDirectory) throws {
        _ = try runFerry(["init", name], currentDirectory: directory.path)
        for id in ["a", "b", "c"] {
            _ = try runFerry(["put", name, "Note", id, "--json", #"{"id": "\#(id)"}"#], currentDirectory: directory.path)
        }
    }

    /// Ready, then status examines only what the watcher saw; SIGTERM stops it cleanly, and
    /// the published state goes with it.
    @Test func statusExaminesOnlyWhatTheWatcherSawAndSigtermStopsIt() async throws {
        let directory = try TemporaryDirectory()
        let watch = try await Self.watchedStore(in: directory)
        defer { watch.kill() }
        try Data(#"{"id": "b", "edited": true}"#.utf8).write(to: URL(fileURLWithPath: directory.subpath("s/records/Note/b.json")))
        let status = try runFerry(["-v", "status", "s"], currentDirectory: directory.path)
        #expect(status.stdout.hasPrefix("modified  records/Note/b.json"), "\(status)")
        #expect(status.stderr.contains("detail: examined 1 record file(s) the watcher"), "\(status)")

        watch.kill(SIGTERM)
        #expect(watch.wait(timeout: 30) == 0)
        #expect(watch.errorOutput.contains("ferry watch: stopped (signal 15)"))
        #expect(!FileManager.default.fileExists(atPath: directory.subpath("s/.ferry/watch/state.json")))
        let after = try runFerry(["-v", "status", "s"], currentDirectory: directory.path)
        #expect(after.stderr.contains("scanned every record file: no watcher is running"), "\(after)")
        #expect(after.stdout.hasPrefix("modified  records/Note/b.json"), "\(after)")
    }

    /// A watcher killed outright leaves its state behind: the dead pid is noticed, and the
    /// status scans and finds an edit made after the watcher died.
    @Test func aKilledWatcherCostsAScanWithTheRightAnswer() async throws {
        let directory = try TemporaryDirectory()
        let watch = try await Self.watchedStore(in: directory)
        let watched = try runFerry(["-v", "status", "s"], currentDirectory: directory.path)
        #expect(watched.stderr.contains("detail: examined 0 record file(s)"), "\(watched)")
        watch.kill(SIGKILL)
        _ = watch.wait()
        #expect(FileManager.default.fileExists(atPath: directory.subpath("s/.ferry/watch/state.json")))
        try FileManager.default.removeItem(atPath: directory.subpath("s/records/Note/c.json"))
        let status = try runFerry(["-v", "status", "s"], currentDirectory: directory.path)
        #expect(status.stdout.hasPrefix("deleted   records/Note/c.json"), "\(status)")
        #expect(status.stderr.contains("scanned every record file: the store's watcher (pid \(watch.pid)) is not running"), "\(status)")
    }

    /// A default sync journals the hand edits the watcher saw (and remembers where it got
    /// to: the status after it examines nothing), and they reach the peer.
    @Test func aDefaultSyncJournalsWhatTheWatcherSaw() async throws {
        let directory = try TemporaryDirectory()
        try Self.makeStore("a", in: directory)
        _ = try runFerry(["init", "b"], currentDirectory: directory.path)
        let watch = try await Self.startWatch("a", in: directory)
        defer { watch.kill() }
        _ = try runFerry(["sync", "a", "b"], currentDirectory: directory.path)
        try Data(#"{"id": "a", "edited": true}"#.utf8).write(to: URL(fileURLWithPath: directory.subpath("a/records/Note/a.json")))
        let sync = try runFerry(["sync", "a", "b"], currentDirectory: directory.path)
        #expect(sync.stdout.contains("journaled 1 hand edit of record files first"), "\(sync)")
        let received = try runFerry(["get", "b", "Note", "a"], currentDirectory: directory.path)
        #expect(received.stdout.contains("\"edited\""), "\(received)")
        let status = try runFerry(["-v", "status", "a"], currentDirectory: directory.path)
        #expect(status.stdout == "nothing to commit: record files match the journal\n", "\(status)")
        #expect(status.stderr.contains("detail: examined "), "the sync left a point to start from: \(status)")
    }

    /// One watcher per store: a second one exits non-zero with one line naming the first.
    @Test func aSecondWatcherIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let watch = try await Self.watchedStore(in: directory)
        defer { watch.kill() }
        let second = try runFerry(["watch", "s"], currentDirectory: directory.path)
        #expect(second.exitCode == 1)
        #expect(second.stderr.hasPrefix("error: /"), "\(second)")
        #expect(second.stderr.hasSuffix("/s is watched already (by pid \(watch.pid)): one watcher serves every command\n"), "\(second)")
    }

    @Test func helpHasAnExample() throws {
        let help = try runFerry(["watch", "--help"])
        #expect(help.exitCode == 0)
        #expect(help.stdout.contains("  ferry watch ./laptop\n"), "\(help)")
    }
}
