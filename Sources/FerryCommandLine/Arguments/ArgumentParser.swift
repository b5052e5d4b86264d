/// Parses a command's arguments (everything after `ferry <command>`) against its ``CommandSpec``.
///
/// The rules, in the order tokens are read:
/// - `--` ends the options: every later token is positional, even `--x`.
/// - `-h` and `--help` request help; they win over any other mistake on the line.
/// - `--name value`, `--name=value` and `-n value` give an option its value. A value may not start
///   with `-` unless it is `-` itself or a negative number (write `--name=-x` for such a value).
/// - `--flag` and `-f` set a flag; `--flag=value` is an error.
/// - `-` alone is a positional value (by convention, standard input); so is a negative number
///   such as `-5`.
/// - Anything else starting with `-` is an unknown option. Short options are not bundled
///   (`-ab` is not `-a -b`).
///
/// Positional values fill the declared arguments in order; a variadic argument takes the rest.
///
/// ```swift
/// let arguments = try ArgumentParser.parse(["Users", "42", "--store", "/data"], spec: PutCommand.spec)
/// ```
enum ArgumentParser {
    /// Parses `args` against `spec`.
    ///
    /// - Parameters:
    ///   - args: The tokens after the command name.
    ///   - spec: The command's declaration.
    /// - Returns: The values by name, or a help request (``ParsedArguments/isHelpRequested``).
    /// - Throws: ``UsageError`` for an unknown option, a missing or unexpected value, a missing
    ///   or extra argument, or a non-repeatable option given twice.
    static func parse(_ args: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        do {
            return try parseStrictly(args, spec: spec)
        } catch {
            // `ferry put --frob --help` shows help rather than complaining about `--frob`.
            if asksForHelp(args) { return .helpRequest(for: spec) }
            throw error
        }
    }

    private static func parseStrictly(_ args: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        func failure(_ message: String) -> UsageError {
            UsageError(message, commandName: spec.name)
        }
        var positionals: [String] = []
        var optionValues: [String: [String]] = [:]
        var flags: Set<String> = []
        var index = 0

        while index < args.count {
            let token = args[index]
            index += 1

            if token == "--" {
                positionals += args[index...]
                break
            }
            guard isOptionLike(token) else {
                positionals.append(token)
                continue
            }
            if token == "--help" || token == "-h" { return .helpRequest(for: spec) }

            // Find the option and any value attached with `=`.
            let option: OptionSpec
            let spelling: String
            var attachedValue: String?
            if token.hasPrefix("--") {
                let body = token.dropFirst(2)
                let name: Substring
                if let equals = body.firstIndex(of: "=") {
                    name = body[..<equals]
                    attachedValue = String(body[body.index(after: equals)...])
                } else {
                    name = body
                }
                spelling = "--" + name
                guard let found = spec.option(named: String(name)) else {
                    let suggestion = NameSuggestion.closest(to: String(name), among: spec.options.map(\.name))
                    throw failure("unknown option '\(spelling)' for '\(spec.qualifiedName)'" + (suggestion.map { "; did you mean '--\($0)'?" } ?? ""))
                }
                option = found
            } else {
                let body = token.dropFirst()
                guard body.count == 1, let letter = body.first, let found = spec.option(short: letter) else {
                    throw failure("unknown option '\(token)' for '\(spec.qualifiedName)'")
                }
                spelling = token
                option = found
            }

            if option.takesValue {
                let value: String
                if let attachedValue {
                    value = attachedValue
                } else if index < args.count, !isOptionLike(args[index]) {
                    value = args[index]
                    index += 1
                } else {
                    throw failure("missing value for '\(spelling) \(valueLabel(option))'")
                }
                if optionValues[option.name] != nil, !option.isRepeatable {
                    throw failure("option '\(option.displayName)' was given more than once")
                }
                optionValues[option.name, default: []].append(value)
            } else {
                if attachedValue != nil {
                    throw failure("option '\(option.displayName)' takes no value")
                }
                if flags.contains(option.name) {
                    throw failure("option '\(option.displayName)' was given more than once")
                }
                flags.insert(option.name)
            }
        }

        return ParsedArguments(
            spec: spec, positionals: try assign(positionals, to: spec), options: optionValues, flags: flags)
    }

    /// Distributes positional values over the declared arguments, in order.
    private static func assign(_ values: [String], to spec: CommandSpec) throws(UsageError) -> [String: [String]] {
        var remaining = values[...]
        var assigned: [String: [String]] = [:]
        for argument in spec.arguments {
            if argument.isVariadic {
                assigned[argument.name] = Array(remaining)
                remaining = []
                if assigned[argument.name, default: []].isEmpty, !argument.isOptional {
                    throw missing(argument, spec)
                }
            } else if let value = remaining.popFirst() {
                assigned[argument.name] = [value]
            } else if !argument.isOptional {
                throw missing(argument, spec)
            }
        }
        if let extra = remaining.first {
            throw UsageError("unexpected argument '\(extra)' for '\(spec.qualifiedName)'", commandName: spec.name)
        }
        return assigned
    }

    private static func missing(_ argument: PositionalSpec, _ spec: CommandSpec) -> UsageError {
        UsageError("missing argument <\(argument.name)> for '\(spec.qualifiedName)'", commandName: spec.name)
    }

    /// Whether a token is an option rather than a value: it starts with `-`, but is not `-`
    /// alone nor a negative number.
    static func isOptionLike(_ token: String) -> Bool {
        guard token.hasPrefix("-"), token != "-" else { return false }
        return !isNegativeNumber(token)
    }

    /// `-5`, `-0.5`, `-.5`, `-1e3`: a minus sign, a digit (or a point and a digit), and a number.
    private static func isNegativeNumber(_ token: String) -> Bool {
        let afterSign = token.utf8.dropFirst()
        let startsWithDigit = afterSign.first.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false
        let startsWithPoint = afterSign.starts(with: [UInt8(ascii: ".")])
        return (startsWithDigit || startsWithPoint) && Double(token) != nil
    }

    /// Whether `-h` or `--help` appears as an option (before any `--`).
    static func asksForHelp(_ args: [String]) -> Bool {
        args.prefix { $0 != "--" }.contains { $0 == "--help" || $0 == "-h" }
    }

    private static func valueLabel(_ option: OptionSpec) -> String {
        if case .value(let valueName) = option.kind { return "<\(valueName)>" }
        return ""
    }
}
