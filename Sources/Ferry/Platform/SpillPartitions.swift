import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte records sorted into partitions and kept in unnamed temporary files, to be read back
/// one partition at a time: how a check over a million records holds one partition's worth
/// instead of all of them.
///
/// Each partition keeps a small buffer in memory and appends it to its file when it fills,
/// so memory is `count × bufferLimit` however much is written. The files are made in the
/// temporary folder (`TMPDIR`, else `/tmp`) and unlinked at once, so nothing is left behind
/// whatever happens to the process. Where no file can be made or written (a read-only or
/// full temporary folder), the records stay in memory: slower to hold, never lost.
///
/// ```swift
/// let spill = SpillPartitions(count: 16)
/// spill.append(to: 3) { bytes in bytes += [1, 2, 3] }
/// spill.forEachRecord(in: 3) { record in /* [1, 2, 3] */ }
/// ```
final class SpillPartitions {
    /// The number of partitions.
    let count: Int
    private let bufferLimit: Int
    private let directory: String
    private var buffers: [[UInt8]]
    private var files: [FileDescriptor?]
    /// The bytes of each partition in its file (the rest is in its buffer).
    private var fileSizes: [Int64]
    /// Partitions whose file could not be made or written: they stay in memory.
    private var inMemory: Set<Int> = []

    /// - Parameters:
    ///   - count: The number of partitions (at least one).
    ///   - bufferLimit: The bytes a partition holds in memory before it writes them out.
    ///   - directory: Where the unnamed files are made.
    init(count: Int, bufferLimit: Int = 16 << 10, directory: String = SpillPartitions.temporaryDirectory) {
        self.count = max(1, count)
        self.bufferLimit = bufferLimit
        self.directory = directory
        buffers = Array(repeating: [], count: self.count)
        files = Array(repeating: nil, count: self.count)
        fileSizes = Array(repeating: 0, count: self.count)
    }

    deinit {
        for file in files { file?.close() }
    }

    /// `TMPDIR`, else `/tmp`. Read with `getenv`: every `SyncOptions()` asks (its spool
    /// folder), and `ProcessInfo.environment` copies the whole environment into a dictionary
    /// each time (5% of a no-op hub sync's time).
    static var temporaryDirectory: String {
        if let value = getenv("TMPDIR").map({ String(cString: $0) }), !value.isEmpty { return value }
        return "/tmp"
    }

    /// Appends one record, whose bytes `write` appends to the buffer it is given.
    func append(to partition: Int, _ write: (inout [UInt8]) -> Void) {
        var buffer = buffers[partition]
        buffers[partition] = []
        let lengthAt = buffer.count
        buffer.append(contentsOf: [0, 0, 0, 0])
        write(&buffer)
        let length = UInt32(truncatingIfNeeded: buffer.count - lengthAt - 4)
        buffer[lengthAt] = UInt8(truncatingIfNeeded: length)
        buffer[lengthAt + 1] = UInt8(truncatingIfNeeded: length >> 8)
        buffer[lengthAt + 2] = UInt8(truncatingIfNeeded: length >> 16)
        buffer[lengthAt + 3] = UInt8(truncatingIfNeeded: length >> 24)
        buffers[partition] = buffer
        if buffers[partition].count >= bufferLimit && !inMemory.contains(partition) { flush(partition) }
    }

    /// Writes a partition's buffer to its file; on any failure the partition stays in memory.
    private func flush(_ partition: Int) {
        if files[partition] == nil {
            guard let file = Self.makeUnnamedFile(in: directory) else {
                inMemory.insert(partition)
                return
            }
            files[partition] = file
        }
        guard let file = files[partition] else { return }
        do {
            try file.writeAll(buffers[partition])
            fileSizes[partition] += Int64(buffers[partition].count)
            buffers[partition].removeAll(keepingCapacity: true)
        } catch {
            // A partial write is cut off, and the records stay in the buffer.
            try? file.truncate(to: fileSizes[partition])
            _ = try? file.seek(to: fileSizes[partition])
            inMemory.insert(partition)
        }
    }

    /// Calls `body` with each record of `partition`, in the order appended, reading its file
    /// a quarter of a megabyte at a time.
    func forEachRecord(in partition: Int, _ body: (UnsafeRawBufferPointer) -> Void) {
        var carry: [UInt8] = []
        if let file = files[partition] {
            var offset: Int64 = 0
            while offset < fileSizes[partition] {
                let want = Int(min(Int64(256 << 10), fileSizes[partition] - offset))
                guard let chunk = try? file.read(at: offset, count: want), !chunk.isEmpty else { break }
                offset += Int64(chunk.count)
                if carry.isEmpty {
                    let used = Self.records(in: chunk, body)
                    carry = Array(chunk[used...])
                } else {
                    carry += chunk
                    let used = Self.records(in: carry, body)
                    carry = Array(carry[used...])
                }
            }
        }
        carry += buffers[partition]
        _ = Self.records(in: carry, body)
    }

    /// Drops a partition's records and its file.
    func discard(_ partition: Int) {
        files[partition]?.close()
        files[partition] = nil
        fileSizes[partition] = 0
        buffers[partition] = []
    }

    /// Calls `body` with each whole record at the start of `bytes`; returns the bytes used.
    private static func records(in bytes: [UInt8], _ body: (UnsafeRawBufferPointer) -> Void) -> Int {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while raw.count - offset >= 4 {
                let length = Int(raw[offset]) | Int(raw[offset + 1]) << 8 | Int(raw[offset + 2]) << 16 | Int(raw[offset + 3]) << 24
                guard raw.count - offset - 4 >= length else { break }
                body(UnsafeRawBufferPointer(rebasing: raw[(offset + 4)..<(offset + 4 + length)]))
                offset += 4 + length
            }
            return offset
        }
    }

    /// A file made in `directory` and unlinked at once.
    private static func makeUnnamedFile(in directory: String) -> FileDescriptor? {
        try? FileSystem.makeUnlinkedFile(in: directory, prefix: "ferry-spill")
    }
}

extension FileSystem {
    /// A new file in `directory`, open for reading and writing, whose name (`<prefix>-XXXXXX`)
    /// is removed at once: it has no name to leave behind whatever happens to the process, and
    /// goes when its descriptor is closed. For scratch data that must not be held in memory.
    /// - Throws: ``SystemError`` when no file can be made there.
    static func makeUnlinkedFile(in directory: String, prefix: String) throws(SystemError) -> FileDescriptor {
        var template = Array((directory + "/" + prefix + "-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return mkstemp(base)
        }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard fd >= 0 else { throw .current("mkstemp", path: path) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        unlink(path)
        return FileDescriptor(rawValue: fd, path: path)
    }
}
