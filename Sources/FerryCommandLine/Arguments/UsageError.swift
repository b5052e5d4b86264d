/// A command line that does not fit the command's ``CommandSpec``: an unknown option, a missing
/// value or argument, a value of the wrong form.
///
/// ``ErrorReporter`` prints it as `error: <message>` and a hint naming the command's help, and
/// `ferry` exits with ``ExitCode/usage`` (2).
///
/// ```swift
/// throw UsageError("'--from' and '--to' cannot be used together")
/// ```
struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line saying what is wrong, without the `error:` prefix.
    var message: String
    /// The command whose help the hint points to (`put`); `nil` until the dispatcher fills it
    /// in, and for mistakes before a command is chosen.
    var commandName: String?

    /// Creates a usage error; the dispatcher fills in the command when `commandName` is nil.
    init(_ message: String, commandName: String? = nil) {
        self.message = message
        self.commandName = commandName
    }

    var description: String { message }

    /// `see 'ferry put --help'`: the line printed after the message.
    var hint: String {
        let command = [CommandSpec.programName, commandName].compactMap { $0 }.joined(separator: " ")
        return "see '\(command) --help'"
    }

    /// The same error, naming `command` unless it already names one.
    func naming(_ command: String) -> UsageError {
        var copy = self
        if copy.commandName == nil { copy.commandName = command }
        return copy
    }
}
