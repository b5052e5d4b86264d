import Foundation
import Ferry
import FerryTestSupport
import Testing
@testable import FerryCommandLine

/// The conventions of a command line one can adopt (issue 52, item 6): no arguments is a
/// mistake, typos get a "did you mean", `-q` and `-v` work everywhere, completions come from
/// the command table, and every help page ends with an example that parses.
@Suite struct CLIConventionsTests {
    @Test func noArgumentsPrintsUsageAndFails() throws {
        let result = try runFerry([])
        #expect(result.exitCode == 1, "\(result)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("USAGE: ferry <command>"), "\(result)")
    }

    @Test func aMistypedCommandOrOptionGetsADidYouMean() throws {
        let command = try runFerry(["synk", "a", "b"])
        #expect(command.exitCode == 2)
        #expect(command.stderr.hasPrefix("error: unknown command 'synk'; did you mean 'sync'?"), "\(command)")
        let option = try runFerry(["sync", "a", "b", "--dry-rn"])
        #expect(option.exitCode == 2)
        #expect(option.stderr.hasPrefix("error: unknown option '--dry-rn' for 'ferry sync'; did you mean '--dry-run'?"), "\(option)")
        let global = try runFerry(["--verison"])
        #expect(global.stderr.hasPrefix("error: unknown option '--verison' for 'ferry'; did you mean '--version'?"), "\(global)")
        let far = try runFerry(["zzzzzz"])
        #expect(!far.stderr.contains("did you mean"), "\(far)")
    }

