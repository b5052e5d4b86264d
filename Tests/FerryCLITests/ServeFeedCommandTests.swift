import Ferry
import FerryTestSupport
import Foundation
import Testing

/// `ferry sync <store> http://… --watch` follows the served store's change feed: an edit
/// travels A → `ferry serve` → B as soon as the server's journal grows, not at B's interval.
@Suite(.serialized, .eachTestOnItsOwnThread) struct ServeFeedCommandTests {
    @Test func watchPullsAsSoonAsTheServerSaysItsJournalGrew() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.subpath("stores")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let serve = try ServeProcess(root: root)
        defer { _ = serve.stop() }
        let token = try #require(serve.token)
        let (a, b) = (directory.subpath("a"), directory.subpath("b"))
        #expect(try runFerry(["init", a, "--name", "a"]).exitCode == 0)
        #expect(try runFerry(["init", b, "--name", "b"]).exitCode == 0)
        #expect(try runFerry(["put", a, "Note", "n1", "--json", #"{"title": "first"}"#]).exitCode == 0)
        #expect(try runFerry(["sync", a, serve.url("shared")], environment: ["FERRY_TOKEN": token]).exitCode == 0)

        // B watches with an interval far longer than the test: only the feed can wake it.
        try FileManager.default.createDirectory(atPath: directory.subpath("watch"), withIntermediateDirectories: true)
        let watch = try ChildProcess(
            "/usr/bin/env", ["FERRY_TOKEN=\(token)", try ferryBinaryPath(), "sync", b, serve.url("shared"), "--watch", "--interval", "3600"],
            outputDirectory: directory.subpath("watch"))
        defer {
            watch.kill(SIGTERM)
            _ = watch.wait()
        }
        #expect(await watch.waitForOutput(lineContaining: ": pulled 1, pushed 0,", timeout: 30), "\(watch.outputLines) \(watch.errorOutput)")

        #expect(try runFerry(["put", a, "Note", "n2", "--json", #"{"title": "second"}"#]).exitCode == 0)
        #expect(try runFerry(["sync", a, serve.url("shared")], environment: ["FERRY_TOKEN": token]).exitCode == 0)
        #expect(
            await watch.waitForOutputLines(timeout: 30) { $0.filter { $0.contains(": pulled 1, pushed 0,") }.count == 2 },
            "\(watch.outputLines) \(watch.errorOutput)")
        let record = try String(contentsOfFile: b + "/records/Note/n2.json", encoding: .utf8)
        #expect(record.contains("second"))
        #expect(!watch.errorOutput.contains("no change feed"), "\(watch.errorOutput)")
    }

    @Test func aServerWithoutTheFeedLeavesTheIntervalToDoTheWorkSaidOnce() async throws {
        let directory = try TemporaryDirectory()
        // An older server: every path it does not know is a 404, the feed's too.
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0),
            handler: HTTPClosureHandler { _ in HTTPResponse.error(.notFound, "no such endpoint (see docs/PROTOCOL.md)") })
        let port = try server.start()
        defer { Task { await server.stop() } }
        let b = directory.subpath("b")
        #expect(try runFerry(["init", b, "--name", "b"]).exitCode == 0)
        try FileManager.default.createDirectory(atPath: directory.subpath("watch"), withIntermediateDirectories: true)
        let watch = try ChildProcess(
            try ferryBinaryPath(), ["sync", b, "http://127.0.0.1:\(port)/shared", "--watch", "--token", "t"],
            outputDirectory: directory.subpath("watch"))
        defer {
            watch.kill(SIGTERM)
            _ = watch.wait()
        }
        #expect(
            await watch.waitForError(containing: "has no change feed (an older ferry serve?); the watch polls every 30 s", timeout: 30),
            "\(watch.errorOutput)")
        #expect(watch.errorOutput.components(separatedBy: "no change feed").count == 2, "\(watch.errorOutput)")
    }

    /// The follower of an `http://` feed sleeps while the feed is quiet: between keepalives its
    /// threads wake a few times each, where `URLSession`'s streaming on Linux woke them about
    /// 200,000 times a second (a core per watching client: with two of them on 2 cores, the
    /// server's fsyncs waited seconds and `ferry serve`'s live propagation stalled).
    @Test func aWatchFollowingAQuietFeedSleepsBetweenKeepalives() async throws {
        #if os(Linux)
        let directory = try TemporaryDirectory()
        let root = directory.subpath("stores")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let token = "watch-test-token-0123456789"
        var feed = ChangeFeedHub.Configuration()
        feed.heartbeatInterval = .milliseconds(100)
        let service = StoreService(root: root, policy: AccessPolicy(grants: [.init(token: token, stores: ["*"], access: .readWrite)]), feed: feed)
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0), handler: service)
        let port = try server.start()
        defer { Task { await server.stop() } }
        let url = "http://127.0.0.1:\(port)/shared"
        let (a, b) = (directory.subpath("a"), directory.subpath("b"))
        #expect(try runFerry(["init", a, "--name", "a"]).exitCode == 0)
        #expect(try runFerry(["init", b, "--name", "b"]).exitCode == 0)
        #expect(try runFerry(["put", a, "Note", "n1", "--json", #"{"title": "first"}"#]).exitCode == 0)
        #expect(try runFerry(["sync", a, url], environment: ["FERRY_TOKEN": token]).exitCode == 0)

        // FERRY_TRACE_LIVE says on standard error when the feed's bytes (here, keepalives) arrive.
        try FileManager.default.createDirectory(atPath: directory.subpath("watch"), withIntermediateDirectories: true)
        let watch = try ChildProcess(
            "/usr/bin/env", ["FERRY_TOKEN=\(token)", "FERRY_TRACE_LIVE=1", try ferryBinaryPath(), "sync", b, url, "--watch", "--interval", "3600"],
            outputDirectory: directory.subpath("watch"))
        defer {
            watch.kill(SIGTERM)
            _ = watch.wait()
        }
        #expect(await watch.waitForOutput(lineContaining: ": pulled 1, pushed 0,", timeout: 30), "\(watch.outputLines) \(watch.errorOutput)")
        let arrivals: @Sendable (String) -> Int = { $0.components(separatedBy: "feed reader took").count - 1 }
        #expect(await watch.waitForErrorOutput(timeout: 30) { arrivals($0) >= 2 }, "\(watch.errorOutput)")

        // Ten keepalives later (about a second): the wake-ups of the process's threads meanwhile.
        let before = Self.contextSwitches(of: watch.pid)
        let seen = arrivals(watch.errorOutput)
        #expect(await watch.waitForErrorOutput(timeout: 60) { arrivals($0) >= seen + 10 }, "\(watch.errorOutput)")
        let wakeUps = Self.contextSwitches(of: watch.pid) - before
        #expect(wakeUps < 2_000, "\(wakeUps) context switches over ten keepalives")
        #endif
    }

    /// The context switches of every thread of process `pid` so far (`/proc`, Linux).
    static func contextSwitches(of pid: pid_t) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var total = 0
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.contains("ctxt_switches") {
                total += Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
            }
        }
        return total
    }
}
