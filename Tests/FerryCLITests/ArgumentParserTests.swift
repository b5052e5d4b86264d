import Testing
@testable import FerryCommandLine

@Suite struct ArgumentParserTests {
    /// A `put`-like command: two required arguments, one optional, options of every kind.
    static let put = CommandSpec(
        name: "put",
        abstract: "Store a record from JSON.",
        arguments: [
            .required("entity", help: "The entity."),
            .required("id", help: "The id."),
            .optional("file", help: "A JSON file; '-' reads standard input."),
        ],
        options: [
            .value("store", short: "s", valueName: "path", help: "The store directory.", default: "."),
            .value("message", short: "m", valueName: "text", help: "A note."),
            .value("tag", valueName: "name", help: "A tag.", repeatable: true),
            .value("limit", valueName: "n", help: "A count."),
            .value("rate", valueName: "x", help: "A ratio."),
            .flag("dry-run", short: "n", help: "Change nothing."),
            .flag("quiet", help: "Print less."),
        ])

    /// A command whose last argument takes every remaining value.
    static let add = CommandSpec(
        name: "add", abstract: "Add files.",
        arguments: [.required("entity", help: "The entity."), .variadic("files", help: "Files.", atLeastOne: true)])

    static let list = CommandSpec(
        name: "list", abstract: "List.", arguments: [.variadic("paths", help: "Paths.")])

    func parse(_ args: [String], _ spec: CommandSpec = put) throws(UsageError) -> ParsedArguments {
        try ArgumentParser.parse(args, spec: spec)
    }

    func message(_ args: [String], _ spec: CommandSpec = put) -> String? {
        do {
            _ = try parse(args, spec)
            return nil
        } catch {
            return error.message
        }
    }

    // MARK: Options

    @Test func longOptionWithSeparateValue() throws {
        let parsed = try parse(["Users", "42", "--store", "/data"])
        #expect(parsed.option("store") == "/data")
        #expect(parsed.positional("entity") == "Users")
        #expect(parsed.positional("id") == "42")
    }

    @Test func longOptionWithAttachedValue() throws {
        #expect(try parse(["U", "1", "--store=/data"]).option("store") == "/data")
        #expect(try parse(["U", "1", "--message=a=b"]).option("message") == "a=b")
        #expect(try parse(["U", "1", "--message="]).option("message") == "")
        #expect(try parse(["U", "1", "--message=-x"]).option("message") == "-x")
    }

    @Test func shortOptionWithValue() throws {
        let parsed = try parse(["-s", "/data", "U", "1", "-m", "hello world"])
        #expect(parsed.option("store") == "/data")
        #expect(parsed.option("message") == "hello world")
    }

    @Test func flags() throws {
        let none = try parse(["U", "1"])
        #expect(!none.flag("dry-run"))
        #expect(!none.flag("quiet"))
        let both = try parse(["U", "--quiet", "1", "-n"])
        #expect(both.flag("dry-run"))
        #expect(both.flag("quiet"))
    }

    @Test func optionsMayComeAnywhere() throws {
        let parsed = try parse(["--quiet", "U", "-s", "x", "1", "--tag", "a", "f.json"])
        #expect(parsed.positionals("entity") == ["U"])
        #expect(parsed.positional("id") == "1")
        #expect(parsed.positional("file") == "f.json")
        #expect(parsed.option("store") == "x")
        #expect(parsed.options("tag") == ["a"])
    }

    @Test func defaultsApplyOnlyToOption() throws {
        let parsed = try parse(["U", "1"])
        #expect(parsed.option("store") == ".")
        #expect(parsed.option("message") == nil)
        #expect(parsed.options("store") == [])
        #expect(parsed.options("tag") == [])
    }

    @Test func repeatableOptionCollectsValuesInOrder() throws {
        let parsed = try parse(["U", "1", "--tag", "a", "--tag=b", "--tag", "c"])
        #expect(parsed.options("tag") == ["a", "b", "c"])
        #expect(parsed.option("tag") == "c")
    }

    @Test func unknownOptions() {
        #expect(message(["U", "1", "--frob"]) == "unknown option '--frob' for 'ferry put'")
        #expect(message(["U", "1", "--frob=3"]) == "unknown option '--frob' for 'ferry put'")
        #expect(message(["-x", "U", "1"]) == "unknown option '-x' for 'ferry put'")
        // Short options are not bundled, and a short option takes no attached value.
        #expect(message(["U", "1", "-nq"]) == "unknown option '-nq' for 'ferry put'")
        #expect(message(["U", "1", "-s/data"]) == "unknown option '-s/data' for 'ferry put'")
        #expect(message(["U", "1", "---store", "x"]) == "unknown option '---store' for 'ferry put'; did you mean '--store'?")
    }

