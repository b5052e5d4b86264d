/// An error a command raises with a message of its own, for failures that are not the library's
/// (which throws its own typed errors) nor a command-line mistake (``UsageError``).
///
/// ```swift
/// guard FileSystem.isDirectory(path) else {
///     throw CLIError("no store at '\(path)'; create one with 'ferry init'")
/// }
/// ```
struct CLIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line saying what went wrong, without the `error:` prefix.
    var message: String
    /// The status `ferry` exits with; ``ExitCode/failure`` unless a command needs another.
    var exitCode: ExitCode

    init(_ message: String, exitCode: ExitCode = .failure) {
        self.message = message
        self.exitCode = exitCode
    }

    var description: String { message }
}
