import Ferry
import Foundation
@testable import FerryCommandLine

/// Commands that exist only in tests, to drive the dispatcher and the error reporter.
enum TestCommands {
    static var all: [any Command.Type] { [EchoCommand.self, FailCommand.self] }
}

/// `ferry echo`: prints what it parsed, one `name=value` per line; `--differ` makes it return 1
/// as a diff-like command would; `-` as the word echoes standard input.
enum EchoCommand: Command {
    static let spec = CommandSpec(
        name: "echo",
        abstract: "Print the parsed arguments.",
        arguments: [
            .required("word", help: "A word; '-' reads standard input."),
            .variadic("rest", help: "More words."),
        ],
        options: [
            .value("store", short: "s", valueName: "path", help: "A path.", default: "."),
            .value("limit", valueName: "n", help: "A whole number."),
            .flag("differ", help: "Exit 1, as when differences are found."),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        var word = try arguments.requiredPositional("word")
        if word == "-" { word = String(decoding: try context.stdin.readAll(), as: UTF8.self) }
        context.stdout.line("word=\(word)")
        context.stdout.line("rest=\(arguments.positionals("rest").joined(separator: ","))")
        context.stdout.line("store=\(arguments.option("store") ?? "nil")")
        if let limit = try arguments.integer("limit") { context.stdout.line("limit=\(limit)") }
        return arguments.flag("differ") ? .failure : .success
    }
}

/// `ferry fail <kind>`: throws the kind of error named.
enum FailCommand: Command {
    static let spec = CommandSpec(
        name: "fail",
        abstract: "Throw an error of the given kind.",
        arguments: [.required("kind", help: "system, cli, cli-3, usage, plain, bare, lines, cocoa or nserror.")])

    struct PlainError: Error { var path: String }
    enum BareError: Error { case locked }
    struct LinesError: Error, CustomStringConvertible {
        var description: String { "first line\n  second line\n" }
    }

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        switch try arguments.requiredPositional("kind") {
        case "system": throw SystemError("open", path: "/no/such/file", code: 2)
        case "cli": throw CLIError("no store at '/tmp/x'")
        case "cli-3": throw CLIError("custom status", exitCode: ExitCode(rawValue: 3))
        case "usage": throw UsageError("'--from' and '--to' cannot be used together")
        case "plain": throw PlainError(path: "a")
        case "bare": throw BareError.locked
        case "lines": throw LinesError()
        case "cocoa": throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "/no/such/file"])
        case "nserror": throw NSError(domain: "Test", code: 7)
        default: throw arguments.usageError("unknown kind")
        }
    }
}
