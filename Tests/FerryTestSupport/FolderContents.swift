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

/// The bytes of every file under `path`, in all its subfolders (0 when it does not exist): how far
/// a child writing there has got, for a test that kills it at a point of its progress.
public func folderBytes(_ path: String) -> Int64 {
    guard let relatives = try? FileManager.default.subpathsOfDirectory(atPath: path) else { return 0 }
    return relatives.reduce(0) { total, relative in
        guard let status = try? FileSystem.status(path + "/" + relative), status.kind == .regular else { return total }
        return total + status.size
    }
}

/// `path` and every folder under it, for ``ChildProcess/waitForChanges(in:timeout:until:)``.
public func folderAndSubfolders(_ path: String) -> [String] {
    let relatives = (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? []
    return [path] + relatives.map { path + "/" + $0 }.filter { FileSystem.isDirectory($0) }
}
