import Ferry
import FerryTestSupport
import Foundation
import Testing

/// `ferry compact`, and what `verify`, `log` and `show --history` say afterwards, run as the
/// built binary.
@Suite struct CompactCommandTests {
    let directory: TemporaryDirectory
    var store: String { directory.subpath("notes") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "ferry-compact-cli")
    }

    func makeStore() throws {
        let notes = try EntityName("Note")
        let a = try Store.create(at: store, name: "laptop")
        for index in 0..<5 { try a.put(["n": .integer(Int64(index))], entity: notes, id: RecordID("n\(index)")) }
        try a.put(["n": 10], entity: notes, id: RecordID("n1"))
        try a.delete(entity: notes, id: RecordID("n2"))
        a.close()
    }

    @Test func compactArchivesAndVerifyChecksOneChain() throws {
        try makeStore()
        let compact = try runFerry(["compact", store, "--keep", "0"])
        #expect(compact.exitCode == 0, "\(compact)")
        #expect(compact.stdout.contains("archived 1 segment (7 entries"), "\(compact)")
        #expect(compact.stdout.contains("journal/ starts at seq 8"), "\(compact)")
        #expect(FileSystem.exists(store + "/archive/manifest.json"))
        #expect(FileSystem.exists(store + "/archive/00000000000000000001.jsonl"))
        #expect(!FileSystem.exists(store + "/journal/00000000000000000001.jsonl"))

        let list = try runFerry(["list", store, "Note"])
        #expect(list.stdout == "n0\nn1\nn3\nn4\n", "\(list)")
        #expect(try runFerry(["get", store, "Note", "n1"]).stdout.contains("10"))

        let verify = try runFerry(["verify", store])
        #expect(verify.exitCode == 0, "\(verify)")
        #expect(verify.stdout.contains("archived in archive: checked with the live journal as one chain"), "\(verify)")

        // Again: nothing more to archive.
        let again = try runFerry(["compact", store, "--keep", "0", "--json"])
        #expect(again.exitCode == 0)
        #expect(again.stdout.contains("\"archivedSegments\":[]"), "\(again)")
    }

    @Test func aFlippedByteInTheArchiveIsNamedWithItsLine() throws {
        try makeStore()
        #expect(try runFerry(["compact", store, "--keep", "0"]).exitCode == 0)
        let segment = store + "/archive/00000000000000000001.jsonl"
        var text = String(decoding: try FileSystem.readFile(segment), as: UTF8.self)
        let range = try #require(text.range(of: "\"n\":3"))
        text.replaceSubrange(range, with: "\"n\":8")
        try FileSystem.writeFileAtomically(segment, Array(text.utf8), durable: false)
        let verify = try runFerry(["verify", store])
        #expect(verify.exitCode == 1, "\(verify)")
        #expect(verify.stdout.contains("archive/00000000000000000001.jsonl:4: tampering: edited"), "\(verify)")
    }

    @Test func aMovedArchiveIsSaidAndTheLiveJournalChecked() throws {
        try makeStore()
        #expect(try runFerry(["compact", store, "--keep", "0", "--archive-to", directory.subpath("cold")]).exitCode == 0)
        #expect(FileSystem.exists(directory.subpath("cold/manifest.json")))
        #expect(try runFerry(["put", store, "Note", "late", "--json", "{\"n\":1}"]).exitCode == 0)
        let log = try runFerry(["log", store])
        #expect(log.stdout.contains("history before seq 8 is archived in \(directory.subpath("cold"))"), "\(log)")
        let show = try runFerry(["show", store, "Note", "n1", "--history", "--json"])
        #expect(show.stdout.contains("\"archived\":{\"before\":8"), "\(show)")
        try FileSystem.rename(directory.subpath("cold"), to: directory.subpath("elsewhere"))
        let verify = try runFerry(["verify", store])
        #expect(verify.exitCode == 0, "\(verify)")
        #expect(verify.stdout.contains("which is not there: checked the live journal alone"), "\(verify)")
    }

    @Test func badInputIsAClearErrorAndChangesNothing() throws {
        try makeStore()
        let duration = try runFerry(["compact", store, "--keep", "ninety"])
        #expect(duration.exitCode == 2, "\(duration)")
        #expect(duration.stderr.contains("is not a duration"), "\(duration)")
        let missing = try runFerry(["compact", directory.subpath("nope"), "--keep", "0"])
        #expect(missing.exitCode != 0)
        #expect(missing.stderr.contains("is not a Ferry store"), "\(missing)")
        try FileSystem.writeFileAtomically(directory.subpath("file"), [1], durable: false)
        let unwritable = try runFerry(["compact", store, "--keep", "0", "--archive-to", directory.subpath("file/archive")])
        #expect(unwritable.exitCode != 0)
        #expect(unwritable.stderr.contains("cannot write the archive folder"), "\(unwritable)")
        #expect(unwritable.stderr.contains("the store is unchanged"), "\(unwritable)")
        #expect(FileSystem.exists(store + "/journal/00000000000000000001.jsonl"))
        #expect(try runFerry(["verify", store]).exitCode == 0)
    }
}
