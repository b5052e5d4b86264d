import Testing
import Foundation
import FerryTestSupport
@testable import Ferry

/// `FileSystem.createFileIfAbsent`, the path batched writes take for new record files: a
/// whole file or none, and never in place of a file that is there.
@Suite struct FileCreationTests {
    @Test func createsTheFileWithItsBytesAndNoLeftovers() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("a.json")
        let status = try #require(try FileSystem.createFileIfAbsent(path, Array("{}\n".utf8)))
        #expect(try FileSystem.readFile(path) == Array("{}\n".utf8))
        let onDisk = try #require(try FileSystem.status(path))
        #expect(status.inode == onDisk.inode)
        #expect(status.size == 3)
        #expect(status.modificationNanoseconds == onDisk.modificationNanoseconds)
        #expect(try FileSystem.contents(ofDirectory: directory.path).map(\.name) == ["a.json"])
    }

    @Test func leavesAFileThatAlreadyExists() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("a.json")
        try FileSystem.writeFileAtomically(path, Array("made by hand".utf8), durable: false)
        #expect(try FileSystem.createFileIfAbsent(path, Array("new".utf8)) == nil)
        #expect(try FileSystem.readFile(path) == Array("made by hand".utf8))
        #expect(try FileSystem.contents(ofDirectory: directory.path).map(\.name) == ["a.json"])
    }

    /// The portable way, for systems and file systems without unnamed files: a temporary file
    /// linked in, which never replaces, and no temporary name left either way.
    @Test func theLinkedTemporaryFileCreatesButNeverReplaces() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("a.json")
        let status = try #require(try FileSystem.linkTemporaryFile(at: path, Array("first".utf8)))
        #expect(try FileSystem.status(path)?.inode == status.inode)
        #expect(try FileSystem.linkTemporaryFile(at: path, Array("second".utf8)) == nil)
        #expect(try FileSystem.readFile(path) == Array("first".utf8))
        #expect(try FileSystem.contents(ofDirectory: directory.path).map(\.name) == ["a.json"])
    }

    @Test func aMissingFolderIsNotFound() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: SystemError.self) { try FileSystem.createFileIfAbsent(directory.subpath("no/a.json"), [1]) }
        do {
            _ = try FileSystem.createFileIfAbsent(directory.subpath("no/a.json"), [1])
        } catch {
            #expect(error.isNotFound)
        }
    }

    @Test func newRecordFilesAreCompleteAndStamped() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        let notes = try EntityName("Note")
        try store.write((0..<50).map { .put(RecordKey(entity: notes, id: try! RecordID("n\($0)")), ["n": .integer(Int64($0))]) })
        let files = try FileSystem.contents(ofDirectory: directory.subpath("s/records/Note")).map(\.name)
        #expect(files.count == 50)
        #expect(!files.contains { $0.hasPrefix(".tmp-") })
        // The stamps taken from the unnamed files match the linked ones: nothing looks edited.
        #expect(try store.status().edits.isEmpty)
        #expect(try store.get(entity: notes, id: RecordID("n7")) == ["n": 7])
    }
}
