import Foundation

/// The `ferry-torture` binary: `FERRY_TORTURE_BIN` when set, else the one beside the test
/// runner in the build folder (as ``ferryBinaryPath()`` finds `ferry`), else
/// `.build/debug/ferry-torture` under the working directory.
/// - Throws: ``CLIRunnerError/binaryNotFound(searched:)`` listing the places looked at.
public func tortureBinaryPath() throws -> String {
    if let explicit = ProcessInfo.processInfo.environment["FERRY_TORTURE_BIN"], !explicit.isEmpty {
        return explicit
    }
    var directories: [URL] = []
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
    directories.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug"))
    var searched: [String] = []
    for directory in directories {
        let path = directory.appendingPathComponent("ferry-torture").path
        if searched.contains(path) { continue }
        searched.append(path)
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    throw CLIRunnerError.binaryNotFound(searched: searched)
}
