import Ferry
import FerryTestSupport
import Foundation
import Testing

/// `ferry import` and `ferry export`, run as the built binary (issue 6, items 1, 8, 9, 10, 12).
@Suite struct ImportCommandTests {
    /// A store with SampleData's schema, made with the library (`ferry init` is another branch's).
    static func sampleStore(_ directory: TemporaryDirectory) throws -> String {
        let store = try makeImportStore(in: directory, schema: try SampleFiles.text("schema.json"))
        store.close()
        return store.path
    }

    @Test func importPrintsOneSummaryLinePerEntity() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        let result = try runFerry(["import", store, "User", SampleFiles.path("users.json")])
        #expect(result.exitCode == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        #expect(
            result.stdout == """
                User: 40 inserted, 0 updated, 0 deleted, 0 unchanged, 0 skipped
                Company: 6 inserted, 0 updated, 0 deleted, 0 unchanged, 0 skipped
                Note: 73 inserted, 0 updated, 0 deleted, 0 unchanged, 0 skipped

                """, "\(result)")
    }

    @Test func dryRunThenRealImportOfTheUpdate() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        _ = try runFerry(["import", store, "User", SampleFiles.path("users.json")])
        let dry = try runFerry(["import", store, "User", SampleFiles.path("users-update.json"), "--dry-run"])
        #expect(dry.exitCode == 0, "\(dry)")
        #expect(dry.stdout.hasPrefix("dry run: nothing written\n"))
        #expect(dry.stdout.contains("~ User/19 (updatedAt, userDescription)\n"))
        #expect(dry.stdout.contains("+ User/41\n") && dry.stdout.contains("- User/3\n"))
        #expect(dry.stdout.contains("User: 4 inserted, 10 updated, 4 deleted, 26 unchanged, 0 skipped\n"))
        let real = try runFerry(["import", store, "User", SampleFiles.path("users-update.json"), "--json"])
        #expect(real.exitCode == 0, "\(real)")
        let report = try JSONParser.parse(real.stdout)
        #expect(report["inserted"] == 4 && report["updated"] == 10 && report["deleted"] == 4 && report["unchanged"] == 26)
        #expect(report["dryRun"] == false && report["skippedItems"] == [])
        let again = try runFerry(["import", store, "User", SampleFiles.path("users-update.json"), "--json"])
        #expect(try JSONParser.parse(again.stdout)["journalEntries"] == 0)
    }

    @Test func importReadsStandardInputAndRefusesAnItemWithoutID() throws {
        let directory = try TemporaryDirectory()
        let store = directory.subpath("plain")
        _ = try runFerry(["init", store])
        let ok = try runFerry(["import", store, "Tag", "-", "--json"], stdin: #"[{"id": "a"}, {"id": "b"}]"#)
        #expect(ok.exitCode == 0, "\(ok)")
        #expect(try JSONParser.parse(ok.stdout)["inserted"] == 2)
        let refused = try runFerry(["import", store, "Tag", "-"], stdin: #"[{"id": "a"}, {"label": "no id", "tag_id": 4}, {"id": "c"}]"#)
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(refused.stderr == "error: item [1]: no primary key \"id\"; is the id in \"tag_id\"? name it in schema.json (entities.<Entity>.primaryKey)\n")
        #expect(try runFerry(["list", store, "Tag"]).stdout == "a\nb\n")
    }

    @Test func onePageOfAListIsNotTakenForTheWholeList() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        _ = try runFerry(["import", store, "User", SampleFiles.path("users.json")])
        let users = try JSONParser.parse(try FileSystem.readFile(SampleFiles.path("users.json")))
        let page = JSONValue.array(Array((users.arrayValue ?? []).prefix(2))).canonicalText
        let before = try runFerry(["log", store, "--json"]).stdout
        let refused = try runFerry(["import", store, "User", "-"], stdin: page)
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(refused.stderr.contains("would delete 38 of 40 User records"), "\(refused)")
        #expect(refused.stderr.contains("--force") && refused.stderr.contains("--only insert,update"), "\(refused)")
        #expect(try runFerry(["log", store, "--json"]).stdout == before, "nothing was written")
        let dry = try runFerry(["import", store, "User", "-", "--dry-run"], stdin: page)
        #expect(dry.exitCode == 0, "\(dry)")
        #expect(dry.stdout.contains("would refuse: this import would delete 38 of 40 User records"), "\(dry)")
        let onlyUpserts = try runFerry(["import", store, "User", "-", "--only", "insert,update"], stdin: page)
        #expect(onlyUpserts.exitCode == 0, "\(onlyUpserts)")
        let forced = try runFerry(["import", store, "User", "-", "--force", "--json"], stdin: page)
        #expect(forced.exitCode == 0, "\(forced)")
        #expect(try JSONParser.parse(forced.stdout)["deleted"] == 38)
    }

    @Test func aWrappedArrayIsNamedAndReachedWithPath() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        let users = try JSONParser.parse(try FileSystem.readFile(SampleFiles.path("users.json")))
        let wrapped = JSONValue.object(["data": users, "page": 1]).canonicalText
        let refused = try runFerry(["import", store, "User", "-"], stdin: wrapped)
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(refused.stderr.contains("\"data\" holds an array of 40 objects; pass --path data"), "\(refused)")
        let imported = try runFerry(["import", store, "User", "-", "--path", "data", "--json"], stdin: wrapped)
        #expect(imported.exitCode == 0, "\(imported)")
        #expect(try JSONParser.parse(imported.stdout)["inserted"] == 40)
        let missing = try runFerry(["import", store, "User", "-", "--path", "items"], stdin: wrapped)
        #expect(missing.exitCode == 1 && missing.stderr.contains("no member \"items\""), "\(missing)")
    }

    @Test func anEntityTheSchemaDoesNotDeclareIsRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        let result = try runFerry(["import", store, "Usr", SampleFiles.path("users.json")])
        #expect(result.exitCode == 1, "\(result)")
        #expect(result.stderr.contains("schema.json declares no entity Usr; did you mean User?"), "\(result)")
    }

    @Test func parentScopeAndOnlyFromTheCommandLine() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        _ = try runFerry(["import", store, "User", SampleFiles.path("users.json")])
        let notes = try runFerry(["import", store, "Note", "-", "--parent", "User/1", "--json"], stdin: #"[{"id": 2, "text": "only this"}]"#)
        #expect(notes.exitCode == 0, "\(notes)")
        #expect(try JSONParser.parse(notes.stdout)["deleted"] == 1)
        let scoped = try runFerry(
            ["import", store, "User", "-", "--scope", #"userType = "admin""#, "--only", "delete", "--json"], stdin: "[]")
        #expect(scoped.exitCode == 0, "\(scoped)")
        let report = try JSONParser.parse(scoped.stdout)
        #expect((report["deleted"]?.integerValue ?? 0) > 0)
        let remaining = try runFerry(["export", store, "User", "--scope", #"userType = "admin""#])
        #expect(try JSONParser.parse(remaining.stdout) == [])
    }

    @Test func usageErrorsPointAtTheProblem() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        let scope = try runFerry(["import", store, "User", "-", "--scope", "firstName  12"], stdin: "[]")
        #expect(scope.exitCode == 2)
        #expect(scope.stderr.hasPrefix("error: scope: expected an operator at column 12 in 'firstName  12'\n"), "\(scope)")
        let only = try runFerry(["import", store, "User", "-", "--only", "upsert"], stdin: "[]")
        #expect(only.exitCode == 2 && only.stderr.contains("upsert"))
        let parent = try runFerry(["import", store, "Note", "-", "--parent", "User"], stdin: "[]")
        #expect(parent.exitCode == 2 && parent.stderr.contains("ENTITY/ID"))
        let keys = try runFerry(["export", store, "User", "--keys", "kebab"])
        #expect(keys.exitCode == 2)
    }

    @Test func invalidInputIsAnErrorWithLineAndColumnAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        let result = try runFerry(["import", store, "User", "-"], stdin: "[\n  {\"id\": 1},\n]")
        #expect(result.exitCode == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: invalid JSON at line 2, column 12: trailing comma is not allowed\n", "\(result)")
        let bad = try runFerry(["import", store, "User", "-"], stdin: #"[{"id": 1}, {"id": 2, "created_at": "soon"}]"#)
        #expect(bad.exitCode == 1)
        #expect(bad.stderr.hasPrefix(#"error: item [1] created_at: cannot store "soon" (a string) as date"#), "\(bad)")
        #expect(try Store.open(at: store).headSequence == 0)
    }

    @Test func exportPrintsSnakeCaseJSONAndOneRecordWithAnID() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.sampleStore(directory)
        _ = try runFerry(["import", store, "User", SampleFiles.path("users.json")])
        let all = try runFerry(["export", store, "User"])
        #expect(all.exitCode == 0, "\(all)")
        #expect(try JSONParser.parse(all.stdout).arrayValue?.count == 40)
        let one = try runFerry(["export", store, "User", "1", "--relationships", "nested"])
        let user = try JSONParser.parse(one.stdout)
        #expect(user["first_name"] == "Ana" && user["company_attributes"]?["name"] == "Atlas Cartography")
        let missing = try runFerry(["export", store, "User", "999"])
        #expect(missing.exitCode == 1 && missing.stderr == "error: no record User/999\n", "\(missing)")
    }
}