    @Test func missingValue() {
        #expect(message(["U", "1", "--store"]) == "missing value for '--store <path>'")
        #expect(message(["U", "1", "-s"]) == "missing value for '-s <path>'")
        #expect(message(["U", "1", "--store", "--quiet"]) == "missing value for '--store <path>'")
        #expect(message(["U", "1", "--store", "--"]) == "missing value for '--store <path>'")
    }

    @Test func valuesThatLookLikeDashes() throws {
        // `-` (standard input) and negative numbers are values, not options.
        #expect(try parse(["U", "1", "--message", "-"]).option("message") == "-")
        #expect(try parse(["U", "1", "--limit", "-5"]).integer("limit") == -5)
        #expect(try parse(["U", "1", "--rate", "-.5"]).double("rate") == -0.5)
    }

    @Test func flagTakesNoValue() {
        #expect(message(["U", "1", "--quiet=yes"]) == "option '--quiet' takes no value")
    }

    @Test func repeatedNonRepeatableOption() {
        #expect(message(["U", "1", "--store", "a", "--store", "b"]) == "option '--store' was given more than once")
        #expect(message(["U", "1", "-s", "a", "--store=b"]) == "option '--store' was given more than once")
        #expect(message(["U", "1", "--quiet", "--quiet"]) == "option '--quiet' was given more than once")
        #expect(message(["U", "1", "-n", "--dry-run"]) == "option '--dry-run' was given more than once")
    }

    // MARK: Positional arguments

    @Test func doubleDashEndsOptions() throws {
        let parsed = try parse(["--quiet", "--", "--store", "-n", "-"])
        #expect(parsed.positional("entity") == "--store")
        #expect(parsed.positional("id") == "-n")
        #expect(parsed.positional("file") == "-")
        #expect(parsed.option("store") == ".")
        #expect(!parsed.flag("dry-run"))
        #expect(parsed.flag("quiet"))
        // Only the first `--` is special.
        #expect(try parse(["U", "--", "1", "--"]).positional("file") == "--")
    }

    @Test func dashIsAPositional() throws {
        let parsed = try parse(["U", "1", "-"])
        #expect(parsed.positional("file") == "-")
    }

    @Test func negativeNumberIsAPositional() throws {
        let parsed = try parse(["U", "-42"])
        #expect(parsed.positional("id") == "-42")
        #expect(try parse(["U", "-1e3"]).positional("id") == "-1e3")
        #expect(message(["U", "-inf"]) == "unknown option '-inf' for 'ferry put'")
    }

    @Test func optionalPositionalMayBeLeftOut() throws {
        let parsed = try parse(["U", "1"])
        #expect(parsed.positional("file") == nil)
        #expect(parsed.positionals("file") == [])
    }

    @Test func missingPositional() {
        #expect(message([]) == "missing argument <entity> for 'ferry put'")
        #expect(message(["U"]) == "missing argument <id> for 'ferry put'")
        #expect(message(["U", "--quiet"]) == "missing argument <id> for 'ferry put'")
    }

    @Test func extraPositional() {
        #expect(message(["U", "1", "f.json", "g.json"]) == "unexpected argument 'g.json' for 'ferry put'")
        #expect(message(["U", "1", "f", "--", "--x"]) == "unexpected argument '--x' for 'ferry put'")
    }

    @Test func variadicTakesTheRest() throws {
        let parsed = try parse(["U", "a", "--", "-b", "c"], Self.add)
        #expect(parsed.positional("entity") == "U")
        #expect(parsed.positionals("files") == ["a", "-b", "c"])
        #expect(parsed.positional("files") == "a")
        #expect(message(["U"], Self.add) == "missing argument <files> for 'ferry add'")
        #expect(try parse([], Self.list).positionals("paths") == [])
        #expect(try parse(["x", "y"], Self.list).positionals("paths") == ["x", "y"])
    }

