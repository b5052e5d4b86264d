/// Renders help text: `ferry <command> --help` from a ``CommandSpec``, and the `ferry --help`
/// overview listing the commands. Text is wrapped at ``width`` columns, with option and argument
/// descriptions aligned in a second column.
///
/// ```swift
/// context.stdout.write(HelpFormatter().help(for: PutCommand.spec))
/// ```
///
/// The output looks like:
/// ```text
/// OVERVIEW: Store a record from JSON.
///
/// USAGE: ferry put [<options>] <entity> <id> [<file>]
///
/// ARGUMENTS:
///   <entity>                The entity to write to.
///
/// OPTIONS:
///   -s, --store <path>      The store directory. (default: .)
///   -h, --help              Show help for this command.
/// ```
struct HelpFormatter: Sendable {
    /// The column text is wrapped at.
    var width = 80
    /// Labels longer than this get their description on the next line.
    var maximumLabelWidth = 22

    /// The entries every command's OPTIONS section ends with.
    static let helpEntry = (label: "-h, --help", help: "Show help for this command.")

    /// The help of one command.
    func help(for spec: CommandSpec) -> String {
        var sections: [String] = []
        sections.append(hanging("OVERVIEW: ", spec.abstract, indent: 2))
        if !spec.discussion.isEmpty { sections.append(wrapParagraphs(spec.discussion)) }
        sections.append(usageSection(spec.usage.isEmpty ? [generatedUsage(for: spec)] : spec.usage))
        let arguments = spec.arguments.map { (label: $0.label, help: $0.help) }
        var options = spec.options.map { option -> (label: String, help: String) in
            var help = option.help
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            if option.isRepeatable { help += " (can be repeated)" }
            return (option.label, help)
        }
        options.append(Self.helpEntry)
        let column = helpColumn(for: arguments + options)
        if !arguments.isEmpty { sections.append(table("ARGUMENTS:", arguments, column: column)) }
        sections.append(table("OPTIONS:", options, column: column))
        if !spec.examples.isEmpty { sections.append((["EXAMPLES:"] + spec.examples.map { "  " + $0 }).joined(separator: "\n")) }
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// The `ferry --help` overview.
    ///
    /// - Parameters:
    ///   - abstract: What Ferry is, in one line.
    ///   - commands: The commands, listed in this order with their abstracts.
    func overview(abstract: String, commands: [CommandSpec]) -> String {
        var sections: [String] = []
        sections.append(hanging("OVERVIEW: ", abstract, indent: 2))
        sections.append(usageSection(["\(CommandSpec.programName) <command> [<arguments>] [--help]"]))
        let commandRows = commands.map { (label: $0.name, help: $0.abstract) }
        let optionRows = [
            (label: "-h, --help", help: "Show this help, or with a command, the command's help."),
            (label: "--version", help: "Show the version."),
        ]
        let column = helpColumn(for: commandRows + optionRows)
        if !commandRows.isEmpty { sections.append(table("COMMANDS:", commandRows, column: column)) }
        sections.append(table("OPTIONS:", optionRows, column: column))
        sections.append(wrap(
            "See '\(CommandSpec.programName) help <command>' for a command's arguments and options.", width: width
        ).joined(separator: "\n"))
        return sections.joined(separator: "\n\n") + "\n"
    }

    /// `ferry put [<options>] <entity> <id> [<file>]`.
    func generatedUsage(for spec: CommandSpec) -> String {
        var words = [spec.qualifiedName]
        if !spec.options.isEmpty { words.append("[<options>]") }
        for argument in spec.arguments {
            words.append(argument.isOptional ? "[\(argument.label)]" : argument.label)
        }
        return words.joined(separator: " ")
    }

    // MARK: Layout

    private func usageSection(_ lines: [String]) -> String {
        let prefix = "USAGE: "
        let padding = String(repeating: " ", count: prefix.count)
        return lines.enumerated().map { index, line in
            hanging(index == 0 ? prefix : padding, line, indent: prefix.count + 2)
        }.joined(separator: "\n")
    }

    /// Where descriptions start so that every row's label fits before them (labels longer than
    /// ``maximumLabelWidth`` excepted): 2 spaces, the label, 2 spaces.
    private func helpColumn(for rows: [(label: String, help: String)]) -> Int {
        2 + min(rows.map(\.label.count).max() ?? 0, maximumLabelWidth) + 2
    }

    /// A titled two-column list: labels indented by 2, descriptions starting at `column`; a
    /// label too long for that puts its description on the next line.
    private func table(_ title: String, _ rows: [(label: String, help: String)], column: Int) -> String {
        let margin = String(repeating: " ", count: column)
        var lines = [title]
        for row in rows {
            let label = "  " + row.label
            let helpLines = wrap(row.help, width: width - column)
            if label.count + 2 > column {
                lines.append(label)
                lines += helpLines.map { margin + $0 }
            } else {
                let padded = label + String(repeating: " ", count: column - label.count)
                lines += helpLines.enumerated().map { ($0.offset == 0 ? padded : margin) + $0.element }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `prefix` then `text` wrapped, continuation lines indented by `indent`.
    private func hanging(_ prefix: String, _ text: String, indent: Int) -> String {
        let first = wrap(text, width: width - prefix.count)
        guard let head = first.first else { return prefix }
        let rest = wrap(first.dropFirst().joined(separator: " "), width: width - indent)
        let margin = String(repeating: " ", count: indent)
        return ([prefix + head] + (first.count > 1 ? rest.map { margin + $0 } : [])).joined(separator: "\n")
    }

    /// Wraps each line of `text`; blank lines are kept, and lines that start with a space
    /// (examples) are kept as written.
    private func wrapParagraphs(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.first == " " || line.isEmpty ? String(line) : wrap(String(line), width: width).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Greedy word wrap into lines of at most `width` characters (a longer word stays whole).
    /// Runs of spaces between words become one.
    func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count > width {
                lines.append(current)
                current = String(word)
            } else {
                current += " " + word
            }
        }
        lines.append(current)
        return lines
    }
}
