import Foundation
@testable import FerryCommandLine

/// An ``OutputWriter`` target that keeps what was written, for in-process command tests.
final class CapturedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []

    /// A writer appending to this buffer.
    var writer: OutputWriter {
        OutputWriter { [self] buffer in
            lock.lock()
            bytes += buffer
            lock.unlock()
        }
    }

    /// Everything written so far, as UTF-8 text.
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The outcome of ``runInProcess(_:commands:stdin:environment:stderrIsTerminal:)``.
struct InProcessResult {
    var exitCode: ExitCode
    var stdout: String
    var stderr: String
}

/// Runs the dispatcher as `main.swift` does, with captured output and the given commands.
func runInProcess(
    _ arguments: [String], commands: [any Command.Type] = TestCommands.all, stdin: String = "",
    environment: [String: String] = [:], stderrIsTerminal: Bool = false
) async -> InProcessResult {
    let stdout = CapturedOutput()
    let stderr = CapturedOutput()
    let context = CommandContext(
        stdout: stdout.writer, stderr: stderr.writer, stdin: .text(stdin), environment: environment,
        currentDirectory: "/", stderrIsTerminal: stderrIsTerminal)
    let code = await FerryCommand.main(arguments, context: context, commands: commands)
    return InProcessResult(exitCode: code, stdout: stdout.text, stderr: stderr.text)
}
