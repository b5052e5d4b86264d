import Testing
@testable import FerryCommandLine

@Suite struct HelpFormatterTests {
    static let put = CommandSpec(
        name: "put",
        abstract: "Store a record from JSON.",
        discussion: """
            Reads the document from FILE, or from standard input when FILE is '-' or absent. The record \
            replaces any earlier version; the journal keeps the history.

            Example:
              ferry put Users 42 user.json
            """,
        arguments: [
            .required("entity", help: "The entity to write to."),
            .required("id", help: "The record's id."),
            .optional("file", help: "A JSON file; '-' reads standard input."),
        ],
        options: [
            .value("store", short: "s", valueName: "path", help: "The store directory.", default: "."),
            .value("tag", valueName: "name", help: "A tag to attach.", repeatable: true),
            .flag("dry-run", help: "Show what would change without writing anything to the store or its journal, and exit."),
        ])

    @Test func commandHelp() {
        let expected = """
            OVERVIEW: Store a record from JSON.

            Reads the document from FILE, or from standard input when FILE is '-' or absent.
            The record replaces any earlier version; the journal keeps the history.

            Example:
              ferry put Users 42 user.json

            USAGE: ferry put [<options>] <entity> <id> [<file>]

            ARGUMENTS:
              <entity>            The entity to write to.
              <id>                The record's id.
              <file>              A JSON file; '-' reads standard input.

            OPTIONS:
              -s, --store <path>  The store directory. (default: .)
              --tag <name>        A tag to attach. (can be repeated)
              --dry-run           Show what would change without writing anything to the
                                  store or its journal, and exit.
              -h, --help          Show help for this command.

            """
        #expect(HelpFormatter().help(for: Self.put) == expected)
    }

    @Test func linesFitInEightyColumns() {
        let long = String(repeating: "word ", count: 60)
        let spec = CommandSpec(
            name: "sync", abstract: long, discussion: long,
            arguments: [.variadic("peers", help: long)],
            options: [.value("a-very-long-option-name", short: "a", valueName: "long-value-name", help: long)])
        let help = HelpFormatter().help(for: spec)
        for line in help.split(separator: "\n") {
            #expect(line.count <= 80, "\(line)")
        }
    }

    @Test func longLabelsPutTheirHelpOnTheNextLine() {
        let spec = CommandSpec(
            name: "sync", abstract: "Sync.",
            options: [
                .value("a-very-long-option-name", short: "a", valueName: "value", help: "Long."),
                .flag("short", help: "Short."),
            ])
        let help = HelpFormatter().help(for: spec)
        #expect(help.contains("""
              -a, --a-very-long-option-name <value>
                                      Long.
              --short                 Short.
            """))
    }

    @Test func usage() {
        let formatter = HelpFormatter()
        #expect(formatter.generatedUsage(for: Self.put) == "ferry put [<options>] <entity> <id> [<file>]")
        let add = CommandSpec(
            name: "add", abstract: "Add.", arguments: [.variadic("files", help: "Files.", atLeastOne: true)])
        #expect(formatter.generatedUsage(for: add) == "ferry add <files> ...")
        let list = CommandSpec(name: "list", abstract: "List.", arguments: [.variadic("paths", help: "Paths.")])
        #expect(formatter.generatedUsage(for: list) == "ferry list [<paths> ...]")

        var explicit = add
        explicit.usage = ["ferry add <files> ...", "ferry add --from <list>"]
        #expect(formatter.help(for: explicit).contains("""
            USAGE: ferry add <files> ...
                   ferry add --from <list>
            """))
    }

    @Test func overviewListsCommandsWithAbstracts() {
        let overview = HelpFormatter().overview(
            abstract: "Ferry keeps records in sync.", commands: [Self.put, EchoCommand.spec])
        #expect(overview == """
            OVERVIEW: Ferry keeps records in sync.

            USAGE: ferry <command> [<arguments>] [--help]

            COMMANDS:
              put         Store a record from JSON.
              echo        Print the parsed arguments.

            OPTIONS:
              -h, --help  Show this help, or with a command, the command's help.
              --version   Show the version.

            See 'ferry help <command>' for a command's arguments and options.

            """)
    }

    @Test func wrapping() {
        let formatter = HelpFormatter()
        #expect(formatter.wrap("a b c", width: 3) == ["a b", "c"])
        #expect(formatter.wrap("", width: 10) == [""])
        #expect(formatter.wrap("unbreakable-word x", width: 5) == ["unbreakable-word", "x"])
        #expect(formatter.wrap("two  spaces", width: 80) == ["two spaces"])
    }
}
