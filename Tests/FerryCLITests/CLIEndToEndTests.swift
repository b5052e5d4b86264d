import Ferry
import FerryTestSupport
import Testing

/// The built `ferry` binary, run as a user would.
@Suite struct CLIEndToEndTests {
    @Test func help() throws {
        let result = try runFerry(["--help"])
        #expect(result.exitCode == 0, "\(result)")
        #expect(result.stdout.hasPrefix("OVERVIEW: "))
        #expect(result.stdout.contains("USAGE: ferry <command>"))
        #expect(result.stderr.isEmpty)
        #expect(try runFerry(["-h"]).stdout == result.stdout)
        #expect(try runFerry(["help"]).stdout == result.stdout)
    }

    @Test func version() throws {
        let result = try runFerry(["--version"])
        #expect(result == CLIResult(exitCode: 0, stdout: "ferry \(FerryVersion.current)\n", stderr: ""))
    }

    @Test func unknownCommand() throws {
        let result = try runFerry(["nosuchcommand"])
        #expect(result.exitCode == 2, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: unknown command 'nosuchcommand'"))
        #expect(result.stderr.hasSuffix("see 'ferry --help'\n"))
    }

    @Test func unknownOption() throws {
        let result = try runFerry(["--bogus"])
        #expect(result == CLIResult(
            exitCode: 2, stdout: "", stderr: "error: unknown option '--bogus' for 'ferry'\nsee 'ferry --help'\n"))
    }

    @Test func runnerPassesStandardInputEnvironmentAndDirectory() throws {
        // No command reads them yet; this checks the runner itself starts ferry with them.
        let directory = try TemporaryDirectory()
        let result = try runFerry(
            ["--version"], stdin: String(repeating: "x", count: 1 << 20),
            environment: ["FERRY_STORE": directory.path], currentDirectory: directory.path)
        #expect(result.exitCode == 0)
    }
}