    @Test func requiredPositional() throws {
        #expect(try parse(["U", "1"]).requiredPositional("id") == "1")
        #expect(throws: UsageError("missing argument <file> for 'ferry put'", commandName: "put")) {
            try parse(["U", "1"]).requiredPositional("file")
        }
    }

    // MARK: Help

    @Test func helpIsRecognizedAnywhereBeforeDoubleDash() throws {
        #expect(try parse(["--help"]).isHelpRequested)
        #expect(try parse(["-h"]).isHelpRequested)
        #expect(try parse(["U", "1", "-h"]).isHelpRequested)
        // Help wins over mistakes elsewhere on the line, before or after it.
        #expect(try parse(["--frob", "--help"]).isHelpRequested)
        #expect(try parse(["--help", "--frob"]).isHelpRequested)
        #expect(try parse(["--store", "--help"]).isHelpRequested)
        #expect(try parse(["a", "b", "c", "d", "-h"]).isHelpRequested)
        #expect(try parse(["U", "1"]).isHelpRequested == false)
    }

    @Test func helpAfterDoubleDashOrAsValueIsData() throws {
        let parsed = try parse(["U", "--", "--help"])
        #expect(!parsed.isHelpRequested)
        #expect(parsed.positional("id") == "--help")
        #expect(try parse(["U", "1", "--message=--help"]).option("message") == "--help")
    }

    // MARK: Numbers

    @Test func integers() throws {
        #expect(try parse(["U", "1", "--limit", "25"]).integer("limit") == 25)
        #expect(try parse(["U", "1"]).integer("limit") == nil)
        #expect(try parse(["U", "7"]).integer("id") == 7)
        #expect(throws: UsageError("--limit expects a whole number, got 'x'", commandName: "put")) {
            try parse(["U", "1", "--limit", "x"]).integer("limit")
        }
        #expect(throws: UsageError("--limit expects a whole number, got '2.5'", commandName: "put")) {
            try parse(["U", "1", "--limit=2.5"]).integer("limit")
        }
        #expect(throws: UsageError("<id> expects a whole number, got 'abc'", commandName: "put")) {
            try parse(["U", "abc"]).integer("id")
        }
        #expect(throws: UsageError.self) {
            try parse(["U", "1", "--limit", "99999999999999999999999"]).integer("limit")
        }
    }

    @Test func integersInRange() throws {
        #expect(try parse(["U", "1", "--limit", "10"]).integer("limit", in: 1...10) == 10)
        #expect(try parse(["U", "1"]).integer("limit", in: 1...10) == nil)
        #expect(throws: UsageError("--limit must be between 1 and 10, got '0'", commandName: "put")) {
            try parse(["U", "1", "--limit", "0"]).integer("limit", in: 1...10)
        }
    }

    @Test func doubles() throws {
        #expect(try parse(["U", "1", "--rate", "0.25"]).double("rate") == 0.25)
        #expect(try parse(["U", "1", "--rate", "3"]).double("rate") == 3)
        #expect(try parse(["U", "1"]).double("rate") == nil)
        for bad in ["fast", "nan", "inf", ""] {
            #expect(throws: UsageError("--rate expects a number, got '\(bad)'", commandName: "put")) {
                try parse(["U", "1", "--rate=\(bad)"]).double("rate")
            }
        }
    }

    // MARK: Errors and declarations

    @Test func usageErrorsNameTheirCommandForTheHint() {
        do {
            _ = try parse(["--frob"])
            Issue.record("expected a usage error")
        } catch {
            #expect(error.commandName == "put")
            #expect(error.hint == "see 'ferry put --help'")
        }
        #expect(UsageError("x").hint == "see 'ferry --help'")
        #expect(UsageError("x").naming("get").hint == "see 'ferry get --help'")
        #expect(UsageError("x", commandName: "put").naming("get").commandName == "put")
    }

    @Test func soundDeclarationsHaveNoProblems() {
        #expect(Self.put.declarationProblems.isEmpty)
        #expect(Self.add.declarationProblems.isEmpty)
        for command in FerryCommand.all + TestCommands.all {
            #expect(command.spec.declarationProblems.isEmpty, "\(command.spec.name)")
        }
    }

    @Test func declarationMistakesAreFound() {
        // Built field by field: the initializer asserts on these very mistakes.
        var spec = Self.list
        spec.arguments = [.variadic("a", help: ""), .required("b", help: "")]
        #expect(spec.declarationProblems.contains("only the last argument may be variadic"))
        #expect(spec.declarationProblems.contains("a required argument follows an optional one"))
        spec.arguments = []
        spec.options = [.flag("help", help: ""), .flag("x", short: "x", help: ""), .flag("x", short: "x", help: "")]
        #expect(spec.declarationProblems.contains("'--help' and '-h' are built in"))
        #expect(spec.declarationProblems.contains("duplicate option names"))
        #expect(spec.declarationProblems.contains("duplicate short options"))
        spec.options = [.flag("file", help: "")]
        spec.arguments = [.required("file", help: "")]
        #expect(spec.declarationProblems.contains("a name is both an option and an argument"))
    }
}
