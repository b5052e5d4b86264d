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
        // A token on the command line would sit in the helper's argv, which any local user
        // reads in `ps` for as long as the sync runs: it travels in the environment instead.
        let (remaining, token) = argumentsWithoutToken(arguments)
        if let token { setenv("FERRY_TOKEN", token, 1) }
        var argv = remaining
        if argv.isEmpty { argv = [path] } else { argv[0] = path }
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        execv(path, cArguments)
        throw CLIError("cannot run \(path): \(String(cString: strerror(errno)))")
    }

    /// `arguments` without `--token VALUE` (or `--token=VALUE`), and the token they gave (the
    /// last one, as the argument parser reads it). Arguments after `--` are left as they are.
    static func argumentsWithoutToken(_ arguments: [String]) -> (arguments: [String], token: String?) {
        var kept: [String] = []
        var token: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                kept += arguments[index...]
                break
            }
            if argument == "--token", index + 1 < arguments.count {
                token = arguments[index + 1]
                index += 2
                continue
            }
            if argument.hasPrefix("--token=") {
                token = String(argument.dropFirst("--token=".count))
                index += 1
                continue
            }
            kept.append(argument)
            index += 1
        }
        return (kept, token)
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
