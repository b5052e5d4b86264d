#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileSystem {
    /// The file system's own clock in `directory`: the modification time a file made there
    /// now gets, read from a file that is made and dropped at once (unnamed on Linux, so the
    /// directory does not change). `nil` when no file can be made there.
    ///
    /// A file system stamps times from its own clock, which on a network share is the
    /// server's and on any file system is only as fine as its granularity (a jiffy on ext4,
    /// two seconds on FAT); comparing a file's modification time with this one, not with the
    /// local clock, is what tells whether a later change would move it.
    package static func fileSystemTime(inDirectory directory: String) -> Int64? {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        if let (file, status) = try? makeUnnamedFile(inDirectory: directory, []) {
            file.close()
            return status.modificationNanoseconds
        }
        #endif
        let path = directory + "/.tmp-clock-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard let file = try? FileDescriptor.open(path, .writeOnly, options: [.create, .exclusive]) else { return nil }
        defer {
            file.close()
            try? removeFile(path)
        }
        return (try? file.status())?.modificationNanoseconds
    }

    /// Waits, a millisecond at a time and for at most `limit` milliseconds, until the file
    /// system's clock in `directory` is past `time`; returns whether it got there.
    package static func waitForFileSystemClock(toPass time: Int64, inDirectory directory: String, limit: Int = 50) -> Bool {
        for attempt in 0...limit {
            guard let now = fileSystemTime(inDirectory: directory) else { return false }
            if now > time { return true }
            if attempt < limit { usleep(1000) }
        }
        return false
    }
}
