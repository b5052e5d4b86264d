import Ferry
import FerryTestSupport
import Foundation
import Testing

/// `ferry log`, `show`, `diff` and `verify`, run as the built binary on stores made with the
/// library: a laptop and a server that synced once and then changed apart.
@Suite struct AuditCommandTests {
    let directory: TemporaryDirectory
    let clock = ManualClock(milliseconds: 1_763_740_800_000)  // 2025-11-21T16:00:00Z
    var laptop: String { directory.subpath("laptop") }
    var server: String { directory.subpath("server") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "ferry-audit-cli")
    }

    var options: StoreOptions {
        var options = StoreOptions()
        options.clock = clock
        options.warningHandler = { _ in }
        return options
    }

    /// laptop: lamp (16:00), chair (16:03); synced to server; server edits lamp (17:08);
    /// laptop adds rug (17:15) and deletes chair (17:17).
    func makeStores() async throws {
        let products = try EntityName("Product")
        let a = try Store.create(at: laptop, name: "laptop", options: options)
        let b = try Store.create(at: server, name: "server", options: options)
        try a.put(["name": "Desk lamp", "price": 12.5, "stock": ["count": 4, "warehouse": "Lyon"]], entity: products, id: RecordID("lamp"))
        clock.advance(by: 3 * 60_000)
        try a.put(["name": "Oak chair", "price": 89], entity: products, id: RecordID("chair"))
        clock.advance(by: 5 * 60_000)
        _ = try await a.sync(with: FolderTransport(path: server, options: options))
        clock.advance(by: 60 * 60_000)
        try b.put(["name": "Desk lamp", "price": 14, "stock": ["count": 4, "warehouse": "Paris"]], entity: products, id: RecordID("lamp"))
        clock.advance(by: 7 * 60_000)
        try a.put(["name": "Rug", "price": 45], entity: products, id: RecordID("rug"))
        clock.advance(by: 2 * 60_000)
        try a.delete(entity: products, id: RecordID("chair"))
        a.close()
        b.close()
    }

    func syncStores() async throws {
        let a = try Store.open(at: laptop, options: options)
        _ = try await a.sync(with: FolderTransport(path: server, options: options))
        a.close()
    }

    // MARK: log

    @Test func verifyAgainstProvesASnapshotJoin() async throws {
        try await makeStores()
        let joined = directory.subpath("joined")
        #expect(try runFerry(["init", joined]).exitCode == 0)
        let sync = try runFerry(["sync", joined, laptop])
        #expect(sync.exitCode == 0, "\(sync)")
        #expect(sync.stdout.contains("instead of its history"), "\(sync)")
        let verify = try runFerry(["verify", joined])
        #expect(verify.exitCode == 0, "\(verify)")
        #expect(verify.stdout.contains("note: joined from the state of the store at \(laptop) as of its journal entry 4"), "\(verify)")
        #expect(verify.stdout.contains("its state was signed by the store's key"), "\(verify)")
        let proven = try runFerry(["verify", joined, "--against", laptop])
        #expect(proven.exitCode == 0, "\(proven)")
        #expect(proven.stdout.contains("ok: the join from \(laptop) matches its journal up to entry 4"), "\(proven)")
        let json = try runFerry(["verify", joined, "--against", laptop, "--json"])
        #expect(json.stdout.contains("\"proven\":true"), "\(json)")
        // log and show --history say that the first entries are the joined state, not history.
        let log = try runFerry(["log", joined])
        #expect(log.stdout.contains("note: entries up to seq"), "\(log)")
        #expect(log.stdout.contains("'ferry log \(laptop)' shows it"), "\(log)")
        let show = try runFerry(["show", joined, "Product", "lamp", "--history"])
        #expect(show.stdout.contains("are the state joined from \(laptop)"), "\(show)")
        // A store it never joined from is a usage error that names it, not a pass.
        let other = try runFerry(["verify", joined, "--against", server])
        #expect(other.exitCode == 2, "\(other)")
        #expect(other.stderr.contains("never joined from a snapshot of"), "\(other)")
        // --history full copies the whole history instead.
        let full = directory.subpath("full")
        #expect(try runFerry(["init", full]).exitCode == 0)
        #expect(try runFerry(["sync", full, laptop, "--history", "full"]).exitCode == 0)
        #expect(try runFerry(["log", full]).stdout.split(separator: "\n").count == 4)
    }

    @Test func logIsNewestFirstWithFieldChanges() async throws {
        try await makeStores()
        let result = try runFerry(["log", laptop])
        #expect(result.exitCode == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == """
            4  2025-11-21T17:17:00Z  laptop    delete  Product/chair
            3  2025-11-21T17:15:00Z  laptop    put     Product/rug    new: name, price
            2  2025-11-21T16:03:00Z  laptop    put     Product/chair  new: name, price
            1  2025-11-21T16:00:00Z  laptop    put     Product/lamp   new: name, price, stock

            """)
        let serverLog = try runFerry(["log", server, "--limit", "1"])
        #expect(serverLog.stdout == "3  2025-11-21T17:08:00Z  server    put     Product/lamp  ~price ~stock.warehouse\n", "\(serverLog)")
    }

    @Test func logFilters() async throws {
        try await makeStores()
        func sequences(_ arguments: [String]) throws -> [String] {
            let result = try runFerry(["log", laptop] + arguments)
            #expect(result.exitCode == 0, "\(result)")
            return result.stdout.split(separator: "\n").map { String($0.split(separator: " ").first ?? "") }
        }
        #expect(try sequences(["--id", "chair"]) == ["4", "2"])
        #expect(try sequences(["--entity", "Product", "--id", "lamp"]) == ["1"])
        #expect(try sequences(["--op", "delete"]) == ["4"])
        #expect(try sequences(["--op", "put", "-n", "2"]) == ["3", "2"])
        #expect(try sequences(["--since", "2025-11-21T16:03", "--until", "2025-11-21T17:16"]) == ["3", "2"])
        #expect(try sequences(["--origin", "laptop"]) == ["4", "3", "2", "1"])
        // An entity the store never saw is a typo to report, not an empty log.
        let unknown = try runFerry(["log", laptop, "--entity", "Other"])
        #expect(unknown.exitCode == 1 && unknown.stderr.contains("has no entity Other"), "\(unknown)")
        let serverSide = try runFerry(["log", server, "--origin", "laptop", "--since", "2025-11-21T16:01:00Z"])
        #expect(serverSide.stdout.hasPrefix("2  2025-11-21T16:03:00Z  laptop"), "\(serverSide)")
    }

    @Test func logJSONLinesHaveEveryJournalField() async throws {
        try await makeStores()
        let result = try runFerry(["log", laptop, "--json"])
        #expect(result.exitCode == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        let first = try JSONParser.parse(String(lines[0]))
        for field in ["seq", "origin", "counter", "hlc", "op", "entity", "id", "vv", "pseq", "prev", "hash", "time", "originName"] {
            #expect(first[field] != nil, "missing \(field)")
        }
        #expect(first["op"] == "delete")
        #expect(first["doc"] == nil)
        #expect(first["originName"] == "laptop")
        #expect(try JSONParser.parse(String(lines[3]))["doc"]?["price"] == 12.5)
    }

    @Test func logUsageErrors() async throws {
        try await makeStores()
        for (arguments, message) in [
            (["--since", "yesterday"], "error: --since: invalid time 'yesterday'"),
            (["--op", "update"], "error: --op expects put or delete, got 'update'"),
            (["--origin", "phone"], "error: --origin: no replica 'phone'"),
            (["--limit", "0"], "error: --limit must be between"),
        ] {
            let result = try runFerry(["log", laptop] + arguments)
            #expect(result.exitCode == 2, "\(result)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix(message), "\(result)")
            #expect(result.stderr.hasSuffix("see 'ferry log --help'\n"))
        }
        let missing = try runFerry(["log", directory.subpath("nothing")])
        #expect(missing.exitCode == 1)
        #expect(missing.stderr.contains("is not a Ferry store"))
    }

    // MARK: show

    @Test func showCurrentDocumentAndHistory() async throws {
        try await makeStores()
        let current = try runFerry(["show", server, "Product", "lamp"])
        #expect(current.exitCode == 0)
        #expect(try JSONParser.parse(current.stdout) == ["name": "Desk lamp", "price": 14, "stock": ["count": 4, "warehouse": "Paris"]])
        let history = try runFerry(["show", server, "Product", "lamp", "--history"])
        #expect(history.exitCode == 0, "\(history)")
        #expect(history.stdout == """
            Product/lamp: 2 versions, live
            seq 1  2025-11-21T16:00:00Z  laptop  put
                + name: "Desk lamp"
                + price: 12.5
                + stock: {"count":4,"warehouse":"Lyon"}
            seq 3  2025-11-21T17:08:00Z  server  put
                ~ price: 12.5 → 14
                ~ stock.warehouse: "Lyon" → "Paris"

            """)
    }

    @Test func showDeletedRecord() async throws {
        try await makeStores()
        let current = try runFerry(["show", laptop, "Product", "chair"])
        #expect(current.exitCode == 1)
        #expect(current.stderr == "error: Product/chair was deleted by laptop at 2025-11-21T17:17:00Z (seq 4); see 'ferry show --history'\n")
        let history = try runFerry(["show", laptop, "Product", "chair", "--history", "--json"])
        #expect(history.exitCode == 0)
        let json = try JSONParser.parse(history.stdout)
        #expect(json["live"] == false)
        #expect(json["versions"]?.arrayValue?.map { $0["op"] } == ["put", "delete"])
        #expect(json["versions"]?.arrayValue?.last?["changes"]?.arrayValue?.map { $0["kind"] } == ["removed", "removed"])
        let unknown = try runFerry(["show", laptop, "Product", "nope", "--history"])
        #expect(unknown.exitCode == 1)
        #expect(unknown.stderr == "error: no record Product/nope in the journal\n")
    }

    // MARK: diff

    @Test func diffBeforeAndAfterSync() async throws {
        try await makeStores()
        let before = try runFerry(["diff", laptop, server])
        #expect(before.exitCode == 1, "\(before)")
        #expect(before.stdout == """
            only in laptop: 2 changes
              3  2025-11-21T17:15:00Z  laptop:3  put     Product/rug
              4  2025-11-21T17:17:00Z  laptop:4  delete  Product/chair
            only in server: 1 change
              3  2025-11-21T17:08:00Z  server:1  put     Product/lamp
            records that differ (laptop → server): 3
              Product/chair: deleted in laptop, live in server
                  + name: "Oak chair"
                  + price: 89
              Product/lamp
                  ~ price: 12.5 → 14
                  ~ stock.warehouse: "Lyon" → "Paris"
              Product/rug: live in laptop, absent in server
                  - name: "Rug"
                  - price: 45

            """)
        let json = try JSONParser.parse(try runFerry(["diff", laptop, server, "--json"]).stdout)
        #expect(json["identical"] == false)
        #expect(json["onlyInFirst"]?.arrayValue?.map { $0["seq"] } == [3, 4])
        #expect(json["records"]?.arrayValue?.map { $0["id"] } == ["chair", "lamp", "rug"])

        try await syncStores()
        let after = try runFerry(["diff", laptop, server, "--full"])
        #expect(after == CLIResult(
            exitCode: 0, stdout: "identical: laptop and server have the same changes and the same records and record files\n",
            stderr: ""))
    }

    @Test func diffFullSeesUncommittedFileEdits() async throws {
        try await makeStores()
        try await syncStores()
        try Data("{\"name\": \"edited by hand\"}\n".utf8).write(to: URL(fileURLWithPath: server + "/records/Product/rug.json"))
        #expect(try runFerry(["diff", laptop, server]).exitCode == 0)
        let full = try runFerry(["diff", laptop, server, "--full"])
        #expect(full.exitCode == 1)
        #expect(full.stdout == "record files that differ: 1\n  records/Product/rug.json: content differs\n")
    }

    @Test func diffOverATimeWindow() async throws {
        try await makeStores()
        let window = try runFerry(["diff", laptop, "--since", "2025-11-21T16:30"])
        #expect(window.exitCode == 1, "\(window)")
        #expect(window.stdout == """
            net changes from 2025-11-21T16:30:00Z to now: 2 records
              deleted  Product/chair
              created  Product/rug
                  + name: "Rug"
                  + price: 45

            """)
        let bounded = try runFerry(["diff", server, "--since", "2025-11-21T16:30", "--until", "2025-11-21T17:10", "--json"])
        let json = try JSONParser.parse(bounded.stdout)
        #expect(json["records"]?.arrayValue?.map { $0["change"] } == ["changed"])
        #expect(json["until"] == "2025-11-21T17:10:00.000Z")
        let quiet = try runFerry(["diff", laptop, "--since", "2025-11-21T18:00"])
        #expect(quiet == CLIResult(exitCode: 0, stdout: "no net changes from 2025-11-21T18:00:00Z to now\n", stderr: ""))
    }

    @Test func diffTroubleExitsTwo() async throws {
        try await makeStores()
        let missing = try runFerry(["diff", laptop, directory.subpath("nothing")])
        #expect(missing.exitCode == 2)
        #expect(missing.stderr.hasPrefix("error: "))
        #expect(missing.stderr.contains("is not a Ferry store"))
        for arguments in [["diff", laptop], ["diff", laptop, server, "--since", "1h"], ["diff", laptop, "--since", "soon"]] {
            let result = try runFerry(arguments)
            #expect(result.exitCode == 2, "\(result)")
            #expect(result.stderr.hasSuffix("see 'ferry diff --help'\n"), "\(result)")
        }
    }

    // MARK: verify

    @Test func verifyCleanAndTampered() async throws {
        try await makeStores()
        let clean = try runFerry(["verify", laptop])
        #expect(clean.exitCode == 0, "\(clean)")
        #expect(clean.stdout == "ok: 4 journal entries in 1 segment, 2 live records: hash chain intact, no gaps, index agrees, record files match the journal\n")

        let segment = laptop + "/journal/00000000000000000001.jsonl"
        var lines = try String(contentsOfFile: segment, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[1] = lines[1].replacingOccurrences(of: "Oak chair", with: "Elm chair")
        try (lines.joined(separator: "\n") + "\n").write(toFile: segment, atomically: false, encoding: .utf8)
        let tampered = try runFerry(["verify", laptop])
        #expect(tampered.exitCode == 1)
        #expect(tampered.stdout.hasPrefix(
            "journal/00000000000000000001.jsonl:2: tampering: edited: the line's content does not match its hash (seq 2)\n"), "\(tampered)")
        let json = try JSONParser.parse(try runFerry(["verify", laptop, "--json"]).stdout)
        #expect(json["clean"] == false)
        #expect(json["findings"]?.arrayValue?.first?["line"] == 2)
        #expect(json["findings"]?.arrayValue?.first?["kind"] == "edited-line")
    }

    @Test func verifyReportsHandEditsAsUncommitted() async throws {
        try await makeStores()
        try Data("{\"name\": \"Rug\", \"price\": 50}\n".utf8).write(to: URL(fileURLWithPath: laptop + "/records/Product/rug.json"))
        let result = try runFerry(["verify", laptop])
        #expect(result.exitCode == 1)
        #expect(result.stdout.hasPrefix(
            "records/Product/rug.json: uncommitted edit (run ferry commit): modified: the file differs from the journal's version of Product/rug (seq 3); a hand edit, not committed\n"), "\(result)")
        #expect(result.stdout.contains("1 finding (1 uncommitted edit)"))
        let missing = try runFerry(["verify", directory.subpath("nothing")])
        #expect(missing.exitCode == 2)
        #expect(missing.stderr.contains("is not a Ferry store"))
    }
}
