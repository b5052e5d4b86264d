import Ferry
import FerryTestSupport
import Foundation
import Testing

/// `ferry` links no HTTP stack and hands syncs with http(s) peers to `ferry-remote`.
@Suite(.serialized) struct RemoteHandOffTests {
    #if os(Linux)
    @Test func ferryLoadsNoHTTPStackButFerryRemoteDoes() throws {
        // glibc's loader lists every library it loads when LD_DEBUG=libs.
        let ferry = try runFerry(["--version"], environment: ["LD_DEBUG": "libs"])
        #expect(ferry.exitCode == 0)
        #expect(ferry.stderr.contains("libFoundation"), "the loader trace should be there")
        #expect(!ferry.stderr.contains("libFoundationNetworking"))
        #expect(!ferry.stderr.contains("libcurl"))

        let remote = FileSystem.parentPath(of: try ferryBinaryPath()) + "/ferry-remote"
        let (status, trace) = try run(remote, ["--version"], environment: ["LD_DEBUG": "libs"])
        #expect(status == 0)
        #expect(trace.contains("libFoundationNetworking"))
    }
    #endif

    @Test func syncsWithAnHTTPPeerThroughTheHelper() throws {
        let directory = try TemporaryDirectory()
        let root = directory.subpath("stores")
        try FileSystem.createDirectories(root)
        let serve = try ServeProcess(root: root)
        let token = try #require(serve.token)
        #expect(try runFerry(["init", directory.subpath("laptop")]).exitCode == 0)
        #expect(try runFerry(["put", directory.subpath("laptop"), "Note", "n1", "--json", #"{"t": 1}"#]).exitCode == 0)
        let push = try runFerry(["sync", directory.subpath("laptop"), serve.url("alice"), "--json"], environment: ["FERRY_TOKEN": token])
        #expect(push.exitCode == 0, "\(push)")
        #expect(push.stdout.contains(#""plan":"full-push""#) && push.stdout.contains(#""pushed":1"#), "\(push)")
        #expect(try runFerry(["init", directory.subpath("phone")]).exitCode == 0)
        let pull = try runFerry(["sync", directory.subpath("phone"), serve.url("alice"), "--token", token])
        #expect(pull.exitCode == 0 && pull.stdout.contains("\nfull-pull: pulled 1"), "\(pull)")
        #expect(try runFerry(["get", directory.subpath("phone"), "Note", "n1"]).stdout.contains(#""t": 1"#))
        #expect(serve.stop() == 0)
    }

    @Test func aMissingHelperIsAClearErrorAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        // A copy of `ferry` alone in a folder, as after copying only it somewhere.
        let lonely = directory.subpath("bin/ferry")
        try FileSystem.createDirectories(directory.subpath("bin"))
        try FileManager.default.copyItem(atPath: try ferryBinaryPath(), toPath: lonely)
        #expect(try runFerry(["init", directory.subpath("laptop")]).exitCode == 0)
        let before = try FileSystem.readFile(directory.subpath("laptop/ferry.json"))

        let (status, message) = try run(lonely, ["sync", directory.subpath("laptop"), "http://127.0.0.1:1/alice"])
        #expect(status == 1)
        #expect(message.hasPrefix("error: ") && message.contains("needs ferry-remote") && message.contains("swift build"), "\(message)")
        #expect(message.split(separator: "\n").count == 1)
        #expect(try FileSystem.readFile(directory.subpath("laptop/ferry.json")) == before)
        let peers = directory.subpath("laptop/.ferry/peers")
        let checkpoints = FileSystem.exists(peers) ? try FileSystem.contents(ofDirectory: peers) : []
        #expect(checkpoints.isEmpty)
    }

    /// Runs `executable` and returns its exit status and standard error.
    private func run(_ executable: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> (Int32, String) {
        let result = try runProgram(executable, arguments, environment: extra)
        return (result.exitCode, result.stderr)
    }
}
