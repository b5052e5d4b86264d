import Ferry
import FerryTestSupport
import Foundation
import FerryURLSession
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `ferry serve` process on an ephemeral loopback port, with its printed address and token.
final class ServeProcess {
    let process: ChildProcess
    let directory: TemporaryDirectory
    private(set) var port = 0
    private(set) var token: String?

    /// Starts `ferry serve <root> --port 0 <extra>` and waits until it prints its address.
    init(root: String, extra: [String] = []) throws {
        directory = try TemporaryDirectory(prefix: "ferry-serve")
        let arguments = ["serve", root, "--port", "0"] + extra
        process = try ChildProcess(try ferryBinaryPath(), arguments, outputDirectory: directory.path)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let text = stdout
            if let range = text.range(of: #"127\.0\.0\.1:[0-9]+"#, options: .regularExpression) {
                port = Int(text[range].split(separator: ":")[1]) ?? 0
                token = text.split(separator: "\n").first { $0.hasPrefix("token: ") }.map { String($0.dropFirst(7)) }
                if token != nil || extra.contains("--no-auth") || extra.contains("--tokens") { return }
            }
            if process.hasExited { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.kill()
        process.wait()
        throw CLIRunnerError.timedOut(command: ["ferry"] + arguments, seconds: 20)
    }

    var stdout: String { (try? String(contentsOfFile: process.stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: process.stderrPath, encoding: .utf8)) ?? "" }
    func url(_ store: String) -> String { "http://127.0.0.1:\(port)/\(store)" }

    /// Sends `signal` and waits for the exit status (128 plus the signal's number if it ended the server).
    func stop(signal: Int32 = SIGTERM) -> Int32 {
        if !process.hasExited { process.kill(signal) }
        return process.wait()
    }
}

@Suite(.serialized, .eachTestOnItsOwnThread) struct ServeCommandTests {
    let notes = try! EntityName("Note")

    @Test func servesPrintsATokenSyncsAndStopsOnSIGTERM() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.subpath("stores")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let serve = try ServeProcess(root: root)
        let token = try #require(serve.token)
        #expect(token.count == 64)
        #expect(token.allSatisfy { $0.isHexDigit })
        #expect(serve.stdout.contains("serving \(root) at http://127.0.0.1:\(serve.port)/<store>"))

        let laptop = try Store.create(at: directory.subpath("laptop"))
        try laptop.put(["title": "hello"], entity: notes, id: RecordID("n1"))
        var report = try await SyncEngine(store: laptop, transport: HTTPTransport(url: serve.url("alice"), token: token)).run()
        #expect(report.plan == .fullPush)
        let phone = try Store.create(at: directory.subpath("phone"))
        report = try await SyncEngine(store: phone, transport: HTTPTransport(url: serve.url("alice"), token: token)).run()
        #expect(report.plan == .fullPull)
        #expect(try phone.get(entity: notes, id: RecordID("n1")) == ["title": "hello"])
        // Without the token: refused.
        await #expect(throws: SyncError.self) {
            try await SyncEngine(store: phone, transport: HTTPTransport(url: serve.url("alice"), token: nil)).run()
        }

