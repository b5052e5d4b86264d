import Ferry
import Foundation

/// Every regular file below `path` with its bytes, keyed by relative path: what "the store is
/// exactly as it was" compares.
///
/// ```swift
/// let before = try folderContents(store.path)
/// // … a sync that must fail …
/// #expect(try folderContents(store.path) == before)
/// ```
/// - Parameter skipping: relative path prefixes left out (the lock file, by default, which
///   records who held the store last).
public func folderContents(_ path: String, skipping: [String] = [".ferry/lock"]) throws -> [String: [UInt8]] {
    var files: [String: [UInt8]] = [:]
    for relative in try FileManager.default.subpathsOfDirectory(atPath: path) where !skipping.contains(where: { relative.hasPrefix($0) }) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
            files[relative] = try FileSystem.readFile(path + "/" + relative)
        }
    }
    return files
}
