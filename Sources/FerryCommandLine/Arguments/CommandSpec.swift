/// What a command accepts and how its help reads: the declaration from which ``ArgumentParser``
/// parses and ``HelpFormatter`` renders `ferry <command> --help`.
///
/// ```swift
/// static let spec = CommandSpec(
///     name: "put",
///     abstract: "Store a record from JSON.",
///     discussion: "Reads the document from FILE, or from standard input when FILE is '-' or absent.",
///     arguments: [
///         .required("entity", help: "The entity to write to."),
///         .required("id", help: "The record's id."),
///         .optional("file", help: "A JSON file; '-' reads standard input."),
///     ],
///     options: [
///         .value("store", short: "s", valueName: "path", help: "The store directory.", default: "."),
///         .flag("dry-run", help: "Show what would change without writing."),
///     ])
/// ```
///
/// Every command also accepts `-h`/`--help`; do not declare them.
struct CommandSpec: Sendable {
    /// The word after `ferry` that selects the command.
    var name: String
    /// One line, shown in `ferry --help` and at the top of the command's help.
    var abstract: String
    /// Paragraphs shown after the abstract. Lines starting with a space (examples) are kept as
    /// written; other lines are wrapped.
    var discussion: String
    /// Usage lines in full (`ferry put <entity> <id> [<file>]`); when empty, one is generated.
    var usage: [String]
    /// Positional arguments, in order.
    var arguments: [PositionalSpec]
    /// Options, in the order the help lists them.
    var options: [OptionSpec]
    /// Command lines that show the command at work, each as a user would type it (after any
    /// `NAME=value` environment settings); help ends with them, under EXAMPLES.
    var examples: [String]

    /// The program name that prefixes every command in messages and help.
    static let programName = "ferry"

    /// Declares a command.
    ///
    /// The declaration is checked in debug builds: unique names, optional and variadic arguments
    /// last, no `help`/`h` option (every command has it built in).
    init(
        name: String, abstract: String, discussion: String = "", usage: [String] = [],
        arguments: [PositionalSpec] = [], options: [OptionSpec] = [], examples: [String] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.usage = usage
        self.arguments = arguments
        self.options = options
        self.examples = examples
        assert(declarationProblems.isEmpty, "\(qualifiedName): \(declarationProblems.joined(separator: "; "))")
    }

    /// `ferry put`: the command as typed, for messages.
    var qualifiedName: String { "\(Self.programName) \(name)" }

    /// The option with this long name.
    func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }

    /// The option with this short name.
    func option(short: Character) -> OptionSpec? {
        options.first { $0.short == short }
    }

    /// The positional argument with this name.
    func argument(named name: String) -> PositionalSpec? {
        arguments.first { $0.name == name }
    }

    /// Mistakes in the declaration itself (programmer errors), empty when it is sound.
    var declarationProblems: [String] {
        var problems: [String] = []
        let optionNames = options.map(\.name)
        let argumentNames = arguments.map(\.name)
        if Set(optionNames).count != optionNames.count { problems.append("duplicate option names") }
        if Set(argumentNames).count != argumentNames.count { problems.append("duplicate argument names") }
        if !Set(optionNames).isDisjoint(with: argumentNames) {
            problems.append("a name is both an option and an argument")
        }
        let shorts = options.compactMap(\.short)
        if Set(shorts).count != shorts.count { problems.append("duplicate short options") }
        if optionNames.contains("help") || shorts.contains("h") {
            problems.append("'--help' and '-h' are built in")
        }
        if let variadic = arguments.firstIndex(where: \.isVariadic), variadic != arguments.count - 1 {
            problems.append("only the last argument may be variadic")
        }
        if let firstOptional = arguments.firstIndex(where: \.isOptional),
            arguments[firstOptional...].contains(where: { !$0.isOptional })
        {
            problems.append("a required argument follows an optional one")
        }
        return problems
    }
}
