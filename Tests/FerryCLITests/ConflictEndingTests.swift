import Foundation
import FerryTestSupport
import Testing

/// A conflict ends only when someone resolves it (issue 55, item 3): a `put`, a `delete` or a
/// committed hand edit of a conflicted record is refused ("resolve it first") and the conflict
/// stays on every replica; `resolve --take` takes only the record's own conflict files; a hand
/// merge typed into a conflict file outlives a resolution made elsewhere.
@Suite struct ConflictEndingTests {
    func ferry(_ arguments: [String], in directory: TemporaryDirectory) throws -> CLIResult {
        try runFerry(arguments, currentDirectory: directory.path)
    }

    /// Stores `a` and `b` with Note 1 and Note 2 each edited on both sides, synced: both
    /// records in conflict on both replicas.
    func conflictedPair(in directory: TemporaryDirectory) throws {
        for store in ["a", "b"] { #expect(try ferry(["init", store, "--name", store], in: directory).exitCode == 0) }
        for id in ["1", "2"] { #expect(try ferry(["put", "a", "Note", id, "--json", #"{"v": "base"}"#], in: directory).exitCode == 0) }
        #expect(try ferry(["sync", "a", "b"], in: directory).exitCode == 0)
        for store in ["a", "b"] {
            for id in ["1", "2"] {
                #expect(try ferry(["put", store, "Note", id, "--json", #"{"v": "\#(store)\#(id)"}"#], in: directory).exitCode == 0)
            }
        }
        #expect(try ferry(["sync", "a", "b"], in: directory).exitCode == 0)
        for store in ["a", "b"] { #expect(try conflicted(store, in: directory) == ["Note/1", "Note/2"]) }
    }

    /// The records `ferry conflicts` lists.
    func conflicted(_ store: String, in directory: TemporaryDirectory) throws -> [String] {
        try ferry(["conflicts", store], in: directory).stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") && $0 != "no conflicts" }.map(String.init)
    }

    /// The conflict files of record `id` in `store`, relative to the store.
    func conflictFiles(_ store: String, _ id: String, in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.subpath("\(store)/conflicts/Note"))
            .filter { $0.hasPrefix(id + "@") }.sorted().map { "conflicts/Note/" + $0 }
    }

    @Test func putDeleteAndCommittedHandEditKeepTheConflictOnEveryReplica() throws {
        let directory = try TemporaryDirectory()
        try conflictedPair(in: directory)
        let put = try ferry(["put", "a", "Note", "1", "--json", #"{"v": "app rewrite"}"#], in: directory)
        #expect(put.exitCode != 0 && put.stderr.contains("Note/1 is in conflict: resolve it first"), "\(put)")
        let delete = try ferry(["delete", "a", "Note", "2"], in: directory)
        #expect(delete.exitCode != 0 && delete.stderr.contains("Note/2 is in conflict: resolve it first"), "\(delete)")

        // A hand edit of the record file is reported, not journaled.
        try Data(#"{"v": "by hand"}"#.utf8).write(to: URL(fileURLWithPath: directory.subpath("a/records/Note/1.json")))
        let commit = try ferry(["commit", "a"], in: directory)
        #expect(commit.exitCode != 0, "\(commit)")
        #expect(commit.stderr.contains("records/Note/1.json: Note/1 is in conflict"), "\(commit)")
        #expect(commit.stderr.contains("--file"), "it says how the edit can resolve it: \(commit)")
        let status = try ferry(["status", "a"], in: directory)
        #expect(status.stdout.contains("Note/1 is in conflict"), "\(status)")

        // Synced, both replicas still hold both conflicts; the hand edit is still there.
        let sync = try ferry(["sync", "a", "b"], in: directory)
        #expect(sync.exitCode == 0, "\(sync)")
        for store in ["a", "b"] { #expect(try conflicted(store, in: directory) == ["Note/1", "Note/2"], "\(store)") }
        #expect(try String(contentsOfFile: directory.subpath("a/records/Note/1.json"), encoding: .utf8) == #"{"v": "by hand"}"#)

        // Resolving with the hand edit ends the conflict, here and there.
        let resolve = try ferry(["resolve", "a", "Note", "1", "--file", "a/records/Note/1.json"], in: directory)
        #expect(resolve.exitCode == 0, "\(resolve)")
        #expect(try ferry(["sync", "a", "b"], in: directory).exitCode == 0)
        for store in ["a", "b"] {
            #expect(try conflicted(store, in: directory) == ["Note/2"], "\(store)")
            #expect(try ferry(["get", store, "Note", "1"], in: directory).stdout.contains("by hand"), "\(store)")
        }
    }

    @Test func resolveTakesOnlyTheRecordsOwnConflictFiles() throws {
        let directory = try TemporaryDirectory()
        try conflictedPair(in: directory)
        let other = try #require(try conflictFiles("a", "2", in: directory).first)
        let wrong = try ferry(["resolve", "a", "Note", "1", "--take", "a/" + other], in: directory)
        #expect(wrong.exitCode != 0, "\(wrong)")
        #expect(wrong.stderr.contains("is not a conflict file of Note/1"), "\(wrong)")
        #expect(try conflicted("a", in: directory) == ["Note/1", "Note/2"])
        let own = try #require(try conflictFiles("a", "1", in: directory).first)
        let right = try ferry(["resolve", "a", "Note", "1", "--take", "a/" + own], in: directory)
        #expect(right.exitCode == 0, "\(right)")
        #expect(try conflicted("a", in: directory) == ["Note/2"])
    }

    @Test func aHandMergeInAConflictFileOutlivesAResolutionFromElsewhere() throws {
        let directory = try TemporaryDirectory()
        try conflictedPair(in: directory)
        let file = try #require(try conflictFiles("a", "1", in: directory).first)
        let merge = #"{"v": "a1 and b1, merged by hand"}"#
        try Data(merge.utf8).write(to: URL(fileURLWithPath: directory.subpath("a/" + file)))
        #expect(try ferry(["resolve", "b", "Note", "1", "--take", "winner"], in: directory).exitCode == 0)
        let sync = try ferry(["sync", "a", "b"], in: directory)
        #expect(sync.exitCode == 0, "\(sync)")
        #expect(try conflicted("a", in: directory) == ["Note/2"])
        // The merge is kept beside, and the sync says where.
        let kept = String(file.dropLast(".json".count)) + ".hand-merge.json"
        #expect(sync.stderr.contains(kept), "\(sync)")
        #expect(try String(contentsOfFile: directory.subpath("a/" + kept), encoding: .utf8) == merge)
        #expect(!FileManager.default.fileExists(atPath: directory.subpath("a/" + file)))
        // It survives the next open and verify; a conflict file nobody edited is removed.
        #expect(try ferry(["verify", "a"], in: directory).exitCode == 0)
        #expect(FileManager.default.fileExists(atPath: directory.subpath("a/" + kept)))
        #expect(try conflictFiles("b", "1", in: directory).isEmpty)
    }
}
