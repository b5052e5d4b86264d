import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

@Suite struct StoreBasicsTests {
    let users = try! EntityName("User")

    @Test func putGetDeleteAndReopen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("store")
        let store = try Store.create(at: path)
        let id = try store.put(["name": "Ada", "age": 36], entity: users)
        #expect(try store.get(entity: users, id: id) == ["name": "Ada", "age": 36])
        try store.put(["name": "Ada L."], entity: users, id: id)
        let other = try store.put(["name": "Bob"], entity: users, id: RecordID("Bob/../x"))
        try store.delete(entity: users, id: other)
        #expect(store.headSequence == 4)
        store.close()

        let reopened = try Store.open(at: path)
        #expect(try reopened.get(entity: users, id: id) == ["name": "Ada L."])
        #expect(try reopened.get(entity: users, id: other) == nil)
        #expect(try reopened.ids(of: users) == [id])
        #expect(reopened.headSequence == 4)
        #expect(try reopened.status().isClean)
    }

    @Test func identicalPutWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.subpath("s"))
        let id = try store.put(["a": 1], entity: users)
        try store.put(["a": 1], entity: users, id: id)
        #expect(store.headSequence == 1)
    }

    @Test func handEditsAreNoticedAndCommitted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        let id = try store.put(["a": 1], entity: users, id: RecordID("r1"))
        try store.put(["b": 2], entity: users, id: RecordID("r2"))
        _ = id
        try FileSystem.writeFileAtomically(path + "/records/User/r1.json", Array("{\"a\": 2}\n".utf8), durable: false)
        try FileSystem.removeFile(path + "/records/User/r2.json")
        try FileSystem.writeFileAtomically(path + "/records/User/r3.json", Array("{\"c\": 3}".utf8), durable: false)
        try FileSystem.writeFileAtomically(path + "/records/User/r4.json", Array("{\"c\": ".utf8), durable: false)
        let status = try store.status()
        #expect(status.edits.map(\.kind) == [.modified, .deleted, .created])
        #expect(status.problems.count == 1)
        let report = try store.commit()
        #expect(report.committed.count == 3)
        #expect(try store.get(entity: users, id: RecordID("r1")) == ["a": 2])
        #expect(try store.get(entity: users, id: RecordID("r2")) == nil)
        #expect(try store.get(entity: users, id: RecordID("r3")) == ["c": 3])
        let after = try store.status()
        #expect(after.edits.isEmpty)
        #expect(after.problems.count == 1)
    }
}

@Suite struct RacyEditTests {
    @Test func sameSizeEditWithinTheTimestampGranularityIsCaught() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        let users = try EntityName("User")
        try store.put(["a": 1], entity: users, id: RecordID("r"))
        let file = path + "/records/User/r.json"
        let before = try #require(try FileSystem.status(file))
        #expect(try store.status().isClean)
        // Same size, and the modification time put back exactly: only the content differs.
        let edited = Array(String(decoding: try FileSystem.readFile(file), as: UTF8.self).replacingOccurrences(of: "1", with: "2").utf8)
        let handle = try FileDescriptor.open(file, .writeOnly, options: .truncate)
        try handle.writeAll(edited)
        handle.close()
        var times = [timespec(tv_sec: Int(before.modificationNanoseconds / 1_000_000_000), tv_nsec: Int(before.modificationNanoseconds % 1_000_000_000)),
                     timespec(tv_sec: Int(before.modificationNanoseconds / 1_000_000_000), tv_nsec: Int(before.modificationNanoseconds % 1_000_000_000))]
        #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
        let after = try #require(try FileSystem.status(file))
        #expect(after.size == before.size && after.modificationNanoseconds == before.modificationNanoseconds)
        let status = try store.status()
        #expect(status.edits.map(\.kind) == [.modified])
    }

    @Test func touchIsNotAnEdit() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        let store = try Store.create(at: path)
        try store.put(["a": 1], entity: EntityName("User"), id: RecordID("r"))
        #expect(utimensat(AT_FDCWD, path + "/records/User/r.json", nil, 0) == 0)
        #expect(try store.status().isClean)
    }
}

/// Status over a store whose index lives in an image file: records unchanged since the
/// image are settled from its raw lines, changed ones from memory.
@Suite struct IndexImageStatusTests {
    let users = try! EntityName("User")

    /// Sets a file's modification time `seconds` into the past, as if written long ago.
    func age(_ file: String, seconds: Int) throws {
        let status = try #require(try FileSystem.status(file))
        let past = status.modificationNanoseconds / 1_000_000_000 - Int64(seconds)
        var times = [timespec(tv_sec: Int(past), tv_nsec: 0), timespec(tv_sec: Int(past), tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
    }

    @Test func everyKindOfEditIsFoundAgainstTheImage() throws {
        let directory = try TemporaryDirectory()
        let path = directory.subpath("s")
        var options = StoreOptions()
        options.imageInterval = 1
        let longID = try RecordID(String(repeating: "x", count: 250))
        var store = try Store.create(at: path, options: options)
        try store.write(
            try (0..<20).map { .put(RecordKey(entity: users, id: try RecordID("u\($0)")), ["n": .integer(Int64($0))]) }
                + [.put(RecordKey(entity: users, id: longID), ["long": true])])
        try store.delete(entity: users, id: RecordID("u19"))
        // Age every file and confirm it, so the image holds stamps outside the racy window.
        for name in try FileSystem.contents(ofDirectory: path + "/records/User").map(\.name) where name.hasSuffix(".json") {
            try age(path + "/records/User/" + name, seconds: 60)
        }
        try age(path + "/records/User/" + RecordFileName.relativePath(for: longID), seconds: 60)
        #expect(try store.status().isClean)
        store.close()
        #expect(FileSystem.exists(path + "/.ferry/index"))

        store = try Store.open(at: path, options: options)
        #expect(try store.status().isClean)
        // A change after the image lives in memory; it is clean too.
        try store.put(["n": 100], entity: users, id: RecordID("u0"))
        #expect(try store.status().isClean)

        try FileSystem.writeFileAtomically(path + "/records/User/u1.json", Array("{\"n\": 11}\n".utf8), durable: false)
        try FileSystem.writeFileAtomically(path + "/records/User/u0.json", Array("{\"n\": 101}\n".utf8), durable: false)
        try FileSystem.removeFile(path + "/records/User/u2.json")
        try FileSystem.writeFileAtomically(path + "/records/User/u19.json", Array("{\"back\": true}\n".utf8), durable: false)
        try FileSystem.writeFileAtomically(path + "/records/User/new.json", Array("{\"new\": true}\n".utf8), durable: false)
        // A file in a folder that looks like a long id's piece but is not one.
        try FileSystem.createDirectories(path + "/records/User/u3~")
        try FileSystem.writeFileAtomically(path + "/records/User/u3~/x.json", Array("{}\n".utf8), durable: false)
        let status = try store.status()
        #expect(status.edits.map(\.path) == [
            "records/User/new.json", "records/User/u0.json", "records/User/u1.json", "records/User/u19.json", "records/User/u2.json",
        ])
        #expect(status.edits.map(\.kind) == [.created, .modified, .modified, .created, .deleted])
        #expect(status.problems.map(\.path) == ["records/User/u3~/x.json"])
        try FileSystem.removeTree(path + "/records/User/u3~")
        try store.commit()
        #expect(try store.get(entity: users, id: RecordID("u19")) == ["back": true])
        #expect(try store.get(entity: users, id: RecordID("u2")) == nil)
        #expect(try store.status().isClean)
        store.close()
        #expect(try Store.open(at: path, options: options).status().isClean)
    }
}
