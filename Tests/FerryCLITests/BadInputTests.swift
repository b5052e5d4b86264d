import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

/// Bad input to every command: a one-line `error: …` on stderr naming the problem, a non-zero
/// exit (2 for usage errors), and the store left exactly as it was.
@Suite struct BadInputTests {
    /// Every file of the store that carries data (the lock file's pid and derived index files
    /// aside), with its bytes.
    func contents(_ path: String) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        func walk(_ relative: String) throws {
            let full = relative.isEmpty ? path : path + "/" + relative
            for entry in try FileSystem.contents(ofDirectory: full) {
                let child = relative.isEmpty ? entry.name : relative + "/" + entry.name
                if child.hasPrefix(".ferry") { continue }
                if entry.kind == .directory { try walk(child) } else { result[child] = try FileSystem.readFile(path + "/" + child) }
            }
        }
        try walk("")
        return result
    }

    func makeStore() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("store")
        let store = try Store.create(at: path)
        try store.put(["name": "Lamp"], entity: EntityName("Product"), id: RecordID("1"))
        store.close()
        return (directory, path)
    }

    static let cases: [(name: String, arguments: [String], stdin: String?, exit: Int32, message: String)] = [
        ("malformed JSON", ["put", "$S", "Product", "2", "--json", "{\"a\": 1,}"], nil, 1, "trailing comma"),
        ("not an object", ["put", "$S", "Product", "2", "--json", "[1, 2]"], nil, 1, "must be a JSON object"),
        ("stdin not JSON", ["put", "$S", "Product", "2"], "name: Lamp", 1, "invalid JSON"),
        ("NaN", ["put", "$S", "Product", "2", "--json", "{\"a\": NaN}"], nil, 1, "NaN"),
        ("too deep", ["put", "$S", "Product", "2", "--json", String(repeating: "[", count: 600) + String(repeating: "]", count: 600)], nil, 1, "deeper than"),
        ("bad entity", ["put", "$S", "Pro duct", "2", "--json", "{}"], nil, 2, "invalid entity name"),
        ("empty id", ["put", "$S", "Product", "", "--json", "{}"], nil, 2, "invalid record id"),
        ("unknown flag", ["put", "$S", "Product", "2", "--jsn", "{}"], nil, 2, "unknown option '--jsn'"),
        ("both inputs", ["put", "$S", "Product", "2", "--json", "{}", "--file", "x.json"], nil, 2, "not both"),
        ("missing file", ["put", "$S", "Product", "2", "--file", "/no/such/file.json"], nil, 1, "No such file"),
        ("get missing", ["get", "$S", "Product", "404"], nil, 1, "no record Product/404"),
        ("get bad entity", ["get", "$S", "9x", "1"], nil, 2, "must start with a letter"),
        ("delete missing", ["delete", "$S", "Product", "404"], nil, 1, "no record Product/404"),
        ("delete extra argument", ["delete", "$S", "Product", "1", "extra"], nil, 2, "extra"),
        ("list not a store", ["list", "/no/such/store"], nil, 1, "not a Ferry store"),
        ("status missing argument", ["status"], nil, 2, "<dir>"),
        ("commit unknown flag", ["commit", "$S", "--all"], nil, 2, "unknown option"),
        ("init existing", ["init", "$S"], nil, 1, "already exists"),
        ("sync itself", ["sync", "$S", "$S"], nil, 1, "this store itself"),
        ("sync missing peer", ["sync", "$S", "/no/such/peer"], nil, 1, "does not exist"),
        ("sync bad policy", ["sync", "$S", "/tmp", "--policy", "newest"], nil, 2, "--policy must be"),
        ("sync bad max-delete", ["sync", "$S", "/tmp", "--max-delete", "150"], nil, 2, "--max-delete"),
        // A peer argument is read by one rule (PeerAddress) for every command; a malformed one is
        // a usage error, before anything is opened or handed to ferry-remote.
        ("sync unknown scheme", ["sync", "$S", "ftp://host/a"], nil, 2, "not ftp:// locations"),
        ("sync bad bucket", ["sync", "$S", "s3://Not_A_Bucket/x"], nil, 2, "is not a bucket name"),
        ("sync bad backend", ["sync", "$S", "pocketbase+http://h/?q=1"], nil, 2, "has no query"),
        ("verify a served store", ["verify", "http://127.0.0.1:1/a"], nil, 2, "verify checks a store folder or a hub"),
        ("hub status of a backend", ["hub", "status", "pocketbase+http://127.0.0.1:1"], nil, 2, "a hub is a folder"),
        ("resolve without conflict", ["resolve", "$S", "Product", "1", "--take", "winner"], nil, 1, "no conflict"),
        ("resolve both options", ["resolve", "$S", "Product", "1", "--take", "winner", "--file", "x"], nil, 2, "exactly one"),
        ("conflicts not a store", ["conflicts", "/no/such/store"], nil, 1, "not a Ferry store"),
        ("unknown command", ["frobnicate"], nil, 2, "frobnicate"),
    ]

    @Test(arguments: cases.indices)
    func badInputIsRefusedCleanly(index: Int) throws {
        let testCase = Self.cases[index]
        let (directory, path) = try makeStore()
        _ = directory
        let before = try contents(path)
        let arguments = testCase.arguments.map { $0 == "$S" ? path : $0 }
        let result = try runFerry(arguments, stdin: testCase.stdin)
        let context = Comment(rawValue: "\(testCase.name): stderr \(result.stderr)")
        #expect(result.exitCode == testCase.exit, context)
        #expect(result.stderr.hasPrefix("error: "), context)
        #expect(result.stderr.contains(testCase.message), context)
        let errorLines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        #expect(errorLines.count == 1, context)
        #expect(result.stdout.isEmpty, context)
        #expect(try contents(path) == before, context)
    }

    /// A document as large (32 MiB) or as deep (512 levels) as a store takes is put from a
    /// file or standard input: the parser's defaults (16 MiB) refused a 20 MB one as invalid
    /// JSON. Past the store's limits, the error names the limit; past the 64 MiB a command
    /// reads, it says so without reading on, and the store is left as it was.
    @Test func documentsUpToTheStoresLimitsArePutAndLargerOnesRefused() throws {
        let (directory, path) = try makeStore()
        let large = #"{"text": ""# + String(repeating: "a", count: 20 << 20) + #""}"#
        let largeFile = directory.subpath("large.json")
        try FileSystem.writeFileAtomically(largeFile, Array(large.utf8), durable: false)
        #expect(try runFerry(["put", path, "Note", "large", "--file", largeFile]).exitCode == 0)
        let stored = try runFerry(["get", path, "Note", "large", "--compact"])
        #expect(stored.stdout.utf8.count == (20 << 20) + 12)
        #expect(try runFerry(["put", path, "Note", "large-stdin"], stdin: large).exitCode == 0)
        let deep = #"{"deep": "# + String(repeating: "[", count: 511) + "1" + String(repeating: "]", count: 511) + "}"
        let putDeep = try runFerry(["put", path, "Note", "deep"], stdin: deep)
        #expect(putDeep.exitCode == 0, "\(putDeep.stderr)")

        let before = try contents(path)
        let tooLarge = #"{"text": ""# + String(repeating: "a", count: 40 << 20) + #""}"#
        let refused = try runFerry(["put", path, "Note", "too-large"], stdin: tooLarge)
        #expect(refused.exitCode == 1 && refused.stderr.contains("the limit is 33554432"), "\(refused.stderr)")
        let tooDeep = #"{"deep": "# + String(repeating: "[", count: 512) + "1" + String(repeating: "]", count: 512) + "}"
        let refusedDeep = try runFerry(["put", path, "Note", "too-deep"], stdin: tooDeep)
        #expect(refusedDeep.exitCode == 1 && refusedDeep.stderr.contains("deeper than 512"), "\(refusedDeep.stderr)")
        let endless = try runFerry(["put", path, "Note", "endless"], stdin: String(repeating: " ", count: (64 << 20) + 1))
        #expect(endless.exitCode == 1 && endless.stderr.contains("standard input holds more than the 64 MiB"), "\(endless.stderr)")
        #expect(endless.stderr.split(separator: "\n").count == 1)
        #expect(try contents(path) == before)
    }

    @Test func helpAndVersionGoToStdoutWithExitZero() throws {
        for command in ["init", "put", "get", "delete", "list", "status", "commit", "sync", "conflicts", "resolve", "demo"] {
            let result = try runFerry([command, "--help"])
            #expect(result.exitCode == 0, "\(command)")
            #expect(result.stdout.contains("ferry \(command)"), "\(command)")
            #expect(result.stderr.isEmpty, "\(command)")
        }
        #expect(try runFerry(["--version"]).stdout.hasPrefix("ferry "))
    }

    @Test func storeCommandsWorkEndToEnd() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        #expect(try runFerry(["init", path, "--name", "laptop"]).exitCode == 0)
        let put = try runFerry(["put", path, "Product", "42", "--json", "{\"name\": \"Lamp\", \"price\": 12.5}"])
        #expect(put.exitCode == 0 && put.stdout == "42\n")
        let generated = try runFerry(["put", path, "Note"], stdin: "{\"text\": \"hi\"}")
        #expect(UUID(uuidString: generated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) != nil)
        #expect(try runFerry(["get", path, "Product", "42", "--compact"]).stdout == "{\"name\":\"Lamp\",\"price\":12.5}\n")
        #expect(try runFerry(["list", path]).stdout == "Note\t1\nProduct\t1\n")
        #expect(try runFerry(["list", path, "Product"]).stdout == "42\n")
        try FileSystem.writeFileAtomically(path + "/records/Product/7.json", Array("{\"name\": \"Desk\"}".utf8), durable: false)
        #expect(try runFerry(["status", path]).stdout.contains("created   records/Product/7.json"))
        #expect(try runFerry(["commit", path]).exitCode == 0)
        #expect(try runFerry(["status", path, "--json"]).stdout == "{\"edits\":[],\"problems\":[]}\n")
        #expect(try runFerry(["delete", path, "Product", "7"]).exitCode == 0)
        #expect(try runFerry(["get", path, "Product", "7"]).exitCode == 1)
        let other = directory.subpath("phone")
        #expect(try runFerry(["init", other]).exitCode == 0)
        let sync = try runFerry(["sync", other, path, "--json"])
        #expect(sync.exitCode == 0)
        let report = try JSONParser.parse(sync.stdout)
        #expect(report["plan"] == "full-pull")
        #expect(report["conflicts"] == 0)
        #expect(try runFerry(["sync", other, path]).stdout.hasPrefix("up-to-date"))
    }
}
