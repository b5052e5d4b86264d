import Foundation
import Testing
import FerryTestSupport
@testable import Ferry

#if canImport(Glibc)
import Glibc
#endif

/// `FileSystem.removeTree`, which removes staging stores and temporary folders: all of the
/// tree, and nothing a link inside it points to.
@Suite struct RemoveTreeTests {
    @Test func removesNestedFoldersFilesAndLinksButNotWhatLinksPointTo() throws {
        let directory = try TemporaryDirectory()
        let tree = directory.subpath("tree")
        let outside = directory.subpath("outside")
        try FileSystem.createDirectories(tree + "/records/Note")
        try FileSystem.createDirectories(tree + "/.ferry/empty")
        try FileSystem.createDirectories(outside)
        try FileSystem.writeFileAtomically(outside + "/keep.json", Array("{}".utf8), durable: false)
        for index in 0..<300 {
            try FileSystem.writeFileAtomically(tree + "/records/Note/n\(index).json", Array("{}".utf8), durable: false)
        }
        try FileSystem.writeFileAtomically(tree + "/.ferry/state", Array("s".utf8), durable: false)
        #expect(symlink(outside, tree + "/records/link-to-folder") == 0)
        #expect(symlink(outside + "/keep.json", tree + "/link-to-file") == 0)
        #expect(symlink(directory.subpath("nowhere"), tree + "/dangling") == 0)

        try FileSystem.removeTree(tree)

        #expect(try FileSystem.status(tree) == nil)
        #expect(try FileSystem.readFile(outside + "/keep.json") == Array("{}".utf8))
        try FileSystem.removeTree(tree)  // already gone: nothing to do
        try FileSystem.removeTree(outside + "/keep.json")  // a plain file
        #expect(try FileSystem.contents(ofDirectory: outside).isEmpty)
    }
}
