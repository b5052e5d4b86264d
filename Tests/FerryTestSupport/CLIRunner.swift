import Ferry
import Foundation

/// What one run of the `ferry` binary produced.
public struct CLIResult: Sendable, Equatable, CustomStringConvertible {
    /// The process's exit status (or, if a signal ended it, 128 plus the signal's number).
    public let exitCode: Int32
    /// Everything written to standard output, decoded as UTF-8.
    public let stdout: String
    /// Everything written to standard error, decoded as UTF-8.
    public let stderr: String

    public init(exitCode: Int32, stdout: String, stderr: String) {
        self.exitCode = exitCode
        self.stdout = stdout
        self.stderr = stderr
    }

    /// All three, for test failure messages.
    public var description: String {
        "exit \(exitCode)\n--- stdout\n\(stdout)--- stderr\n\(stderr)---"
    }
}

/// Why ``runFerry(_:stdin:environment:currentDirectory:timeout:)`` could not run the binary.
public enum CLIRunnerError: Error, Sendable, CustomStringConvertible {
    /// No `ferry` binary was found at any of the places looked at.
    case binaryNotFound(searched: [String])
    /// The process did not finish in time and was killed. `command` is the program's name
    /// followed by its arguments.
    /// `diagnosis` is what it was doing then (``ChildProcess/diagnosis()``), when known.
    case timedOut(command: [String], seconds: Double, diagnosis: String = "")

    public var description: String {
        switch self {
        case .binaryNotFound(let searched):
            return "no 'ferry' binary found; build it with 'swift build --product ferry' or set FERRY_BIN. "
                + "Looked at: " + searched.joined(separator: ", ")
        case .timedOut(let command, let seconds, let diagnosis):
            return "'\(command.joined(separator: " "))' did not finish within \(seconds) seconds"
                + (diagnosis.isEmpty ? "" : "; what it was doing:\n" + diagnosis)
        }
    }
}

/// Runs the built `ferry` binary and captures its exit status, standard output and standard error.
///
/// ```swift
/// let result = try runFerry(["put", "Users", "42", "-"], stdin: #"{"name":"Ada"}"#)
/// #expect(result.exitCode == 0)
/// #expect(result.stderr.isEmpty)
/// ```
///
/// Standard input is `stdin`'s UTF-8 (empty when `nil`, never the test's own input). Output goes
/// to temporary files rather than pipes, so a large output cannot deadlock the run.
///
/// - Parameters:
///   - arguments: The arguments after `ferry`.
///   - stdin: Text for standard input.
///   - environment: Variables to set. They are added to the test's environment, from which every
///     `FERRY_*` variable is first removed so the developer's settings cannot leak in.
///   - currentDirectory: The working directory; the test's own when `nil`.
///   - timeout: Seconds before the process is killed and ``CLIRunnerError/timedOut(command:seconds:)``
///     thrown.
/// - Returns: The exit status and both outputs.
/// - Throws: ``CLIRunnerError`` when the binary is missing or hangs; ``SystemError`` when the
///   process cannot be started.
public func runFerry(
    _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
    currentDirectory: String? = nil, timeout: Double = 60
) throws -> CLIResult {
    try runProgram(try ferryBinaryPath(), arguments, stdin: stdin, environment: environment, currentDirectory: currentDirectory, timeout: timeout)
}

/// Runs any program as ``runFerry(_:stdin:environment:currentDirectory:timeout:)`` runs `ferry`
/// (a shell, say, to hand `ferry` bytes that a Swift string cannot hold).
public func runProgram(
    _ binary: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
    currentDirectory: String? = nil, timeout: Double = 60
) throws -> CLIResult {
    let run = try runProgramForBytes(
        binary, arguments, stdin: stdin, environment: environment, currentDirectory: currentDirectory, timeout: timeout)
    return CLIResult(
        exitCode: run.exitCode, stdout: String(decoding: run.stdout, as: UTF8.self),
        stderr: String(decoding: run.stderr, as: UTF8.self))
}

/// Runs a program as ``runProgram(_:_:stdin:environment:currentDirectory:timeout:)`` does and
/// returns its outputs as bytes (a response body, say, that need not be text).
///
/// The child is started with `posix_spawn`, inherits none of the test process's descriptors
/// beyond its three standard ones, and its end is learned from `waitpid`. Foundation's `Process`
/// learns it from a socket closing instead, and any other child that inherited that socket (one
/// started by another test at the same moment) hid the end until it too exited: a `ferry --help`
/// once "did not finish" within 60 seconds that way.
public func runProgramForBytes(
    _ binary: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
    currentDirectory: String? = nil, timeout: Double = 60
) throws -> (exitCode: Int32, stdout: [UInt8], stderr: [UInt8]) {
    let scratch = try TemporaryDirectory(prefix: "ferry-run")
    let stdinPath = scratch.subpath("stdin")
    try FileSystem.writeFileAtomically(stdinPath, Array((stdin ?? "").utf8), durable: false)

    var variables = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FERRY_") }
    variables.merge(environment) { _, new in new }

    let child = try ChildProcess(
        binary, arguments, outputDirectory: scratch.path, standardInput: stdinPath, environment: variables,
        currentDirectory: currentDirectory)
    guard let exitCode = child.wait(timeout: timeout) else {
        let diagnosis = child.diagnosis()
        child.kill()
        child.wait()
        let errorOutput = child.errorOutput.suffix(2_000)
        throw CLIRunnerError.timedOut(
            command: [FileSystem.lastComponent(of: binary)] + arguments, seconds: timeout,
            diagnosis: diagnosis + (errorOutput.isEmpty ? "" : "\nits standard error so far:\n" + errorOutput))
    }
    return (exitCode, try FileSystem.readFile(child.stdoutPath), try FileSystem.readFile(child.stderrPath))
}

/// The `ferry` binary to test: `FERRY_BIN` when set, else the `ferry` beside the test bundle in
/// the build folder (`.build/<triple>/debug/`), else `.build/debug/ferry` under the working
/// directory.
///
/// - Throws: ``CLIRunnerError/binaryNotFound(searched:)`` listing the places looked at.
public func ferryBinaryPath() throws -> String {
    if let explicit = ProcessInfo.processInfo.environment["FERRY_BIN"], !explicit.isEmpty {
        guard FileManager.default.isExecutableFile(atPath: explicit) else {
            throw CLIRunnerError.binaryNotFound(searched: ["FERRY_BIN=\(explicit)"])
        }
        return explicit
    }
    var directories: [URL] = []
    // Linux: the test runner is `.build/<triple>/debug/FerryPackageTests.xctest`, an executable.
    // Apple platforms: it is a bundle, `.../debug/FerryPackageTests.xctest/Contents/MacOS/…`.
    let runner = URL(fileURLWithPath: CommandLine.arguments.first ?? "").standardizedFileURL.resolvingSymlinksInPath()
    for url in [runner] + Bundle.allBundles.map(\.bundleURL) {
        var candidate = url
        while candidate.path != "/", !candidate.path.isEmpty {
            if candidate.pathExtension == "xctest" {
                directories.append(candidate.deletingLastPathComponent())
                break
            }
            candidate.deleteLastPathComponent()
        }
    }
    directories.append(runner.deletingLastPathComponent())
    let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    directories.append(workingDirectory.appendingPathComponent(".build/debug"))

    var searched: [String] = []
    for directory in directories {
        let path = directory.appendingPathComponent("ferry").path
        if searched.contains(path) { continue }
        searched.append(path)
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    throw CLIRunnerError.binaryNotFound(searched: searched)
}
