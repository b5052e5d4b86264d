import Ferry
import Foundation
import FerryTestSupport
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A put that fails for lack of space lands whole or leaves no trace: the record is live
/// exactly when it is journaled, exactly when the put exited 0 (issue 55, item 5). The lack
/// of space is real: the put runs under a file size limit (`ulimit -f`), so a write past it
/// fails with EFBIG, or, with SIGXFSZ at its default, kills the writer mid-write.
@Suite struct DiskFullTests {
    /// A document whose record file (pretty-printed) is far larger than its journal line
    /// (compact), so a limit between the two lets the journal append pass and stops the file.
    static let document = JSONValue.object(["items": .array(Array(repeating: .object(["a": .integer(1)]), count: 400_000))])

    func ferry(_ arguments: [String], in directory: TemporaryDirectory) throws -> CLIResult {
        try runFerry(arguments, currentDirectory: directory.path)
    }

    /// Runs `ferry put` under a file size limit of `kilobytes`; `killed` leaves SIGXFSZ at its
    /// default, so the first write past the limit kills the process.
    func limitedPut(_ store: String, kilobytes: Int, killed: Bool, in directory: TemporaryDirectory) throws -> Int32 {
        let scratch = try TemporaryDirectory(prefix: "limited-put")
        // `ulimit -f` counts 512-byte blocks in some shells (dash) and 1024-byte ones in
        // others (bash): 2 × `kilobytes` is `kilobytes` KB in the one, twice that in the other.
        let run = """
            \(killed ? "" : "trap '' XFSZ; ")ulimit -f \(kilobytes * 2) 2>/dev/null; exec "$0" put "$1" Note big --file "$2"
            """
        try Data(Self.document.prettyBytes()).write(to: URL(fileURLWithPath: scratch.subpath("big.json")))
        let child = try ChildProcess(
            "/bin/sh", ["-c", run, try ferryBinaryPath(), directory.subpath(store), scratch.subpath("big.json")],
            outputDirectory: scratch.path, defaultSignals: killed ? [SIGXFSZ] : [])
        guard let code = child.wait(timeout: 120) else {
            child.kill()
            child.wait()
            throw CLIRunnerError.timedOut(command: ["put"], seconds: 120)
        }
        return code
    }

    @Test(arguments: [false, true]) func aPutPastTheSpaceLeftLandsWholeOrLeavesNoTrace(killed: Bool) throws {
        let directory = try TemporaryDirectory()
        #expect(try ferry(["init", "a", "--name", "a"], in: directory).exitCode == 0)
        #expect(try ferry(["put", "a", "Note", "1", "--json", #"{"t": 1}"#], in: directory).exitCode == 0)
        let compact = Self.document.canonicalBytes().count
        let pretty = Self.document.prettyBytes().count
        // Room for the journal line, not for the record file, in either unit `ulimit -f` uses.
        let kilobytes = (compact + 64 << 10) / 1024
        #expect(2 * kilobytes * 1024 < pretty)

        let code = try limitedPut("a", kilobytes: kilobytes, killed: killed, in: directory)
        #expect(code != 0, "the put cannot have written its file")
        // Killed by SIGXFSZ mid-write, or (the Swift runtime of `ferry` ignores SIGXFSZ) failed
        // with EFBIG: the store must be consistent either way.
        #expect(code == 1 || (killed && code == 128 + SIGXFSZ), "\(code)")

        // list and status work; the record is live exactly when journaled.
        let list = try ferry(["list", "a", "Note"], in: directory)
        #expect(list.exitCode == 0, "\(list)")
        let log = try ferry(["log", "a"], in: directory)
        let journaled = log.stdout.contains("Note/big")
        let live = list.stdout.split(separator: "\n").contains("big")
        #expect(live == journaled, "live \(live), journaled \(journaled): \(list) \(log)")
        if !killed { #expect(!live, "a put that exited non-zero left no trace") }
        let status = try ferry(["status", "a"], in: directory)
        #expect(status.exitCode == 0 && !status.stdout.contains("deleted"), "\(status)")
        let verify = try ferry(["verify", "a"], in: directory)
        #expect(verify.exitCode == 0, "\(verify)")
        if live {
            let file = try Data(contentsOf: URL(fileURLWithPath: directory.subpath("a/records/Note/big.json")))
            #expect(file.count == pretty, "the record file is whole")
        } else {
            #expect(!FileManager.default.fileExists(atPath: directory.subpath("a/records/Note/big.json")))
        }
        // With space again, the put goes through.
        let again = try ferry(["put", "a", "Note", "2", "--json", #"{"t": 2}"#], in: directory)
        #expect(again.exitCode == 0, "\(again)")
    }

    @Test func verifyAdvisesRestoringAMissingFileNotCommittingItsLoss() throws {
        let directory = try TemporaryDirectory()
        #expect(try ferry(["init", "a", "--name", "a"], in: directory).exitCode == 0)
        #expect(try ferry(["put", "a", "Note", "1", "--json", #"{"t": 1}"#], in: directory).exitCode == 0)
        try FileManager.default.removeItem(atPath: directory.subpath("a/records/Note/1.json"))
        let verify = try ferry(["verify", "a"], in: directory)
        #expect(verify.exitCode != 0, "\(verify)")
        #expect(!verify.stdout.contains("run ferry commit"), "\(verify)")
        #expect(verify.stdout.contains("missing record file"), "\(verify)")
        let restore = "ferry get \(directory.subpath("a")) Note 1 > \(directory.subpath("a"))/records/Note/1.json"
        #expect(verify.stdout.contains(restore), "\(verify)")
        // The advice works: the file comes back as Ferry wrote it, and nothing is left to commit.
        let get = try ferry(["get", "a", "Note", "1"], in: directory)
        try Data(get.stdout.utf8).write(to: URL(fileURLWithPath: directory.subpath("a/records/Note/1.json")))
        #expect(try ferry(["verify", "a"], in: directory).exitCode == 0)
        #expect(try ferry(["status", "a"], in: directory).stdout.contains("nothing to commit"))
    }
}
