import Ferry
import FerryTestSupport
import Foundation
import Testing

@Suite struct TemporaryDirectoryTests {
    @Test func createsAndRemovesItsTree() throws {
        var path = ""
        do {
            let directory = try TemporaryDirectory(prefix: "ferry-tmp-test")
            path = directory.path
            #expect(FileSystem.isDirectory(path))
            #expect(FileSystem.lastComponent(of: path).hasPrefix("ferry-tmp-test."))
            #expect(directory.subpath("a/b") == path + "/a/b")
            try FileSystem.createDirectories(directory.subpath("a/b"))
            try Data("x".utf8).write(to: URL(fileURLWithPath: directory.subpath("a/b/c.json")))
            #expect(try FileSystem.contents(ofDirectory: path).map(\.name) == ["a"])
        }
        #expect(!path.isEmpty)
        #expect(!FileSystem.exists(path))
    }

    @Test func eachDirectoryIsNew() throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        #expect(first.path != second.path)
        #expect(try FileSystem.contents(ofDirectory: first.path).isEmpty)
    }
}
