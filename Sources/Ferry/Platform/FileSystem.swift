#if canImport(Glibc)
import Glibc
import Synchronization
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Path-level system calls: the one place the rest of Ferry reaches the file system through.
package enum FileSystem {
    /// An entry of a directory listing.
    package struct DirectoryEntry: Sendable, Hashable {
        package var name: String
        package var kind: FileStatus.Kind
    }

    /// `lstat`: the status of the file at `path` (links are not followed); `nil` when absent.
    package static func status(_ path: String) throws(SystemError) -> FileStatus? {
        var info = stat()
        if lstat(path, &info) == 0 { return FileStatus(info) }
        let error = SystemError.current("stat", path: path)
        if error.isNotFound || error.code == ENOTDIR { return nil }
        throw error
    }

    /// The permission bits of the file at `path` (`st_mode & 0o7777`, not following a link);
    /// `nil` when nothing is there.
    package static func permissions(of path: String) throws(SystemError) -> UInt32? {
        var info = stat()
        if lstat(path, &info) == 0 { return UInt32(info.st_mode) & 0o7777 }
        let error = SystemError.current("stat", path: path)
        if error.isNotFound || error.code == ENOTDIR { return nil }
        throw error
    }

    /// Whether anything exists at `path`.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Whether `path` is a directory (following links).
    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether `path` is a regular file (following links).
    package static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Lists a directory, without `.` and `..`, in no particular order.
    package static func contents(ofDirectory path: String) throws(SystemError) -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        try forEachEntry(ofDirectory: path) { entries.append($0) }
        return entries
    }

    /// Calls `body` with each entry of a directory, without `.` and `..`, in no particular
    /// order, holding none of them: for folders of a million files.
    package static func forEachEntry(ofDirectory path: String, _ body: (DirectoryEntry) -> Void) throws(SystemError) {
        try forEachEntryAndInode(ofDirectory: path) { entry, _ in body(entry) }
    }

    /// Calls `body` with each entry of a directory and its inode number (from the listing,
    /// with no `stat`), without `.` and `..`, in no particular order, holding none of them.
    /// Reading many small files in the order of their inode numbers reads the inode tables,
    /// and mostly the files, in the order they lie on disk.
    static func forEachEntryAndInode(
        ofDirectory path: String, _ body: (DirectoryEntry, _ inode: UInt64) -> Void
    ) throws(SystemError) {
        try forEachRawEntry(ofDirectory: path) { name, type, inode in
            let kind: FileStatus.Kind
            switch type {
            case Int32(DT_REG): kind = .regular
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_LNK): kind = .symbolicLink
            case Int32(DT_UNKNOWN):
                kind = (try? status(path + "/" + name))??.kind ?? .other
            default: kind = .other
            }
            body(DirectoryEntry(name: name, kind: kind), inode)
        }
    }

    /// Calls `body` with each entry's name, `readdir` type (`DT_…`) and inode number, without
    /// `.` and `..`.
    private static func forEachRawEntry(
        ofDirectory path: String, _ body: (_ name: String, _ type: Int32, _ inode: UInt64) -> Void
    ) throws(SystemError) {
        guard let directory = opendir(path) else { throw .current("opendir", path: path) }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            // The name is read in place, up to its NUL: a record is only as long as its name
            // (`d_reclen`), and copying the whole 256-byte field out of the last one in glibc's
            // buffer read past its end (a SIGSEGV seen once in a full pull).
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            body(name, Int32(entry.pointee.d_type), UInt64(entry.pointee.d_ino))
        }
    }

    /// Creates a directory; succeeds when it already exists.
    package static func createDirectory(_ path: String, permissions: UInt32 = 0o755) throws(SystemError) {
        if mkdir(path, mode_t(permissions)) == 0 { return }
        let error = SystemError.current("mkdir", path: path)
        if error.isAlreadyExists && isDirectory(path) { return }
        throw error
    }

    /// Creates a directory and any missing parents. Returns the directories it created,
    /// outermost first, so the caller can make them durable.
    @discardableResult
    package static func createDirectories(_ path: String) throws(SystemError) -> [String] {
        if isDirectory(path) { return [] }
        var created: [String] = []
        let parent = parentPath(of: path)
        if parent != path, !parent.isEmpty { created += try createDirectories(parent) }
        try createDirectory(path)
        created.append(path)
        return created
    }

    /// Renames atomically, replacing any file at `destination`.
    package static func rename(_ source: String, to destination: String) throws(SystemError) {
        guard Glibc_rename(source, destination) == 0 else { throw .current("rename", path: destination) }
    }

    /// Removes a file; succeeds when it is already gone.
    package static func removeFile(_ path: String) throws(SystemError) {
        if unlink(path) == 0 { return }
        let error = SystemError.current("unlink", path: path)
        if error.isNotFound { return }
        throw error
    }

    /// Removes an empty directory; returns false when it is not empty or absent.
    @discardableResult
    package static func removeEmptyDirectory(_ path: String) -> Bool {
        rmdir(path) == 0
    }

    /// Removes a directory tree (temporary folders, a join's staging store).
    ///
    /// Each directory's entries go in the order of their inode numbers, and no file is
    /// `stat`ed first (`readdir`'s type says which entries are folders). In `readdir`'s order, which is hash order on ext4, the unlinks
    /// touch the inode tables at random: a million record files, caches cold, took 291 s
    /// that way against 188 s in inode order on a fresh file system, and about ten times as
    /// long on one aged by mass deletions.
    package static func removeTree(_ path: String) throws(SystemError) {
        guard let info = try status(path) else { return }
        guard info.kind == .directory else { return try removeFile(path) }
        for entry in try entriesInInodeOrder(ofDirectory: path) {
            let child = path + "/" + entry.name
            if entry.isFile { try removeFile(child) } else { try removeTree(child) }
        }
        guard rmdir(path) == 0 else { throw .current("rmdir", path: path) }
    }

    /// A directory's entries, without `.` and `..`, by inode number; `isFile` when `readdir`
    /// says the entry is anything but a directory (an entry of unknown type is not a file).
    private static func entriesInInodeOrder(ofDirectory path: String) throws(SystemError) -> [(name: String, isFile: Bool)] {
        var entries: [(inode: UInt64, name: String, isFile: Bool)] = []
        try forEachRawEntry(ofDirectory: path) { name, type, inode in
            entries.append((inode, name, type != Int32(DT_DIR) && type != Int32(DT_UNKNOWN)))
        }
        entries.sort { $0.inode < $1.inode }
        return entries.map { ($0.name, $0.isFile) }
    }

    /// Makes a directory's entries (creations, renames, removals) durable.
    package static func synchronizeDirectory(_ path: String) throws(SystemError) {
        let directory = try FileDescriptor.open(path, .readOnly, options: .directory)
        try directory.closeAfter { () throws(SystemError) in try directory.synchronize() }
    }

    /// Reads a whole file; `limit` bounds the size accepted.
    package static func readFile(_ path: String, limit: Int = Int.max) throws(SystemError) -> [UInt8] {
        let file = try FileDescriptor.open(path, .readOnly)
        return try file.closeAfter { () throws(SystemError) in
            let size = try file.status().size
            if size > Int64(limit) { throw SystemError("read", path: path, code: EFBIG) }
            return try file.readToEnd()
        }
    }

    /// Writes a file by writing a temporary file beside it and renaming it into place, so a
    /// reader sees the old content or the new, never half of it.
    /// - Parameter durable: also `fsync` the file before the rename and the directory after.
    /// - Parameter permissions: the new file's mode (0o600 for a secret: the temporary file is
    ///   made with it, so the bytes are never readable by others, not even for a moment).
    /// - Returns: the status of the new file.
    @discardableResult
    package static func writeFileAtomically(
        _ path: String, _ bytes: [UInt8], durable: Bool, permissions: UInt32 = 0o644
    ) throws(SystemError) -> FileStatus {
        let temporary = parentPath(of: path) + "/.tmp-" + lastComponent(of: path) + "-\(getpid())"
        // A temporary file left by a crash keeps its mode through O_TRUNC: start afresh.
        if permissions != 0o644 { try? removeFile(temporary) }
        let file = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate], permissions: permissions)
        let info: FileStatus
        do throws(SystemError) {
            try file.writeAll(bytes)
            if durable { try file.synchronize() }
            info = try file.status()
        } catch {
            file.close()
            try? removeFile(temporary)
            throw error
        }
        // Closed once, here: closing it again when the rename failed would close whatever
        // another thread had opened under the same number meanwhile.
        file.close()
        do throws(SystemError) {
            try rename(temporary, to: path)
        } catch {
            try? removeFile(temporary)
            throw error
        }
        if durable { try synchronizeDirectory(parentPath(of: path)) }
        return info
    }

    /// Everything before the last `/` (or `.` when there is none).
    package static func parentPath(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// Everything after the last `/`.
    package static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// The process id, for lock files and temporary names.
    package static var processID: Int32 { getpid() }

    /// Whether a process with this id is running.
    package static func processIsAlive(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }
}

