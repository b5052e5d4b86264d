import Foundation
import Ferry
import FerryTestSupport
import Testing

/// A command line that does not let a typo pass (issue 22, item 7).
@Suite struct CLIGuardTests {
    func store(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.subpath("s")
        _ = try runFerry(["init", path])
        _ = try runFerry(["put", path, "Product", "42", "--json", #"{"name": "Lamp"}"#])
        return path
    }

    @Test(arguments: [
        ["get", "$S", "Prodcut", "42"], ["list", "$S", "Prodcut"], ["log", "$S", "--entity", "Prodcut"],
        ["delete", "$S", "Prodcut", "42"], ["export", "$S", "Prodcut"],
    ])
    func anEntityTheStoreNeverSawIsNamedWithASuggestion(arguments: [String]) throws {
        let directory = try TemporaryDirectory()
        let path = try store(directory)
        let result = try runFerry(arguments.map { $0 == "$S" ? path : $0 })
        #expect(result.exitCode == 1, "\(result)")
        #expect(result.stderr == "error: \(path) has no entity Prodcut; did you mean Product? (it has Product)\n", "\(result)")
        #expect(result.stdout.isEmpty)
    }

    @Test func anEntityWhoseRecordsWereAllDeletedIsStillKnownAndListsEmpty() throws {
        let directory = try TemporaryDirectory()
        let path = try store(directory)
        #expect(try runFerry(["delete", path, "Product", "42", "--json"]).stdout == #"{"deleted":"Product/42"}"# + "\n")
        let listed = try runFerry(["list", path, "Product"])
        #expect(listed == CLIResult(exitCode: 0, stdout: "", stderr: ""))
        let json = try runFerry(["list", path, "Product", "--json"])
        #expect(json == CLIResult(exitCode: 0, stdout: "", stderr: ""), "an empty JSON Lines output is no lines")
        let conflicts = try runFerry(["conflicts", path, "--json"])
        #expect(conflicts == CLIResult(exitCode: 0, stdout: "", stderr: ""), "JSON Lines: no conflicts, no lines")
    }

    @Test func verifySaysTwoForSomethingThatIsNotAStore() throws {
        let directory = try TemporaryDirectory()
        let missing = try runFerry(["verify", directory.subpath("nothing-here")])
        #expect(missing.exitCode == 2, "\(missing)")
        #expect(missing.stderr.contains("is not a Ferry store"))
        let empty = try runFerry(["verify", directory.path])
        #expect(empty.exitCode == 2, "\(empty)")
    }

    @Test func putWithATerminalOnStandardInputSaysWhatItExpects() throws {
        let directory = try TemporaryDirectory()
        let path = try store(directory)
        // script(1) gives ferry a terminal for its standard input.
        let ferry = try ferryBinaryPath()
        let result = try runProgram("/usr/bin/script", ["-qec", "\(ferry) put \(path) Note n1", "/dev/null"], timeout: 30)
        #expect(result.exitCode == 2, "\(result)")
        #expect(result.stdout.contains("no document given: pass it with --json TEXT or --file PATH, or pipe it in"), "\(result)")
    }
}
