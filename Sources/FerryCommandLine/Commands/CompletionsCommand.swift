import Foundation

/// `ferry completions bash|zsh|fish`: prints a completion script made from the command table.
enum CompletionsCommand: Command {
    static let spec = CommandSpec(
        name: "completions",
        abstract: "Print a shell completion script for bash, zsh or fish.",
        discussion: """
            The script completes the command names, and each command's options, from the same table as \
            'ferry --help', so it is never behind the tool that made it.
            """,
        arguments: [.required("shell", help: "bash, zsh or fish.")],
        examples: ["ferry completions bash > ~/.local/share/bash-completion/completions/ferry", "ferry completions fish > ~/.config/fish/completions/ferry.fish"])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let name = try arguments.requiredPositional("shell")
        guard let shell = CompletionScript.Shell(rawValue: name) else {
            throw UsageError("no completions for the shell '\(name)': use bash, zsh or fish")
        }
        context.stdout.write(CompletionScript(commands: FerryCommand.all.map { $0.spec }).text(for: shell))
        return .success
    }
}
