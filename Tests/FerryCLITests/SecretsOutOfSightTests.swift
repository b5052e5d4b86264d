import Ferry
import FerryTestSupport
import Foundation
import Testing

/// Tokens and credentials stay out of argv and out of error messages (issue 49, item 4).
@Suite(.serialized) struct SecretsOutOfSightTests {
    /// A `ferry` alone in a folder with a stand-in `ferry-remote` that records its argv and its
    /// `FERRY_TOKEN`, so the hand-off itself is what is checked.
    private func recordingHelper(in directory: TemporaryDirectory) throws -> (ferry: String, record: String) {
        try FileSystem.createDirectories(directory.subpath("bin"))
        let ferry = directory.subpath("bin/ferry")
        try FileManager.default.copyItem(atPath: try ferryBinaryPath(), toPath: ferry)
        let record = directory.subpath("record.txt")
        let script = "#!/bin/sh\nprintf 'argv:%s\\n' \"$*\" > '\(record)'\nprintf 'env:%s\\n' \"$FERRY_TOKEN\" >> '\(record)'\n"
        let helper = directory.subpath("bin/ferry-remote")
        try Data(Array(script.utf8)).write(to: URL(fileURLWithPath: helper))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: helper)
        return (ferry, record)
    }

    @Test(arguments: [["--token", "sekrit-token-1234"], ["--token=sekrit-token-1234"]])
    func theTokenReachesTheHelperInItsEnvironmentNotItsArguments(_ tokenArguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let (ferry, record) = try recordingHelper(in: directory)
        let result = try runProgram(ferry, ["sync", directory.subpath("laptop"), "http://127.0.0.1:1/alice"] + tokenArguments + ["--json"])
        #expect(result.exitCode == 0, "\(result)")
        let lines = String(decoding: try FileSystem.readFile(record), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("argv:sync ") == true && lines.first?.contains("--json") == true, "\(lines)")
        #expect(lines.first?.contains("sekrit") == false, "the token is in the helper's argv: \(lines)")
        #expect(lines.last == "env:sekrit-token-1234")
    }

    @Test func argumentsAfterADoubleDashAreLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let (ferry, record) = try recordingHelper(in: directory)
        _ = try runProgram(ferry, ["sync", "--token", "t1", "--", directory.subpath("laptop"), "http://127.0.0.1:1/a"])
        let text = String(decoding: try FileSystem.readFile(record), as: UTF8.self)
        #expect(!text.contains("t1 ") && text.contains("env:t1"), "\(text)")
    }

    @Test func aTokenFileOpensTheServer() throws {
        let directory = try TemporaryDirectory()
        let root = directory.subpath("stores")
        try FileSystem.createDirectories(root)
        let serve = try ServeProcess(root: root)
        let token = try #require(serve.token)
        let tokenFile = directory.subpath("token")
        try Data(Array("\(token)\n".utf8)).write(to: URL(fileURLWithPath: tokenFile))
        #expect(try runFerry(["init", directory.subpath("laptop")]).exitCode == 0)
        let sync = try runFerry(["sync", directory.subpath("laptop"), serve.url("alice"), "--token-file", tokenFile])
        #expect(sync.exitCode == 0, "\(sync)")
        try Data(Array("\n".utf8)).write(to: URL(fileURLWithPath: tokenFile))
        let empty = try runFerry(["sync", directory.subpath("laptop"), serve.url("alice"), "--token-file", tokenFile])
        #expect(empty.exitCode != 0 && empty.stderr.hasPrefix("error: ") && empty.stderr.contains("empty"), "\(empty)")
        #expect(empty.stderr.split(separator: "\n").count == 1)
        let both = try runFerry(["sync", directory.subpath("laptop"), serve.url("alice"), "--token-file", tokenFile, "--token", "x"])
        #expect(both.exitCode != 0 && both.stderr.contains("do not go together"), "\(both)")
        #expect(serve.stop() == 0)
    }

    @Test(arguments: ["sync", "hub"])
    func credentialsInAnS3URLAreRefusedAndNeverEchoed(_ command: String) throws {
        let directory = try TemporaryDirectory()
        #expect(try runFerry(["init", directory.subpath("laptop")]).exitCode == 0)
        let url = "s3://AKIAEXAMPLEKEY:wJalrXYZexample@bucket/notes"
        let arguments = command == "sync" ? ["sync", directory.subpath("laptop"), url] : ["hub", "init", url]
        let result = try runFerry(arguments)
        #expect(result.exitCode != 0)
        // One error line (a usage error adds where to find help).
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.split(separator: "\n").count <= 2, "\(result)")
        #expect(result.stderr.contains("AWS_ACCESS_KEY_ID") && result.stderr.contains("AWS_SECRET_ACCESS_KEY"), "\(result)")
        #expect(!result.stderr.contains("wJalrXYZ") && !result.stderr.contains("AKIAEXAMPLEKEY"), "\(result)")
        #expect(!result.stdout.contains("wJalrXYZ"))
    }
}