@inline(__always) private func Glibc_rename(_ source: String, _ destination: String) -> Int32 {
    rename(source, destination)
}

extension FileSystem {
    /// Creates a file where none exists, so that it appears complete or not at all, and never
    /// in place of one: when something is at `path` already (a file made by hand where a new
    /// record's file goes), it is left as it is and this returns `nil`.
    ///
    /// On Linux the bytes go into an unnamed file (`O_TMPFILE`) that is then linked under
    /// `path`, one directory change instead of two: a reader never sees it half written, and no
    /// temporary name is created and removed. Elsewhere, or where the file system lacks
    /// `O_TMPFILE`, a temporary file beside it is linked (``linkTemporaryFile(at:_:)``). Not
    /// durable: callers rely on a journal that can repair the file.
    /// - Returns: the status of the new file; `nil` when `path` was taken.
    package static func createFileIfAbsent(_ path: String, _ bytes: [UInt8]) throws(SystemError) -> FileStatus? {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        if let (file, status) = try makeUnnamedFile(inDirectory: parentPath(of: path), bytes) {
            defer { file.close() }
            if try linkUnnamedFile(file, at: path) { return status }
            if exists(path) { return nil }
        }
        #endif
        return try linkTemporaryFile(at: path, bytes)
    }

    /// The portable way of ``createFileIfAbsent(_:_:)``: writes a temporary file beside `path`,
    /// gives it the name `path` with `link(2)`, which never replaces, and removes the temporary
    /// name. Where the file system has no hard links (FAT), a rename after a check that `path`
    /// is free: only there can a file made in between those two steps be replaced.
    static func linkTemporaryFile(at path: String, _ bytes: [UInt8]) throws(SystemError) -> FileStatus? {
        let temporary = parentPath(of: path) + "/.tmp-" + lastComponent(of: path) + "-\(getpid())"
        let file = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate])
        let status: FileStatus
        do throws(SystemError) {
            try file.writeAll(bytes)
            status = try file.status()
            file.close()
        } catch {
            file.close()
            try? removeFile(temporary)
            throw error
        }
        if link(temporary, path) == 0 {
            try? removeFile(temporary)
            return status
        }
        let code = errno
        if code == EEXIST || exists(path) {
            try? removeFile(temporary)
            return nil
        }
        guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EMLINK else {
            try? removeFile(temporary)
            throw SystemError("link", path: path, code: code)
        }
        do throws(SystemError) {
            try rename(temporary, to: path)
        } catch {
            try? removeFile(temporary)
            throw error
        }
        return status
    }

    #if os(Linux) && (arch(x86_64) || arch(arm64))
    /// `O_TMPFILE` is a macro Swift does not import: `__O_TMPFILE | O_DIRECTORY`.
    private static let openUnnamedFile: Int32 = 0o20_000_000 | O_DIRECTORY
    #endif

    /// Writes `bytes` into a new file in `directory` that has no name yet (Linux `O_TMPFILE`):
    /// nobody can see or open it until ``linkUnnamedFile(_:at:)`` gives it one, and it vanishes
    /// if the process dies first. Returns the open file and its status, or `nil` where the
    /// system or file system has no unnamed files (the caller writes the file another way).
    /// - Throws: when `directory` is missing (`ENOENT`), or the write fails.
    package static func makeUnnamedFile(inDirectory directory: String, _ bytes: [UInt8]) throws(SystemError) -> (FileDescriptor, FileStatus)? {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        let fd = retryingOnInterrupt { Glibc_open(directory, O_WRONLY | O_CLOEXEC | openUnnamedFile, 0o644) }
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw SystemError("open", path: directory, code: code) }
            return nil  // EOPNOTSUPP, EISDIR (old kernels), EINVAL: no unnamed files here
        }
        let file = FileDescriptor(rawValue: fd, path: directory)
        do {
            try file.writeAll(bytes)
            return (file, try file.status())
        } catch {
            file.close()
            throw error
        }
        #else
        return nil
        #endif
    }

    /// Gives a file made by ``makeUnnamedFile(inDirectory:_:)`` the name `path` (in the same
    /// directory), atomically; the caller still closes it. Returns `false`, linking nothing,
    /// when `path` already exists or links through `/proc` are unavailable.
    package static func linkUnnamedFile(_ file: FileDescriptor, at path: String) throws(SystemError) -> Bool {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        // Linking the descriptor itself (AT_EMPTY_PATH) saves resolving a /proc path, but
        // needs CAP_DAC_READ_SEARCH on most kernels; without it, ENOENT, and /proc it is.
        if linkByDescriptor.load(ordering: .relaxed) {
            if linkat(file.rawValue, "", AT_FDCWD, path, emptyPath) == 0 { return true }
            let code = errno
            if code != ENOENT || FileSystem.exists(path) || !FileSystem.exists(parentPath(of: path)) {
                return try linkFailed(code, path)
            }
            linkByDescriptor.store(false, ordering: .relaxed)
        }
        if linkat(AT_FDCWD, "/proc/self/fd/\(file.rawValue)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 { return true }
        return try linkFailed(errno, path)
        #else
        return false
        #endif
    }

    #if os(Linux) && (arch(x86_64) || arch(arm64))
    /// Whether `linkat(AT_EMPTY_PATH)` may work in this process; cleared at its first refusal.
    private static let linkByDescriptor = Atomic<Bool>(true)
    /// `AT_EMPTY_PATH`, which Glibc's module does not export (`<fcntl.h>`, Linux).
    private static let emptyPath: Int32 = 0x1000

    private static func linkFailed(_ code: Int32, _ path: String) throws(SystemError) -> Bool {
        if code == EEXIST || code == ENOENT && FileSystem.exists(parentPath(of: path)) { return false }
        throw SystemError("link", path: path, code: code)
    }
    #endif
}

