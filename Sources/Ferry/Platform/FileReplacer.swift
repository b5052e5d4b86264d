#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces existing files atomically without allocating a new inode for each one.
///
/// The usual way (write a temporary file, rename it over the old one) creates a file and
/// frees one per replacement. On ext4 without a journal, allocating an inode skips every inode
/// freed in the last minute, so a run of replacements a few seconds after the last one costs
/// several times a plain write, and the rename over an existing file also starts write-back
/// of the new one (`auto_da_alloc`).
///
/// On Linux this type keeps one spare file (`sparePath`, on the same file system). Each
/// replacement writes the new bytes into the spare, then swaps it with the target in one
/// `renameat2(RENAME_EXCHANGE)`: a reader of `path` sees the old file or the new, never half
/// of either, as with a rename. The old file's inode, now under the spare's name, becomes the
/// spare for the next replacement. It is only reused when nobody can still be reading it: it
/// has no other link (a hard-linked backup keeps its content), and a write lease
/// (`F_SETLEASE`, taken so that its breaking signals nobody: see `takeQuietWriteLease`)
/// proves that no other process holds it open. Otherwise, on other systems,
/// and on file systems without exchange or leases, a replacement is a temporary file and a
/// rename, as ``FileSystem/writeFileAtomically(_:_:durable:)`` does.
///
/// Not durable by itself: callers rely on a journal that can repair the files.
package final class FileReplacer {
    /// Where the spare file lives; must be on the same file system as the replaced files.
    package let sparePath: String
    /// Cleared after the first sign that this file system cannot exchange or lease.
    private var canExchange: Bool
    /// The mode a new file gets here (0644 less the umask), learnt from the first spare.
    private var expectedMode: mode_t?

    /// A replacer whose spare file lives at `sparePath` (created when first needed).
    package init(sparePath: String) {
        self.sparePath = sparePath
        #if os(Linux)
        canExchange = FileReplacer.renameExchange != nil
        #else
        canExchange = false
        #endif
    }

    /// Replaces (or creates) the file at `path` with `bytes`.
    /// - Returns: the status of the new file.
    @discardableResult
    package func replace(_ path: String, with bytes: [UInt8]) throws(SystemError) -> FileStatus {
        #if os(Linux)
        if canExchange, let status = try exchange(path, bytes) { return status }
        #endif
        return try FileSystem.writeFileAtomically(path, bytes, durable: false)
    }

    #if os(Linux)
    private static let leaseCommand: Int32 = 1024  // F_SETLEASE (F_LINUX_SPECIFIC_BASE)
    private static let setSignalCommand: Int32 = 10  // F_SETSIG (asm-generic), not in Swift's Glibc
    private static let writeLease: Int32 = 1  // F_WRLCK
    private static let unlock: Int32 = 2  // F_UNLCK
    private static let exchangeFlag: UInt32 = 2  // RENAME_EXCHANGE

    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    /// glibc's `renameat2` (2.28 and later), which Swift's Glibc module does not import.
    private static let renameExchange: RenameAt2? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
    }()

    /// The exchange path; `nil` when it does not apply here, so the caller renames instead.
    private func exchange(_ path: String, _ bytes: [UInt8]) throws(SystemError) -> FileStatus? {
        guard let renameExchange = FileReplacer.renameExchange else { return nil }
        // Only a regular file is swapped out; anything else takes the rename path, which
        // fails on a directory as it always did.
        var target = stat()
        let targetExists = lstat(path, &target) == 0
        if targetExists && (target.st_mode & S_IFMT) != S_IFREG { return nil }
        guard let spare = try openSpare() else { return nil }
        let status: FileStatus
        do throws(SystemError) {
            status = try spare.closeAfter { () throws(SystemError) -> FileStatus in
                try spare.writeAll(bytes)  // a fresh descriptor writes from offset 0
                try spare.truncate(to: Int64(bytes.count))
                return try spare.status()
            }
        } catch {
            try? FileSystem.removeFile(sparePath)
            throw error
        }
        if targetExists {
            if renameExchange(AT_FDCWD, sparePath, AT_FDCWD, path, FileReplacer.exchangeFlag) == 0 { return status }
            let code = errno
            if code == EINVAL || code == ENOSYS || code == EXDEV || code == EOPNOTSUPP {
                canExchange = false  // no exchange here (or another file system): rename instead
                return nil
            }
            if code != ENOENT { throw SystemError("rename", path: path, code: code) }
        }
        // Nothing to exchange with: the spare simply becomes the file.
        if rename(sparePath, path) == 0 { return status }
        let code = errno
        if code == EXDEV {
            canExchange = false  // the records are on another file system than the spare
            return nil
        }
        throw SystemError("rename", path: path, code: code)
    }

    /// Opens the spare for writing: the old one when nobody else can see it, else a new one.
    /// `nil` when this file system cannot prove an old one unused (no leases).
    private func openSpare() throws(SystemError) -> FileDescriptor? {
        if let expectedMode {
            let fd = retryingOnInterrupt { Glibc_open(sparePath, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0) }
            if fd >= 0 {
                let file = FileDescriptor(rawValue: fd, path: sparePath)
                var info = stat()
                let reusable = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_nlink == 1
                let code = reusable ? FileReplacer.takeQuietWriteLease(fd) : 0
                if reusable && code == 0 {
                    // The lease lasts until the descriptor is closed. A record file the user
                    // chmod'ed must not pass its mode on to the next record.
                    if (info.st_mode & 0o7777) != expectedMode { _ = fchmod(fd, expectedMode) }
                    return file
                }
                file.close()
                if reusable && code != EAGAIN && code != EBUSY {
                    canExchange = false  // leases are off or unsupported here
                    return nil
                }
                // Open or linked elsewhere: leave that inode to its readers.
            } else if errno == ENOENT {
                return try createSpare()
            }
        }
        // The first use in this process (the spare left by another may be anything), or the
        // old spare is not ours to reuse.
        try? FileSystem.removeFile(sparePath)
        return try createSpare()
    }

    /// Takes a write lease on `fd` whose breaking can never end the process. Returns 0, or the
    /// `errno` of the step that failed (then no lease is held).
    ///
    /// When another open meets a lease (another process reading the spare, or this process
    /// opening it again while a child spawned meanwhile still holds a copy of the leased
    /// descriptor until its `exec`), the kernel tells the lease's owner with a signal, SIGIO
    /// unless `F_SETSIG` says otherwise, and SIGIO's default action ends the process: a test
    /// run spawning processes beside its stores was killed that way. So the signal is made
    /// SIGURG (ignored by default) before the lease is taken, and the owner, which taking the
    /// lease sets to this process, is cleared right after: a broken lease then signals nobody,
    /// and the opener simply waits (or, non-blocking, gets `EAGAIN`) until the descriptor is
    /// closed, a few microseconds later.
    static func takeQuietWriteLease(_ fd: Int32) -> Int32 {
        guard fcntl(fd, setSignalCommand, SIGURG) == 0 else { return errno }
        guard fcntl(fd, leaseCommand, writeLease) == 0 else { return errno }
        guard fcntl(fd, F_SETOWN, 0) == 0 else {
            let code = errno
            _ = fcntl(fd, leaseCommand, unlock)
            return code
        }
        return 0
    }

    /// A fresh spare: nobody else has it open, so it needs no lease.
    private func createSpare() throws(SystemError) -> FileDescriptor {
        let file = try FileDescriptor.open(sparePath, .writeOnly, options: [.create, .exclusive], permissions: 0o644)
        var info = stat()
        if fstat(file.rawValue, &info) == 0 { expectedMode = info.st_mode & 0o7777 }
        return file
    }
    #endif
}