        #expect(serve.stop(signal: SIGTERM) == 0)
        #expect(serve.stderr.contains("POST /v1/stores/alice/push 201"))
        #expect(serve.stderr.contains("GET /v1/stores/alice 401"))
        #expect(serve.stderr.hasSuffix("ferry serve: stopped\n"))
        #expect(!serve.stderr.contains(token))
        // The served store is an ordinary store on disk.
        let served = try Store.open(at: root + "/alice")
        #expect(try served.get(entity: notes, id: RecordID("n1")) == ["title": "hello"])
    }

    @Test func sigintAlsoStopsGracefully() throws {
        let directory = try TemporaryDirectory()
        let serve = try ServeProcess(root: directory.path)
        #expect(serve.stop(signal: SIGINT) == 0)
    }

    @Test func tokensFileGrantsWhatItSays() async throws {
        let directory = try TemporaryDirectory()
        let tokens = directory.subpath("tokens.json")
        try #"{"tokens": [{"token": "alice-secret-1", "stores": ["alice"], "access": "read-write"}]}"#
            .write(toFile: tokens, atomically: false, encoding: .utf8)
        let serve = try ServeProcess(root: directory.path, extra: ["--tokens", tokens])
        defer { _ = serve.stop() }
        #expect(serve.token == nil)
        let local = try Store.create(at: directory.subpath("local"))
        try local.put(["v": 1], entity: notes, id: RecordID("1"))
        _ = try await SyncEngine(store: local, transport: HTTPTransport(url: serve.url("alice"), token: "alice-secret-1")).run()
        await #expect {
            try await SyncEngine(store: local, transport: HTTPTransport(url: serve.url("bob"), token: "alice-secret-1")).run()
        } throws: { error in
            "\(error)".contains("403")
        }
    }

    @Test func noAuthOnlyOnLoopback() async throws {
        let directory = try TemporaryDirectory()
        var result = try runFerry(["serve", directory.path, "--no-auth", "--host", "0.0.0.0", "--port", "0"])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("--no-auth is only allowed on a loopback host"))
        result = try runFerry(["serve", directory.path, "--no-auth", "--tokens", "x.json"])
        #expect(result.exitCode == 2)

        let serve = try ServeProcess(root: directory.path, extra: ["--no-auth"])
        defer { _ = serve.stop() }
        #expect(serve.stdout.contains("authentication is off"))
        let local = try Store.create(at: directory.subpath("local"))
        try local.put(["v": 1], entity: notes, id: RecordID("1"))
        let report = try await SyncEngine(store: local, transport: HTTPTransport(url: serve.url("open"), token: nil)).run()
        #expect(report.pushed == 1)
    }

    @Test func badArgumentsAreClearErrors() throws {
        let directory = try TemporaryDirectory()
        var result = try runFerry(["serve", directory.subpath("missing"), "--port", "0"])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("is not a folder"))
        try "{\"tokens\": 3}".write(toFile: directory.subpath("bad.json"), atomically: false, encoding: .utf8)
        result = try runFerry(["serve", directory.path, "--tokens", directory.subpath("bad.json"), "--port", "0"])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("\"tokens\" array"))
        result = try runFerry(["serve", directory.path, "--port", "70000"])
        #expect(result.exitCode == 2)
        result = try runFerry(["serve", "--help"])
        #expect(result.exitCode == 0)
        #expect(result.stdout.contains("--tokens"))
    }

    @Test func aBusyPortIsAClearError() throws {
        let directory = try TemporaryDirectory()
        let first = try ServeProcess(root: directory.path)
        defer { _ = first.stop() }
        let result = try runFerry(["serve", directory.path, "--port", String(first.port)])
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("cannot listen on 127.0.0.1:\(first.port)"))
    }

    /// The head of a served store, read over HTTP.
    func head(_ serve: ServeProcess, _ store: String, token: String) async throws -> Int64 {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(serve.port)/v1/stores/\(store)")))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        return try JSONParser.parse([UInt8](data))["head"]?["seq"]?.integerValue ?? -1
    }

    @Test func aSyncClientKilledMidPushResumesWithoutDuplicates() async throws {
        let directory = try TemporaryDirectory()
        let root = directory.subpath("stores")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let serve = try ServeProcess(root: root)
        let token = try #require(serve.token)
        let total = 7_000
        let laptop = try Store.create(at: directory.subpath("laptop"))
        var writes: [RecordWrite] = []
        for index in 0..<total {
            writes.append(.put(RecordKey(entity: notes, id: try RecordID("n\(index)")), ["n": .integer(Int64(index))]))
            if writes.count == 5_000 {
                try laptop.write(writes)
                writes = []
            }
        }
        if !writes.isEmpty { try laptop.write(writes) }
        #expect(laptop.headSequence == UInt64(total))
        laptop.close()

        // A `ferry sync` process, SIGKILLed once the server has some but not all of the changes.
        let clientLogs = try TemporaryDirectory(prefix: "ferry-client")
        let client = try ChildProcess(
            try ferryBinaryPath(), ["sync", directory.subpath("laptop"), serve.url("alice"), "--token", token],
            outputDirectory: clientLogs.path)
        var seen: Int64 = -1
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && !client.hasExited {
            seen = (try? await head(serve, "alice", token: token)) ?? -1
            if seen > 0 && seen < Int64(total) { break }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        client.kill()
        client.wait()
        #expect(seen > 0 && seen < Int64(total), "the kill should land mid-push (saw head \(seen))")

        // Run it again: it resumes and completes, with nothing applied twice.
        let again = try runFerry(["sync", directory.subpath("laptop"), serve.url("alice"), "--token", token, "--json"])
        #expect(again.exitCode == 0, "\(again)")
        let finalHead = try await head(serve, "alice", token: token)
        #expect(finalHead == Int64(total), "killed at head \(seen); resumed sync: \(again)")
        let noop = try runFerry(["sync", directory.subpath("laptop"), serve.url("alice"), "--token", token, "--json"])
        #expect(noop.stdout.contains("\"plan\":\"up-to-date\""), "\(noop)")
        #expect(serve.stop() == 0)
        let served = try Store.open(at: root + "/alice")
        let identities = try served.journalEntries().map(\.change.identity)
        #expect(identities.count == total)
        #expect(Set(identities).count == total)
        #expect(served.recordCount == total)
    }
}
