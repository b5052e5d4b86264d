#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says of a file: enough to notice that it changed.
package struct FileStatus: Sendable, Hashable {
    package enum Kind: Sendable { case regular, directory, symbolicLink, other }

    package var size: Int64
    /// Modification time in nanoseconds since 1970.
    package var modificationNanoseconds: Int64
    package var kind: Kind
    /// Inode number, so a replaced file is noticed even with equal size and time.
    package var inode: UInt64
    /// The device the file is on: with the inode, which file this is.
    package var device: UInt64

    package init(size: Int64, modificationNanoseconds: Int64, kind: Kind, inode: UInt64, device: UInt64 = 0) {
        self.size = size
        self.modificationNanoseconds = modificationNanoseconds
        self.kind = kind
        self.inode = inode
        self.device = device
    }

    init(_ info: stat) {
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        size = Int64(info.st_size)
        modificationNanoseconds = Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
        inode = UInt64(info.st_ino)
        device = UInt64(info.st_dev)
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
    }
}
