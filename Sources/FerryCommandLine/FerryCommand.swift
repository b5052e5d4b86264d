import Ferry

/// The `ferry` program: picks the command named by the first argument, parses the rest, runs it,
/// and turns the outcome into an exit status. It also answers `ferry`, `ferry --help`, `-h`,
/// `ferry help <command>`, `ferry <command> --help` and `ferry --version`.
///
/// ```swift
/// let status = await FerryCommand.main(["put", "Users", "42", "user.json"], context: context)
/// ```
enum FerryCommand {
    /// Every command, in the order `ferry --help` lists them.
    ///
    /// To add a command, write `Sources/FerryCLI/Commands/<Name>Command.swift` conforming to
    /// ``Command`` and list its type here.
    static var all: [any Command.Type] {
        [
            InitCommand.self,
            PutCommand.self,
            GetCommand.self,
            DeleteCommand.self,
            ListCommand.self,
            StatusCommand.self,
            CommitCommand.self,
            ReidentifyCommand.self,
            CompactCommand.self,
            SyncCommand.self,
            RemoteCommand.self,
            WatchCommand.self,
            HubCommand.self,
            BackendCommand.self,
            ServeCommand.self,
            ConflictsCommand.self,
            ResolveCommand.self,
            LogCommand.self,
            ShowCommand.self,
            DiffCommand.self,
            VerifyCommand.self,
            ImportCommand.self,
            ExportCommand.self,
            DemoCommand.self,
            CompletionsCommand.self,
        ]
    }

    /// What Ferry is, at the top of `ferry --help`.
    static let abstract = "Ferry keeps JSON records in sync between offline replicas."

    /// Runs `ferry` with `arguments` (without the program name) and returns the exit status.
    /// Output and errors go to `context`; nothing here exits the process.
    ///
    /// - Parameters:
    ///   - arguments: The command line after `ferry`.
    ///   - context: The standard streams, environment and working directory.
    ///   - commands: The commands to choose from; tests pass their own.
    static func main(
        _ arguments: [String], context: CommandContext, commands: [any Command.Type] = all
    ) async -> ExitCode {
        var context = context
        do {
            let (verbosity, rest) = try Verbosity.take(from: arguments)
            context.verbosity = verbosity
            return try await dispatch(rest, context: context, commands: commands)
        } catch {
            return ErrorReporter(context: context).report(error)
        }
    }

    /// Answers the built-in requests or runs a command; every error is left to the caller's
    /// single ``ErrorReporter``.
    private static func dispatch(
        _ arguments: [String], context: CommandContext, commands: [any Command.Type]
    ) async throws -> ExitCode {
        let formatter = HelpFormatter()
        // A closure, not `\.spec`: a key path to a static requirement through `any Command.Type`
        // crashes the Swift 6.3 compiler (SILGen).
        let overview = formatter.overview(abstract: abstract, commands: commands.map { $0.spec })

        // Nothing to do is a mistake: the overview goes where errors go, with a failure.
        guard let first = arguments.first else {
            context.stderr.write(overview)
            return .failure
        }
        switch first {
        case "--help", "-h":
            context.stdout.write(overview)
            return .success
        case "--version":
            context.stdout.line("\(CommandSpec.programName) \(FerryVersion.current)")
            return .success
        case "help":
            let rest = arguments.dropFirst()
            guard let name = rest.first, name != "--help", name != "-h" else {
                context.stdout.write(overview)
                return .success
            }
            guard rest.count == 1 else {
                throw UsageError("'\(CommandSpec.programName) help' takes one command name, got \(rest.count)")
            }
            context.stdout.write(formatter.help(for: try command(named: name, in: commands).spec))
            return .success
        case _ where ArgumentParser.isOptionLike(first):
            let suggestion = NameSuggestion.closest(to: first, among: ["--help", "--version", "--quiet", "--verbose"])
            throw UsageError("unknown option '\(first)' for '\(CommandSpec.programName)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""))
        default:
            break
        }

        let command = try command(named: first, in: commands)
        let parsed = try ArgumentParser.parse(Array(arguments.dropFirst()), spec: command.spec)
        if parsed.isHelpRequested {
            context.stdout.write(formatter.help(for: command.spec))
            return .success
        }
        do {
            return try await command.run(parsed, context: context)
        } catch let error as UsageError {
            throw error.naming(command.spec.name)
        }
    }

    /// The command called `name`.
    ///
    /// - Throws: ``UsageError`` naming the known commands.
    private static func command(named name: String, in commands: [any Command.Type]) throws(UsageError) -> any Command.Type {
        if let command = commands.first(where: { $0.spec.name == name }) { return command }
        let names = commands.map { $0.spec.name }
        var message = "unknown command '\(name)'"
        if let suggestion = NameSuggestion.closest(to: name, among: names) { message += "; did you mean '\(suggestion)'?" }
        if !names.isEmpty { message += "; the commands are: " + names.joined(separator: ", ") }
        throw UsageError(message)
    }
}
