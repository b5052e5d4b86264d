#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file: a thin, typed wrapper over a POSIX descriptor. Every call retries `EINTR`
/// and throws ``SystemError`` naming the path.
///
/// ```swift
/// let file = try FileDescriptor.open(path, .writeOnly, options: [.create, .append])
/// try file.closeAfter { try file.writeAll(bytes); try file.synchronize() }
/// ```
public struct FileDescriptor: Sendable {
    /// The raw descriptor.
    public let rawValue: Int32
    /// The path it was opened with, for error messages.
    public let path: String

    /// How the file is opened.
    public enum AccessMode: Sendable { case readOnly, writeOnly, readWrite }

    /// Extra `open` flags.
    public struct Options: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let create = Options(rawValue: O_CREAT)
        public static let exclusive = Options(rawValue: O_EXCL)
        public static let truncate = Options(rawValue: O_TRUNC)
        public static let append = Options(rawValue: O_APPEND)
        public static let directory = Options(rawValue: O_DIRECTORY)
    }

    /// Opens `path`; the descriptor is close-on-exec.
    public static func open(
        _ path: String, _ mode: AccessMode, options: Options = [], permissions: UInt32 = 0o644
    ) throws(SystemError) -> FileDescriptor {
        var flags: Int32 = O_CLOEXEC | options.rawValue
        switch mode {
        case .readOnly: flags |= O_RDONLY
        case .writeOnly: flags |= O_WRONLY
        case .readWrite: flags |= O_RDWR
        }
        let fd = retryingOnInterrupt { Glibc_open(path, flags, mode_t(permissions)) }
        guard fd >= 0 else { throw .current("open", path: path) }
        return FileDescriptor(rawValue: fd, path: path)
    }

    /// Closes the descriptor. Errors from `close` are ignored: the data is either already
    /// synchronized or was never promised.
    public func close() {
        _ = Glibc_close(rawValue)
    }

    /// Runs `body`, then closes the descriptor, even when `body` throws.
    public func closeAfter<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        defer { close() }
        return try body()
    }

    /// Writes every byte, looping over short writes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = retryingOnInterrupt {
                Glibc_write(rawValue, bytes.baseAddress! + offset, bytes.count - offset)
            }
            guard written > 0 else { throw .current("write", path: path) }
            offset += written
        }
    }

    /// Writes every byte of an array.
    public func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        if bytes.isEmpty { return }
        let failure: SystemError? = bytes.withUnsafeBytes { buffer in
            do throws(SystemError) { try writeAll(buffer); return nil } catch { return error }
        }
        if let failure { throw failure }
    }

    /// Reads up to `count` bytes at the current position; an empty result means end of file.
    public func read(upTo count: Int) throws(SystemError) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        let got = result.withUnsafeMutableBytes { buffer in
            retryingOnInterrupt { Glibc_read(rawValue, buffer.baseAddress!, count) }
        }
        guard got >= 0 else { throw .current("read", path: path) }
        result.removeLast(count - got)
        return result
    }

    /// Reads `count` bytes at `offset` (fewer only at end of file).
    public func read(at offset: Int64, count: Int) throws(SystemError) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = result.withUnsafeMutableBytes { buffer in
                retryingOnInterrupt {
                    pread(rawValue, buffer.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
                }
            }
            guard got >= 0 else { throw .current("read", path: path) }
            if got == 0 { break }
            filled += got
        }
        result.removeLast(count - filled)
        return result
    }

    /// Reads from the current position to end of file.
    public func readToEnd() throws(SystemError) -> [UInt8] {
        let size = try status().size
        var result: [UInt8] = []
        result.reserveCapacity(Int(max(size, 0)) + 1)
        while true {
            let chunk = try read(upTo: max(65_536, Int(size) - result.count + 1))
            if chunk.isEmpty { break }
            result += chunk
        }
        return result
    }

    /// Flushes the file's data and metadata to stable storage (`fsync`, or `F_FULLFSYNC` on Apple
    /// platforms, where plain `fsync` does not reach the disk).
    public func synchronize() throws(SystemError) {
        #if canImport(Darwin)
        if fcntl(rawValue, F_FULLFSYNC) == 0 { return }
        #endif
        guard retryingOnInterrupt({ fsync(rawValue) }) == 0 else { throw .current("fsync", path: path) }
    }

    /// Cuts the file to `size` bytes.
    public func truncate(to size: Int64) throws(SystemError) {
        guard retryingOnInterrupt({ ftruncate(rawValue, off_t(size)) }) == 0 else {
            throw .current("ftruncate", path: path)
        }
    }

    /// Moves the position to `offset` from the start; returns it.
    @discardableResult
    public func seek(to offset: Int64) throws(SystemError) -> Int64 {
        let result = lseek(rawValue, off_t(offset), SEEK_SET)
        guard result >= 0 else { throw .current("lseek", path: path) }
        return Int64(result)
    }

    /// Moves the position to end of file; returns it.
    @discardableResult
    public func seekToEnd() throws(SystemError) -> Int64 {
        let result = lseek(rawValue, 0, SEEK_END)
        guard result >= 0 else { throw .current("lseek", path: path) }
        return Int64(result)
    }

    /// `fstat`: size, modification time and kind.
    package func status() throws(SystemError) -> FileStatus {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw .current("fstat", path: path) }
        return FileStatus(info)
    }

    /// `fstatat` of an entry of this directory, links not followed: resolving one name instead
    /// of a whole path. `name` is NUL-terminated; `nil` when there is no such entry.
    package func status(ofEntry name: [UInt8]) throws(SystemError) -> FileStatus? {
        var info = stat()
        let result = name.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { fstatat(rawValue, $0.baseAddress!, &info, AT_SYMLINK_NOFOLLOW) }
        }
        if result == 0 { return FileStatus(info) }
        let error = SystemError.current("stat", path: path + "/" + String(decoding: name.prefix { $0 != 0 }, as: UTF8.self))
        if error.isNotFound || error.code == ENOTDIR { return nil }
        throw error
    }

    /// Takes an exclusive advisory lock (`flock`). Returns `false` when another open file holds
    /// it and `wait` is false.
    public func lockExclusively(wait: Bool) throws(SystemError) -> Bool {
        let operation = LOCK_EX | (wait ? 0 : LOCK_NB)
        if retryingOnInterrupt({ flock(rawValue, operation) }) == 0 { return true }
        let error = SystemError.current("flock", path: path)
        if error.isWouldBlock { return false }
        throw error
    }
}

// Aliases that keep the C functions apart from the methods of the same names.
@inline(__always) func Glibc_open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}
@inline(__always) private func Glibc_close(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) private func Glibc_write(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
@inline(__always) private func Glibc_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}
