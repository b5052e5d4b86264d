import Foundation
import FerryTestSupport
import Testing

/// A symbolic link under `records/` (an entity folder kept on another disk, a record file
/// linked from elsewhere) is one clear error that names it: never read as a deletion, never
/// journaled, never pushed, nothing unlinked through it (issue 55, item 1).
@Suite struct SymbolicLinkTests {
    func ferry(_ arguments: [String], in directory: TemporaryDirectory) throws -> CLIResult {
        try runFerry(arguments, currentDirectory: directory.path)
    }

    /// Every file under `folder`, with its bytes (links not followed). The lock file (the pid
    /// of the last process that took the lock) and the index (a cache, whose stamps a scan
    /// confirms again) are left out.
    func contents(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return files }
        for case let name as String in walker where ![".ferry/lock", ".ferry/index", ".ferry/index-delta"].contains(name) {
            let path = folder + "/" + name
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            if attributes[.type] as? FileAttributeType == .typeRegular { files[name] = try Data(contentsOf: URL(fileURLWithPath: path)) }
        }
        return files
    }

    /// Two synced stores `a` and `b`, three Notes and a Task.
    func syncedPair(in directory: TemporaryDirectory) throws {
        for store in ["a", "b"] { #expect(try ferry(["init", store, "--name", store], in: directory).exitCode == 0) }
        for id in 1...3 { #expect(try ferry(["put", "a", "Note", "\(id)", "--json", #"{"t": \#(id)}"#], in: directory).exitCode == 0) }
        #expect(try ferry(["put", "a", "Task", "1", "--json", #"{"x": 1}"#], in: directory).exitCode == 0)
        #expect(try ferry(["sync", "a", "b"], in: directory).exitCode == 0)
    }

    /// Runs every command that reads the store and checks each one refuses, naming `link`, and
    /// that nothing changed: the store, the link's target, the peer.
    func expectRefusedEverywhere(naming link: String, target: String, deleting id: String, in directory: TemporaryDirectory) throws {
        let before = (a: try contents(directory.subpath("a")), b: try contents(directory.subpath("b")), target: try contents(target))
        for command in [["status", "a"], ["commit", "a"], ["sync", "a", "b", "--dry-run"], ["sync", "a", "b"], ["sync", "b", "a"]] {
            let result = try ferry(command, in: directory)
            #expect(result.exitCode != 0, "\(command): \(result)")
            #expect(result.stderr.contains("\(link) is a symbolic link"), "\(command): \(result)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(command): one line: \(result)")
            #expect(!result.stdout.contains("journaled") && !result.stdout.contains("pushed"), "\(command): \(result)")
        }
        let verify = try ferry(["verify", "a"], in: directory)
        #expect(verify.exitCode != 0 && verify.stdout.contains("symbolic link"), "\(verify)")
        #expect(!verify.stdout.contains("run ferry commit"), "verify advises no commit: \(verify)")
        let delete = try ferry(["delete", "a", "Note", id], in: directory)
        #expect(delete.exitCode != 0 && delete.stderr.contains("is a symbolic link"), "\(delete)")
        #expect(try contents(directory.subpath("a")) == before.a, "the store is as it was")
        #expect(try contents(target) == before.target, "nothing was unlinked through the link")
        #expect(try contents(directory.subpath("b")) == before.b, "the peer is untouched")
        #expect(try ferry(["list", "b", "Note"], in: directory).stdout == "1\n2\n3\n")
    }

    @Test func aLinkedEntityFolderIsRefusedNotDeletedEverywhere() throws {
        let directory = try TemporaryDirectory()
        try syncedPair(in: directory)
        // records/Note moves to another disk, a link left in its place.
        let target = directory.subpath("elsewhere/Note")
        try FileManager.default.createDirectory(atPath: directory.subpath("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: directory.subpath("a/records/Note"), toPath: target)
        try FileManager.default.createSymbolicLink(atPath: directory.subpath("a/records/Note"), withDestinationPath: target)
        try expectRefusedEverywhere(naming: directory.subpath("a/records/Note"), target: target, deleting: "1", in: directory)
        #expect(try contents(target).keys.sorted() == ["1.json", "2.json", "3.json"])

        // Put back in place, the store syncs as before: nothing was lost, nothing to push.
        try FileManager.default.removeItem(atPath: directory.subpath("a/records/Note"))
        try FileManager.default.moveItem(atPath: target, toPath: directory.subpath("a/records/Note"))
        let sync = try ferry(["sync", "a", "b"], in: directory)
        #expect(sync.exitCode == 0 && sync.stdout.contains("up-to-date"), "\(sync)")
    }

    @Test func aLinkedRecordFileIsRefusedNotDeletedEverywhere() throws {
        let directory = try TemporaryDirectory()
        try syncedPair(in: directory)
        let target = directory.subpath("elsewhere")
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: directory.subpath("a/records/Note/2.json"), toPath: target + "/2.json")
        try FileManager.default.createSymbolicLink(atPath: directory.subpath("a/records/Note/2.json"), withDestinationPath: target + "/2.json")
        try expectRefusedEverywhere(naming: directory.subpath("a/records/Note/2.json"), target: target, deleting: "2", in: directory)
        #expect(try contents(target).keys.sorted() == ["2.json"])
    }
}
