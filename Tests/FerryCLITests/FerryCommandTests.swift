import Ferry
import Testing
@testable import FerryCommandLine

/// The dispatcher and the error reporter, run in-process with test commands (`echo`, `fail`).
@Suite struct FerryCommandTests {
    @Test func noArgumentsShowsTheOverviewAndFails() async {
        let result = await runInProcess([])
        #expect(result.exitCode == .failure)
        #expect(result.stderr.hasPrefix("OVERVIEW: "))
        #expect(result.stdout.isEmpty)
    }

    @Test(arguments: [["--help"], ["-h"], ["help"], ["help", "--help"]])
    func overviewListsTheCommands(arguments: [String]) async {
        let result = await runInProcess(arguments)
        #expect(result.exitCode == .success)
        #expect(result.stdout.contains("COMMANDS:\n  echo        Print the parsed arguments.\n  fail        Throw"))
        #expect(result.stderr.isEmpty)
    }

    @Test(arguments: [["echo", "--help"], ["echo", "-h"], ["help", "echo"], ["echo", "--frob", "-h"]])
    func commandHelp(arguments: [String]) async {
        let result = await runInProcess(arguments)
        #expect(result.exitCode == .success)
        #expect(result.stdout == HelpFormatter().help(for: EchoCommand.spec))
        #expect(result.stderr.isEmpty)
    }

    @Test func version() async {
        let result = await runInProcess(["--version"])
        #expect(result.exitCode == .success)
        #expect(result.stdout == "ferry \(FerryVersion.current)\n")
        #expect(FerryVersion.current == "0.1.0")
    }

    @Test func unknownCommandListsTheCommands() async {
        let result = await runInProcess(["nosuchcommand"])
        #expect(result.exitCode == .usage)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == """
            error: unknown command 'nosuchcommand'; the commands are: echo, fail
            see 'ferry --help'

            """)
        let bare = await runInProcess(["nosuchcommand"], commands: [])
        #expect(bare.stderr.hasPrefix("error: unknown command 'nosuchcommand'\n"))
    }

    @Test func helpForAnUnknownCommand() async {
        let result = await runInProcess(["help", "nope"])
        #expect(result.exitCode == .usage)
        #expect(result.stderr.hasPrefix("error: unknown command 'nope'"))
        let extra = await runInProcess(["help", "echo", "fail"])
        #expect(extra.exitCode == .usage)
        #expect(extra.stderr.hasPrefix("error: 'ferry help' takes one command name, got 2\n"))
    }

    @Test func unknownTopLevelOption() async {
        let result = await runInProcess(["--bogus"])
        #expect(result.exitCode == .usage)
        #expect(result.stderr == "error: unknown option '--bogus' for 'ferry'\nsee 'ferry --help'\n")
    }

    @Test func parseErrorsHintAtTheCommandsHelp() async {
        let result = await runInProcess(["echo", "hi", "--frob"])
        #expect(result.exitCode == .usage)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: unknown option '--frob' for 'ferry echo'\nsee 'ferry echo --help'\n")
    }

    @Test func runsTheCommand() async {
        let result = await runInProcess(["echo", "hi", "a", "-s", "/data", "b", "--limit=3"])
        #expect(result.exitCode == .success)
        #expect(result.stdout == "word=hi\nrest=a,b\nstore=/data\nlimit=3\n")
        #expect(result.stderr.isEmpty)
    }

    @Test func dashReadsStandardInput() async {
        let result = await runInProcess(["echo", "-"], stdin: "from stdin")
        #expect(result.stdout.hasPrefix("word=from stdin\n"))
    }

    @Test func diffLikeFailureIsQuiet() async {
        let result = await runInProcess(["echo", "hi", "--differ"])
        #expect(result.exitCode == .failure)
        #expect(result.stderr.isEmpty)
    }

    @Test func usageErrorsFromTheCommandRun() async {
        let bad = await runInProcess(["echo", "hi", "--limit", "many"])
        #expect(bad.exitCode == .usage)
        #expect(bad.stderr == "error: --limit expects a whole number, got 'many'\nsee 'ferry echo --help'\n")
        // A UsageError thrown without a command name gets the running command's.
        let thrown = await runInProcess(["fail", "usage"])
        #expect(thrown.exitCode == .usage)
        #expect(thrown.stderr == """
            error: '--from' and '--to' cannot be used together
            see 'ferry fail --help'

            """)
    }

    @Test(arguments: [
        ("system", "error: open /no/such/file: No such file or directory\n", ExitCode.failure),
        ("cli", "error: no store at '/tmp/x'\n", .failure),
        ("cli-3", "error: custom status\n", ExitCode(rawValue: 3)),
        ("plain", "error: PlainError(path: \"a\")\n", .failure),
        ("bare", "error: BareError.locked\n", .failure),
        ("lines", "error: first line second line\n", .failure),
    ])
    func errorsArePrintedOnceOnOneLine(kind: String, expected: String, code: ExitCode) async {
        let result = await runInProcess(["fail", kind])
        #expect(result.exitCode == code)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == expected)
        #expect(!result.stderr.contains("FerryCLI"))
        #expect(!result.stderr.contains("Ferry."))
    }

    @Test func foundationErrorsAreNotDumped() async {
        let cocoa = await runInProcess(["fail", "cocoa"])
        #expect(cocoa.exitCode == .failure)
        #expect(cocoa.stderr.hasPrefix("error: /no/such/file: "))
        #expect(!cocoa.stderr.contains("Domain="))
        let nsError = await runInProcess(["fail", "nserror"])
        #expect(nsError.exitCode == .failure)
        #expect(nsError.stderr.hasPrefix("error: "))
        #expect(!nsError.stderr.contains("Domain="))
        #expect(nsError.stderr.split(separator: "\n").count == 1)
    }

    @Test func errorIsRedOnlyOnAColorTerminal() async {
        let terminal = await runInProcess(["fail", "cli"], stderrIsTerminal: true)
        #expect(terminal.stderr == "\u{1B}[1;31merror:\u{1B}[0m no store at '/tmp/x'\n")
        let noColor = await runInProcess(["fail", "cli"], environment: ["NO_COLOR": "1"], stderrIsTerminal: true)
        #expect(noColor.stderr == "error: no store at '/tmp/x'\n")
        let dumb = await runInProcess(["fail", "cli"], environment: ["TERM": "dumb"], stderrIsTerminal: true)
        #expect(dumb.stderr == "error: no store at '/tmp/x'\n")
    }

    @Test func everyRegisteredCommandHasAUniqueName() {
        let names = FerryCommand.all.map { $0.spec.name }
        #expect(Set(names).count == names.count)
        #expect(!names.contains("help"))
    }
}
