import Ferry

/// Everything a command may use of its process, passed in rather than reached as globals, so a
/// test can run a command against buffers and a made-up environment.
///
/// `main.swift` builds the real one from descriptors 0, 1 and 2.
///
/// ```swift
/// let store = arguments.option("store") ?? context.environment["FERRY_STORE"] ?? "."
/// context.stdout.line("stored \(key)")
/// if context.stderrIsTerminal { context.stderr.write("\r\(done)/\(total)") }
/// ```
struct CommandContext: Sendable {
    /// Results: what a script would read or pipe on.
    var stdout: OutputWriter
    /// Errors, warnings and progress.
    var stderr: OutputWriter
    /// Standard input, for `-` arguments.
    var stdin: InputReader
    /// The environment variables.
    var environment: [String: String]
    /// The working directory, against which relative paths resolve.
    var currentDirectory: String
    /// Whether standard output is a terminal (`isatty`), rather than a pipe or file.
    var stdoutIsTerminal: Bool
    /// Whether standard error is a terminal (`isatty`): progress and colors only then.
    var stderrIsTerminal: Bool
    /// Whether standard input is a terminal: a command reading a document from it would wait for typing.
    var stdinIsTerminal: Bool = false
    /// What syncs with `http(s)://` peers send their requests through; `nil` in `ferry`, which
    /// links no HTTP stack and hands such syncs to ``handOffRemoteSync``.
    var httpClient: (any HTTPClient)?
    /// Replaces this process with one that has an HTTP client, running the same command line.
    /// `-q` or `-v`: whether progress lines and notes are drawn, and detail added.
    var verbosity = Verbosity.normal
    var handOffRemoteSync: (@Sendable () throws(CLIError) -> Never)?

    init(
        stdout: OutputWriter, stderr: OutputWriter, stdin: InputReader = .empty,
        environment: [String: String] = [:], currentDirectory: String = ".",
        stdoutIsTerminal: Bool = false, stderrIsTerminal: Bool = false
    ) {
        self.stdout = stdout
        self.stderr = stderr
        self.stdin = stdin
        self.environment = environment
        self.currentDirectory = currentDirectory
        self.stdoutIsTerminal = stdoutIsTerminal
        self.stderrIsTerminal = stderrIsTerminal
    }

    /// Whether to color standard error: it is a terminal, `NO_COLOR` is unset or empty, and
    /// `TERM` is not `dumb`.
    var usesColorOnStandardError: Bool {
        stderrIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// Says a note on standard error (`note: …`), unless `-q`.
    func note(_ text: String) {
        if verbosity != .quiet { stderr.line("note: \(text)") }
    }

    /// Says a detail on standard error, only with `-v`.
    func detail(_ text: String) {
        if verbosity == .verbose { stderr.line(text) }
    }
}
