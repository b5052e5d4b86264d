/// How `ferry` ends, as the status its process exits with.
///
/// ```swift
/// static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
///     context.stdout.line("done")
///     return .success
/// }
/// ```
///
/// Commands that compare things, such as `ferry diff`, follow diff(1): ``success`` (0) when
/// there are no differences, ``failure`` (1) when differences were found, and ``usage`` (2) for a
/// mistake on the command line; an error while comparing is also reported with 1, after an
/// `error:` line on standard error.
struct ExitCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The process exit status.
    let rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    /// 0: the command did what was asked.
    static let success = ExitCode(rawValue: 0)
    /// 1: an error was reported, or (for diff-like commands) differences were found.
    static let failure = ExitCode(rawValue: 1)
    /// 2: the command line was wrong; nothing was done.
    static let usage = ExitCode(rawValue: 2)

    var description: String { String(rawValue) }
}
