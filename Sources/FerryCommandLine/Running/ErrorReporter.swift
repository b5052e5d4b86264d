import Foundation

/// The one place `ferry` prints errors: `error: <message>` on standard error, on one line, and
/// the exit status that goes with it.
///
/// - A ``UsageError`` adds a hint line, `see 'ferry put --help'`, and gives ``ExitCode/usage``.
/// - A ``CLIError`` gives its own exit code.
/// - Any other error gives ``ExitCode/failure``, printed through its description.
///
/// ```swift
/// do { return try await command.run(arguments, context: context) }
/// catch { return ErrorReporter(context: context).report(error) }
/// ```
struct ErrorReporter: Sendable {
    private let output: OutputWriter
    private let usesColor: Bool

    /// A reporter writing to `context.stderr`, in bold red when it is a terminal that wants color.
    init(context: CommandContext) {
        self.output = context.stderr
        self.usesColor = context.usesColorOnStandardError
    }

    /// Prints `error` and returns the status to exit with.
    @discardableResult
    func report(_ error: any Error) -> ExitCode {
        let prefix = usesColor ? "\u{1B}[1;31merror:\u{1B}[0m" : "error:"
        var text = "\(prefix) \(Self.message(for: error))\n"
        if let usage = error as? UsageError { text += usage.hint + "\n" }
        output.write(text)
        return Self.exitCode(for: error)
    }

    /// The status for `error`.
    static func exitCode(for error: any Error) -> ExitCode {
        switch error {
        case is UsageError: return .usage
        case let error as CLIError: return error.exitCode
        default: return .failure
        }
    }

    /// The one-line message for `error`: a localized description when the error provides one,
    /// else its `CustomStringConvertible` description. Foundation's errors, whose descriptions
    /// are dumps, give their localized description (and path); errors that have no description
    /// fall back to their type and value (`StoreError.locked`), never a module-qualified dump.
    static func message(for error: any Error) -> String {
        let text: String
        if let localized = error as? any LocalizedError, let description = localized.errorDescription {
            text = description
        } else if let cocoa = error as? CocoaError {
            text = cocoa.filePath.map { "\($0): \(cocoa.localizedDescription)" } ?? cocoa.localizedDescription
        } else if type(of: error) is NSError.Type {
            // The dynamic type, not a cast: on Apple platforms every error casts to NSError.
            text = error.localizedDescription
        } else if error is CancellationError {
            text = "cancelled"
        } else if let described = (error as Any) as? any CustomStringConvertible {
            // Cast through `Any`: on Linux the compiler assumes every `Error` is describable.
            text = described.description
        } else {
            let value = String(describing: error)
            let typeName = String(describing: type(of: error))
            text = value.hasPrefix(typeName) ? value : "\(typeName).\(value)"
        }
        return singleLine(text)
    }

    /// Joins the lines of `text` with spaces, so an error stays on one line.
    private static func singleLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
    }
}
