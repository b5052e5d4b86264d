/// A `ferry` subcommand: a declaration and a function, listed in ``FerryCommand/all``.
///
/// Write one per file as `Sources/FerryCLI/Commands/<Name>Command.swift`:
///
/// ```swift
/// enum GetCommand: Command {
///     static let spec = CommandSpec(
///         name: "get",
///         abstract: "Print a record as JSON.",
///         arguments: [
///             .required("entity", help: "The record's entity."),
///             .required("id", help: "The record's id."),
///         ],
///         options: [.value("store", short: "s", valueName: "path", help: "The store directory.", default: ".")])
///
///     static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
///         let entity = try arguments.requiredPositional("entity")
///         // …
///         context.stdout.line(json)
///         return .success
///     }
/// }
/// ```
///
/// Return ``ExitCode/success`` or, for diff-like outcomes, ``ExitCode/failure``. Throw for
/// errors: a ``UsageError`` for a command-line mistake the spec cannot express (exit 2), a
/// ``CLIError`` for a message of your own, or the library's error as it is (exit 1). Never print
/// errors yourself: ``ErrorReporter`` prints each once, as `error: <description>`, so every error
/// type needs a readable `CustomStringConvertible` description.
protocol Command {
    /// The name, arguments, options and help text.
    static var spec: CommandSpec { get }

    /// Does the work, once the arguments have been parsed against ``spec``.
    ///
    /// - Parameters:
    ///   - arguments: The values, read by name.
    ///   - context: Standard streams, environment and working directory.
    /// - Returns: The exit status.
    /// - Throws: Any error; the dispatcher reports it and exits non-zero.
    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode
}
