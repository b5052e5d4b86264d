import Foundation
import Ferry
import FerryTestSupport
import Testing

/// Syncs that never wedge (issue 52, item 2): a delete that lost to an edit is not a pending
/// deletion, the guard counts what would really be deleted and spares small stores, and a
/// watch says a refusal every time while the other direction still moves.
@Suite struct NoWedgeTests {
    func ferry(_ arguments: [String], in directory: TemporaryDirectory) throws -> CLIResult {
        try runFerry(arguments, currentDirectory: directory.path)
    }

    /// `count` notes in `store`, written as files and journaled in one commit.
    func notes(_ count: Int, in store: String, directory: TemporaryDirectory) throws {
        let folder = directory.subpath("\(store)/records/Note")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 1...count {
            try Data("{\"n\": \(index)}\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/n\(index).json"))
        }
        let committed = try ferry(["commit", store], in: directory)
        #expect(committed.exitCode == 0, "\(committed)")
    }

    /// Stores `a` and `b` in step with `count` notes, then notes n1…n`deleted` deleted in `a`.
    func storesInStep(notes count: Int, deletedInA deleted: Int) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        _ = try ferry(["init", "a"], in: directory)
        _ = try ferry(["init", "b"], in: directory)
        try notes(count, in: "a", directory: directory)
        _ = try ferry(["sync", "b", "a"], in: directory)
        for index in 1...deleted { try FileManager.default.removeItem(atPath: directory.subpath("a/records/Note/n\(index).json")) }
        _ = try ferry(["commit", "a"], in: directory)
        return directory
    }

    @Test func aDeleteThatLostToAnEditIsNotAPendingDeletion() throws {
        let directory = try TemporaryDirectory()
        _ = try ferry(["init", "a"], in: directory)
        _ = try ferry(["init", "b"], in: directory)
        _ = try ferry(["put", "a", "Note", "n1", "--json", #"{"v": 1}"#], in: directory)
        _ = try ferry(["sync", "b", "a"], in: directory)
        _ = try ferry(["delete", "a", "Note", "n1"], in: directory)
        _ = try ferry(["put", "b", "Note", "n1", "--json", #"{"v": 2}"#], in: directory)
        // The edit wins over the delete it never saw (a put beats a concurrent delete), so no
        // sync, in either direction and however often, deletes anything or asks for --force.
        for (store, peer) in [("a", "b"), ("a", "b"), ("b", "a"), ("a", "b")] {
            let sync = try ferry(["sync", store, peer], in: directory)
            #expect(sync.exitCode == 0 && sync.stderr.isEmpty, "\(store) ↔ \(peer): \(sync)")
        }
        for store in ["a", "b"] {
            #expect(try ferry(["get", store, "Note", "n1"], in: directory).stdout.contains(#""v": 2"#), "\(store)")
        }
    }

    @Test func aStoreOfAHandfulOfNotesMayLoseMostOfThem() throws {
        let directory = try storesInStep(notes: 3, deletedInA: 2)
        let sync = try ferry(["sync", "b", "a"], in: directory)
        #expect(sync.exitCode == 0, "2 of 3 is under the floor of 10: \(sync)")
        #expect(try ferry(["list", "b", "Note"], in: directory).stdout == "n3\n")
    }

    @Test func theGuardRefusesMoreThanHalfAndMoreThanTheFloorBothConfigurable() throws {
        let directory = try storesInStep(notes: 20, deletedInA: 11)
        let before = try folderContents(directory.subpath("b"), skipping: [".ferry/lock", ".ferry/index", ".ferry/index-delta"])
        let refused = try ferry(["sync", "b", "a"], in: directory)
        #expect(refused.exitCode == 1, "\(refused)")
        #expect(
            refused.stderr.contains("would delete 11 of 20 records") && refused.stderr.contains("more than 50% and more than 10"),
            "\(refused)")
        #expect(try folderContents(directory.subpath("b"), skipping: [".ferry/lock", ".ferry/index", ".ferry/index-delta"]) == before, "nothing written")
        // The floor is an option: 11 deletions under a floor of 11 go ahead.
        let raised = try ferry(["sync", "b", "a", "--max-delete-count", "11"], in: directory)
        #expect(raised.exitCode == 0, "\(raised)")
        #expect(try ferry(["list", "b", "Note"], in: directory).stdout.split(separator: "\n").count == 9)
    }

    @Test func theShareIsStillAnOptionUnderTheFloor() throws {
        let directory = try storesInStep(notes: 4, deletedInA: 3)
        let strict = try ferry(["sync", "b", "a", "--max-delete-count", "0", "--dry-run"], in: directory)
        #expect(strict.stdout.contains("would refuse: this sync would delete 3 of 4 records"), "\(strict)")
    }

    @Test(.timeLimit(.minutes(2))) func aWatchSaysARefusalEveryTimeAndTheOtherDirectionStillMoves() async throws {
        let directory = try storesInStep(notes: 20, deletedInA: 11)
        try FileManager.default.createDirectory(atPath: directory.subpath("watch-output"), withIntermediateDirectories: true)
        let watcher = try ChildProcess(
            try ferryBinaryPath(), ["sync", directory.subpath("b"), directory.subpath("a"), "--watch", "--interval", "0.2"],
            outputDirectory: directory.subpath("watch-output"))
        defer { watcher.kill() }
        // The pull into b is refused, every sync, with what to do…
        let refusal = "this sync would delete 11 of 20 records in \(directory.subpath("b"))"
        let repeated = await watcher.waitForOutputLines(timeout: 60) { _ in
            watcher.errorOutput.components(separatedBy: refusal).count > 3
        }
        #expect(repeated, "\(watcher.errorOutput)")
        #expect(watcher.errorOutput.contains("run again with --force"), "\(watcher.errorOutput)")
        // … and b's own changes still reach a.
        _ = try ferry(["put", "b", "Note", "from-b", "--json", #"{"v": 1}"#], in: directory)
        let arrived = directory.subpath("a/records/Note/from-b.json")
        let pushed = await watcher.waitForOutputLines(timeout: 60) { _ in FileManager.default.fileExists(atPath: arrived) }
        #expect(pushed, "\(watcher.errorOutput)")
        #expect(try ferry(["list", "b", "Note"], in: directory).stdout.split(separator: "\n").count == 21, "nothing deleted in b")
        watcher.kill(SIGINT)
        _ = watcher.wait()
    }
}