    @Test func quietDropsNotesAndVerboseAddsDetail() throws {
        let directory = try TemporaryDirectory()
        for store in ["a", "b"] { _ = try runFerry(["init", store], currentDirectory: directory.path) }
        _ = try runFerry(["put", "a", "Note", "n", "--json", #"{"v": 1}"#], currentDirectory: directory.path)
        let verbose = try runFerry(["-v", "sync", "a", "b"], currentDirectory: directory.path)
        #expect(verbose.exitCode == 0 && verbose.stderr.contains("detail: ") && verbose.stderr.contains("b (replica "), "\(verbose)")
        #expect(verbose.stderr.contains("1 round"), "\(verbose)")
        let normal = try runFerry(["sync", "a", "b"], currentDirectory: directory.path)
        #expect(normal.exitCode == 0 && !normal.stderr.contains("detail:"), "\(normal)")
        // A hand edit overwritten by a write is a note; -q (anywhere before --) drops it.
        let file = directory.subpath("a/records/Note/n.json")
        try Data(#"{"v": 2}"#.utf8).write(to: URL(fileURLWithPath: file))
        let noted = try runFerry(["put", "a", "Note", "n", "--json", #"{"v": 3}"#], currentDirectory: directory.path)
        #expect(noted.stderr.contains("note: records/Note/n.json was edited by hand"), "\(noted)")
        try Data(#"{"v": 4}"#.utf8).write(to: URL(fileURLWithPath: file))
        let quiet = try runFerry(["put", "a", "Note", "n", "--json", #"{"v": 5}"#, "-q"], currentDirectory: directory.path)
        #expect(quiet.exitCode == 0 && quiet.stderr.isEmpty, "\(quiet)")
        let both = try runFerry(["-q", "-v", "list", "a"], currentDirectory: directory.path)
        #expect(both.exitCode == 2 && both.stderr.contains("-q and -v do not go together"), "\(both)")
    }

    @Test func bashCompletionsParseAndListEveryCommand() throws {
        let directory = try TemporaryDirectory()
        let script = try runFerry(["completions", "bash"])
        #expect(script.exitCode == 0, "\(script)")
        let path = directory.subpath("ferry.bash")
        try Data(script.stdout.utf8).write(to: URL(fileURLWithPath: path))
        let parsed = try runProgram("/bin/bash", ["-n", path])
        #expect(parsed.exitCode == 0, "\(parsed)")
        // Sourced, the function completes the commands and a command's options.
        let completed = try runProgram(
            "/bin/bash",
            ["-c", "source \(path); COMP_WORDS=(ferry sy); COMP_CWORD=1; _ferry; echo \"${COMPREPLY[*]}\"; "
                + "COMP_WORDS=(ferry sync --dry); COMP_CWORD=2; _ferry; echo \"${COMPREPLY[*]}\""])
        #expect(completed.stdout == "sync\n--dry-run\n", "\(completed)")
        for command in FerryCommand.all { #expect(script.stdout.contains(" \(command.spec.name)) options=")) }
    }

    @Test(arguments: ["zsh", "fish"]) func otherShellsGetAScriptNamingEveryCommand(shell: String) throws {
        let script = try runFerry(["completions", shell])
        #expect(script.exitCode == 0, "\(script)")
        for command in FerryCommand.all { #expect(script.stdout.contains(command.spec.name), "\(command.spec.name)") }
        let unknown = try runFerry(["completions", "tcsh"])
        #expect(unknown.exitCode == 2 && unknown.stderr.contains("use bash, zsh or fish"), "\(unknown)")
    }

    @Test func everyHelpPageEndsWithExamplesThatParse() async throws {
        for command in FerryCommand.all {
            let help = await runInProcess([command.spec.name, "--help"], commands: FerryCommand.all)
            #expect(help.exitCode == .success)
            let examples = try #require(help.stdout.components(separatedBy: "\nEXAMPLES:\n").last, "\(command.spec.name)")
            #expect(help.stdout.contains("\nEXAMPLES:\n  "), "\(command.spec.name) has no example")
            for example in command.spec.examples {
                #expect(examples.contains("  \(example)\n"))
                var words = Self.words(example).drop { $0.contains("=") && !$0.hasPrefix("-") }
                if let redirect = words.firstIndex(of: ">") { words = words[..<redirect] }
                #expect(Array(words.prefix(2)) == ["ferry", command.spec.name], "\(example)")
                #expect(throws: Never.self, "\(example)") { try ArgumentParser.parse(Array(words.dropFirst(2)), spec: command.spec) }
            }
        }
    }

    /// `text` split as a shell splits it, for the quoting the examples use ('…').
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var started = false
        for character in text {
            if character == "'" {
                quoted.toggle()
                started = true
            } else if character == " " && !quoted {
                if started { words.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        if started { words.append(current) }
        return words
    }

    @Test func theVersionIsThePackagesAndTheChangelogs() throws {
        let result = try runFerry(["--version"])
        #expect(result.stdout == "ferry \(FerryVersion.current)\n")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let released = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
        #expect(released?.hasPrefix("## [\(FerryVersion.current)]") == true, "the newest release in CHANGELOG.md is \(released ?? "none")")
    }

    @Test func oneCommandInstallsFerryAndTheRemoteHelperSideBySide() throws {
        let directory = try TemporaryDirectory()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let built = URL(fileURLWithPath: try ferryBinaryPath()).deletingLastPathComponent().path
        let prefix = directory.subpath("prefix")
        let install = try runProgram(root.appendingPathComponent("scripts/install").path, ["--bin-path", built, "--prefix", prefix])
        #expect(install.exitCode == 0, "\(install)")
        #expect(install.stdout.hasPrefix("installed ferry \(FerryVersion.current) and ferry-remote in \(prefix)/bin\n"), "\(install)")
        for program in ["ferry", "ferry-remote"] {
            #expect(FileManager.default.isExecutableFile(atPath: "\(prefix)/bin/\(program)"), "\(program)")
        }
        // The installed ferry finds the installed helper: a sync with a URL reaches the network
        // (nothing listens on port 1) rather than asking for a build.
        _ = try runFerry(["init", directory.subpath("s")])
        let remote = try runProgram("\(prefix)/bin/ferry", ["sync", directory.subpath("s"), "http://127.0.0.1:1/x", "--token", "t"], timeout: 120)
        #expect(remote.exitCode != 0 && !remote.stderr.contains("which is not in"), "\(remote)")
        let missing = try runProgram(root.appendingPathComponent("scripts/install").path, ["--bin-path", directory.path, "--prefix", prefix])
        #expect(missing.exitCode == 1 && missing.stderr.contains("ferry is missing"), "\(missing)")
    }
}
