import Ferry
import Foundation

/// Python with the `cryptography` package (installed by scripts/install-test-tools.sh into
/// `.build/test-tools/venv`), which the crypto tests cross-check Ferry's own primitives against.
/// A test tool, never a dependency of Ferry.
public enum PythonCryptography {
    /// The venv's python when it can import `cryptography`; `nil` when there is none.
    public static var interpreter: String? {
        let candidates = [
            ProcessInfo.processInfo.environment["FERRY_PYTHON"] ?? "",
            SeaweedFS.packageRoot + "/.build/test-tools/venv/bin/python",
        ]
        return candidates.first { !$0.isEmpty && access($0, X_OK) == 0 && (try? run(["-c", "import cryptography"], with: $0)) != nil }
    }

    private static let skipNotice = SkipNotice()

    /// The interpreter, or `nil` after printing, once per process, the line that says how to
    /// enable the cross-checks. With `FERRY_REQUIRE_PYTHON_CRYPTOGRAPHY=1` (as `.ci/run` sets)
    /// a missing package is an error instead.
    public static func availableOrSkip() throws -> String? {
        if let interpreter { return interpreter }
        if ProcessInfo.processInfo.environment["FERRY_REQUIRE_PYTHON_CRYPTOGRAPHY"] == "1" {
            throw SeaweedFSError(
                message: "FERRY_REQUIRE_PYTHON_CRYPTOGRAPHY=1 but Python's cryptography was not found; run scripts/install-test-tools.sh")
        }
        skipNotice.printOnce(
            "crypto cross-checks skipped: Python's cryptography not found; run scripts/install-test-tools.sh to enable them")
        return nil
    }

    /// Runs `python script` with `input` on its standard input; returns its standard output.
    /// Throws when it exits non-zero, with its standard error.
    public static func run(script: String, input: String, with interpreter: String) throws -> String {
        try run(["-c", script], input: input, with: interpreter)
    }

    private static func run(_ arguments: [String], input: String = "", with interpreter: String) throws -> String {
        let directory = try TemporaryDirectory(prefix: "python")
        let inputPath = directory.path + "/input", outputPath = directory.path + "/output", errorPath = directory.path + "/error"
        try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath))
        try Data().write(to: URL(fileURLWithPath: outputPath))
        try Data().write(to: URL(fileURLWithPath: errorPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: interpreter)
        process.arguments = arguments
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        try process.run()
        process.waitUntilExit()
        let output = try String(contentsOfFile: outputPath, encoding: .utf8)
        guard process.terminationStatus == 0 else {
            let error = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
            throw SeaweedFSError(message: "python exited \(process.terminationStatus): \(error)")
        }
        return output
    }
}
