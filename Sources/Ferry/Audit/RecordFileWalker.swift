/// Lists the files under a store's `records/` folder, for checks that look at every file.
enum RecordFileWalker {
    /// One file under `records/`.
    struct File {
        /// The path relative to `records/` (`Product/lamp.json`).
        var relativePath: String
        /// The file's status.
        var status: FileStatus
    }

    /// Every regular file under `root`, relative to it, sorted by UTF-8 bytes; temporary files
    /// of interrupted atomic writes (`.tmp-…`) are left out.
    static func relativePaths(under root: String) -> [String] {
        files(under: root).map(\.relativePath)
    }

    /// Every entry under `root` (regular files and anything else), relative to it, sorted by
    /// UTF-8 bytes unless `sorted` is false.
    static func files(under root: String, sorted: Bool = true) -> [File] {
        var result: [File] = []
        walk(root, prefix: "", into: &result)
        if sorted { result.sort { $0.relativePath.utf8.lexicographicallyPrecedes($1.relativePath.utf8) } }
        return result
    }

    private static func walk(_ directory: String, prefix: String, into result: inout [File]) {
        guard let entries = try? FileSystem.scan(directory: directory) else { return }
        for entry in entries {
            if entry.name.hasPrefix(".tmp-") { continue }
            let relative = prefix + entry.name
            if entry.status.kind == .directory {
                walk(directory + "/" + entry.name, prefix: relative + "/", into: &result)
            } else {
                result.append(File(relativePath: relative, status: entry.status))
            }
        }
    }
}
