import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// `ferry sync A B --watch` as a user runs it (issue 50): with a ten-minute interval, so no
/// round is due, every hand edit of a record file on either side arrives on the other by the
/// kernel's word alone. The test waits on the watch's own output, with a deadline.
@Suite struct SyncWatchCommandTests {
    func ferry(_ arguments: [String], in directory: TemporaryDirectory) throws -> CLIResult {
        try runFerry(arguments, currentDirectory: directory.path)
    }

    func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func holds(_ path: String, _ text: String) -> Bool {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self).contains(text) } ?? false
    }

    @Test func handEditsOnEitherSideArriveWhileTheWatchRuns() async throws {
        let directory = try TemporaryDirectory()
        #expect(try ferry(["init", "a"], in: directory).exitCode == 0)
        #expect(try ferry(["init", "b"], in: directory).exitCode == 0)
        try FileManager.default.createDirectory(atPath: directory.subpath("watch-output"), withIntermediateDirectories: true)
        let watch = try ChildProcess(
            try ferryBinaryPath(), ["sync", directory.subpath("a"), directory.subpath("b"), "--watch", "--interval", "600"],
            outputDirectory: directory.subpath("watch-output"))
        defer { watch.kill() }
        try #require(await watch.waitForError(containing: "watching", timeout: 60), "\(watch.errorOutput)")
        for n in 1...5 {
            try write(#"{"title": "hand edit \#(n)"}"#, to: directory.subpath("a/records/Note/n\(n).json"))
            let arrived = directory.subpath("b/records/Note/n\(n).json")
            let ok = await watch.waitForOutputLines(timeout: 60) { _ in holds(arrived, "hand edit \(n)") }
            try #require(ok, "hand edit \(n) on a is not on b: \(watch.outputLines) \(watch.errorOutput)")
        }
        // And the other way: the peer folder is watched too.
        try write(#"{"title": "edited on b"}"#, to: directory.subpath("b/records/Note/n3.json"))
        let back = await watch.waitForOutputLines(timeout: 60) { _ in holds(directory.subpath("a/records/Note/n3.json"), "edited on b") }
        #expect(back, "\(watch.outputLines) \(watch.errorOutput)")
        // While it runs, it publishes both stores' hand edits: a status examines only what the
        // watch saw (the first status after it started scans once, to have a baseline).
        for store in ["a", "b"] {
            _ = try ferry(["status", store], in: directory)
            try write(#"{"title": "seen by the watch"}"#, to: directory.subpath("\(store)/records/Note/n2.json"))
            let status = try ferry(["-v", "status", store], in: directory)
            #expect(status.exitCode == 0 && status.stderr.contains("the watcher (pid \(watch.pid))"), "\(store): \(status)")
        }
        watch.kill(SIGINT)
        #expect(watch.wait(timeout: 60) == 0)
        #expect(watch.errorOutput.contains("stopped watching"), "\(watch.errorOutput)")
        // Each edit was journaled, on the side it was made.
        let log = try ferry(["log", "a"], in: directory)
        #expect(log.exitCode == 0 && log.stdout.contains("n5"), "\(log)")
    }
}

/// `--watch` with an `s3://` hub on a real SeaweedFS: it says how it polls and what an idle hour
/// costs, from the requests its quiet rounds make.
@Suite struct S3WatchCommandTests {
    @Test func anS3HubWatchSaysWhatAnIdleHourCosts() async throws {
        guard let weed = try SeaweedFS.availableOrSkip() else { return }
        let directory = try TemporaryDirectory()
        let server = try await SeaweedFS.start(in: directory.subpath("weed"), executable: weed)
        defer { server.stop() }
        try await server.createBucket("hub")
        let laptop = directory.subpath("laptop")
        #expect(try runFerry(["init", laptop, "--name", "laptop"]).exitCode == 0)
        #expect(try runFerry(["hub", "init", "s3://hub/notes"], environment: server.environment).exitCode == 0)
        for (interval, cost) in [("30", "cost: 120 requests an idle hour (1 request a quiet round, every 30.0 s when idle)"),
                                 ("10", "cost: 360 requests an idle hour (1 request a quiet round, every 10.0 s when idle); more than the 120")] {
            let output = directory.subpath("watch-\(interval)")
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            let watch = try ChildProcess(
                try ferryBinaryPath(), ["sync", laptop, "s3://hub/notes", "--watch", "--interval", interval, "-v"],
                outputDirectory: output, environment: ProcessInfo.processInfo.environment.merging(server.environment) { $1 })
            defer { watch.kill() }
            #expect(await watch.waitForError(containing: cost, timeout: 60), "\(watch.errorOutput)")
            #expect(watch.errorOutput.contains("its heads are listed 1 s after activity, then twice as long each quiet round, up to every \(interval) s"))
            // With -v, each quiet round says it again.
            let perRound = "nothing moved (… ms), 1 request: \(interval == "30" ? 120 : 360) an idle hour"
            let saidPerRound = await watch.waitForErrorOutput(timeout: 60) { output in
                output.split(separator: "\n").filter { $0.contains("detail: up-to-date") && $0.hasSuffix(perRound.components(separatedBy: "… ms)").last ?? "") }.count >= 2
            }
            #expect(saidPerRound, "\(watch.errorOutput)")
            watch.kill(SIGINT)
            #expect(watch.wait(timeout: 60) == 0)
        }
    }
}