extension FileSystem {
    /// Drops an advisory `flock` held through `file`.
    package static func unlock(_ file: FileDescriptor) {
        _ = flock(file.rawValue, LOCK_UN)
    }
}

extension FileSystem {
    /// The real-time clock in nanoseconds since 1970, comparable with file modification times.
    package static func currentTimeNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

extension FileSystem {
    /// A directory entry with its `lstat` status.
    package struct ScannedEntry: Sendable {
        package var name: String
        package var status: FileStatus
    }

    /// Lists a directory and stats every entry relative to it (`fstatat`), without building
    /// full paths: the fast path of a status scan.
    package static func scan(directory path: String) throws(SystemError) -> [ScannedEntry] {
        guard let directory = opendir(path) else { throw .current("opendir", path: path) }
        defer { closedir(directory) }
        let descriptor = dirfd(directory)
        var entries: [ScannedEntry] = []
        while let entry = readdir(directory) {
            let result: ScannedEntry? = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { name in
                    if name[0] == 46 && (name[1] == 0 || (name[1] == 46 && name[2] == 0)) { return nil }
                    var info = stat()
                    guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
                    return ScannedEntry(name: String(cString: name), status: FileStatus(info))
                }
            }
            if let result { entries.append(result) }
        }
        return entries
    }
}
