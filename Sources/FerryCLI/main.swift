// The composition root: build the process's context from its real descriptors and environment,
// run the command line, and exit with the status it produced.
import Ferry
import Foundation

let status = await FerryCommand.main(
    Array(CommandLine.arguments.dropFirst()),
    context: CommandContext(
        stdout: .fileDescriptor(.standardOutput),
        stderr: .fileDescriptor(.standardError),
        stdin: .fileDescriptor(.standardInput),
        environment: ProcessInfo.processInfo.environment,
        currentDirectory: FileManager.default.currentDirectoryPath,
        stdoutIsTerminal: FileDescriptor.standardOutput.isTerminal,
        stderrIsTerminal: FileDescriptor.standardError.isTerminal))
exit(status.rawValue)
