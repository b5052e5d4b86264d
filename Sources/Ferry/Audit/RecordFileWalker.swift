/// Lists the files under a store's `records/` folder, for checks that look at every file.
enum RecordFileWalker {
    /// One entry under `records/`.
    struct File: Sendable {
        /// The path relative to the folder listed (`lamp.json`, `abc…~/def.json`).
        var relativePath: String
        /// What kind of file it is (from the directory listing).
        var kind: FileStatus.Kind
        /// Its inode number (from the directory listing).
        var inode: UInt64
    }

    /// Every regular file under `root`, relative to it, sorted by UTF-8 bytes; temporary files
    /// of interrupted atomic writes (`.tmp-…`) are left out.
    static func relativePaths(under root: String) -> [String] {
        names(under: root).filter { $0.kind == .regular }.map(\.relativePath)
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Every entry under `root` but folders (which are entered), relative to it, in directory
    /// order, from the listings alone (no `stat` per file); `.tmp-…` files are left out.
    static func names(under root: String) -> [File] {
        var result: [File] = []
        forEach(under: root) { result.append($0) }
        return result
    }

    /// Calls `body` with every entry under `root` but folders (which are entered), relative
    /// to it, with its inode number, in directory order, holding no listing; `.tmp-…` files
    /// are left out.
    static func forEach(under root: String, _ body: (File) -> Void) {
        forEach(root, prefix: "", body)
    }

    private static func forEach(_ directory: String, prefix: String, _ body: (File) -> Void) {
        var folders: [String] = []
        try? FileSystem.forEachEntryAndInode(ofDirectory: directory) { entry, inode in
            if entry.name.hasPrefix(".tmp-") { return }
            if entry.kind == .directory {
                folders.append(entry.name)
            } else {
                body(File(relativePath: prefix + entry.name, kind: entry.kind, inode: inode))
            }
        }
        for folder in folders { forEach(directory + "/" + folder, prefix: prefix + folder + "/", body) }
    }
}
