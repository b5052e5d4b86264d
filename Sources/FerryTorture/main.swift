// ferry-torture: processes that crash tests SIGKILL at random moments.
//   ferry-torture writer <store> <seed> [--batch-max N]
//   ferry-torture syncer <storeA> <storeB> <seed>
//   ferry-torture hold <store>
import Ferry
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let usage = """
    usage: ferry-torture writer <store> <seed> [--batch-max N]
           ferry-torture syncer <storeA> <storeB> <seed>
           ferry-torture hold <store>
    """

func seed(_ text: String) throws(TortureError) -> UInt64 {
    guard let value = UInt64(text) else { throw .usage("seed must be an unsigned integer, not '\(text)'") }
    return value
}

/// Exits when the process that started this one is gone (its test was interrupted), so no
/// torture process outlives its test: they write forever until killed.
func exitWithParent() {
    let parent = getppid()
    let thread = Thread {
        while true {
            usleep(200_000)
            if getppid() != parent { _exit(3) }
        }
    }
    thread.start()
}
exitWithParent()

do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    switch (arguments.first, arguments.count) {
    case ("writer", 3):
        try TortureWriter(storePath: arguments[1], seed: try seed(arguments[2]), batchMaximum: 20).run()
    case ("writer", 5) where arguments[3] == "--batch-max":
        guard let maximum = Int(arguments[4]), maximum >= 1 else { throw TortureError.usage("--batch-max needs a positive integer") }
        try TortureWriter(storePath: arguments[1], seed: try seed(arguments[2]), batchMaximum: maximum).run()
    case ("syncer", 4):
        try await TortureSyncer(pathA: arguments[1], pathB: arguments[2], seed: try seed(arguments[3])).run()
    case ("hold", 2):
        try LockHolder(storePath: arguments[1]).run()
    default:
        throw TortureError.usage(usage)
    }
} catch let error as TortureError {
    try? FileDescriptor.standardError.writeAll(Array("ferry-torture: \(error)\n".utf8))
    exit(2)
} catch {
    try? FileDescriptor.standardError.writeAll(Array("ferry-torture: error: \(error)\n".utf8))
    exit(1)
}
