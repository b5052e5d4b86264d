import Ferry
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds and runs the sibling executable that can sync with remote peers (see
/// ``CommandLineProgram``).
enum RemoteHelper {
    /// Replaces this process with `name` from this executable's directory, with the same
    /// arguments, environment and descriptors. Returns only by throwing.
    static func exec(_ name: String, arguments: [String]) throws(CLIError) -> Never {
        let directory = executableDirectory()
        let path = directory + "/" + name
        guard access(path, X_OK) == 0 else {
            throw CLIError(
                "syncing with an http(s) peer needs \(name), which is not in \(directory): build it with 'swift build' (or 'swift build --product \(name)')")
        }
        var argv = arguments
        if argv.isEmpty { argv = [path] } else { argv[0] = path }
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        execv(path, cArguments)
        throw CLIError("cannot run \(path): \(String(cString: strerror(errno)))")
    }

    /// The directory of the running executable, links resolved.
    static func executableDirectory() -> String {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = readlink("/proc/self/exe", &buffer, 4096)
        if count > 0 {
            let path = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return FileSystem.parentPath(of: path)
        }
        #endif
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? ".")
        return FileSystem.parentPath(of: executable.resolvingSymlinksInPath().path)
    }
}
