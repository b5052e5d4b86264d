import Ferry
import Foundation

/// The composition root of the `ferry` and `ferry-remote` executables: builds the process's
/// context from its real descriptors and environment, runs the command line, and returns the
/// exit status it produced.
///
/// The two executables differ only in the HTTP client. `ferry` has none, so it does not load
/// FoundationNetworking and its dozens of libraries (half of a short command's run time);
/// the one command that needs a client, a sync with an `http(s)://` peer, hands the whole
/// command line over to `ferry-remote` beside it.
///
/// ```swift
/// // Sources/FerryCLI/main.swift
/// exit(await CommandLineProgram.run(httpClient: nil, remoteHelper: "ferry-remote"))
/// ```
public enum CommandLineProgram {
    /// Runs `CommandLine.arguments`.
    /// - Parameters:
    ///   - httpClient: what remote syncs use; `nil` hands them to `remoteHelper`.
    ///   - remoteHelper: the executable, beside this one, that has an HTTP client.
    /// - Returns: the exit status.
    public static func run(httpClient: (any HTTPClient)?, remoteHelper: String? = nil) async -> Int32 {
        ProcessMemory.limitAllocatorArenas()
        var context = CommandContext(
            stdout: .fileDescriptor(.standardOutput),
            stderr: .fileDescriptor(.standardError),
            stdin: .fileDescriptor(.standardInput),
            environment: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath,
            stdoutIsTerminal: FileDescriptor.standardOutput.isTerminal,
            stderrIsTerminal: FileDescriptor.standardError.isTerminal)
        if let problem = ArgumentBytes.firstInvalidUTF8() {
            context.stderr.line("error: \(problem)")
            return ExitCode.failure.rawValue
        }
        context.stdinIsTerminal = FileDescriptor.standardInput.isTerminal
        context.httpClient = httpClient
        if httpClient == nil, let remoteHelper {
            let arguments = CommandLine.arguments
            context.handOffRemoteSync = { () throws(CLIError) in try RemoteHelper.exec(remoteHelper, arguments: arguments) }
        }
        return await FerryCommand.main(Array(CommandLine.arguments.dropFirst()), context: context).rawValue
    }
}
