import Testing
import Foundation
import FerryTestSupport
@testable import Ferry

/// `FileSystem.createFileAtomically`, the path batched writes take for new record files.
@Suite struct FileCreationTests {
    @Test func createsTheFileWithItsBytesAndNoLeftovers() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("a.json")
        let status = try FileSystem.createFileAtomically(path, Array("{}\n".utf8))
        #expect(try FileSystem.readFile(path) == Array("{}\n".utf8))
        let onDisk = try #require(try FileSystem.status(path))
        #expect(status.inode == onDisk.inode)
        #expect(status.size == 3)
        #expect(status.modificationNanoseconds == onDisk.modificationNanoseconds)
        #expect(try FileSystem.contents(ofDirectory: directory.path).map(\.name) == ["a.json"])
    }

    @Test func replacesAFileThatAlreadyExists() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("a.json")
        try FileSystem.writeFileAtomically(path, Array("old".utf8), durable: false)
        try FileSystem.createFileAtomically(path, Array("new".utf8))
        #expect(try FileSystem.readFile(path) == Array("new".utf8))
        #expect(try FileSystem.contents(ofDirectory: directory.path).map(\.name) == ["a.json"])
    }

    @Test func aMissingFolderIsNotFound() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: SystemError.self) { try FileSystem.createFileAtomically(directory.subpath("no/a.json"), [1]) }
        do {
            try FileSystem.createFileAtomically(directory.subpath("no/a.json"), [1])
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
