#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the kernel says happened in watched directories (inotify on Linux): the one place Ferry
/// learns of a change without looking.
///
/// ```swift
/// let events = try DirectoryEvents()
/// try events.watch("/data/notes/records/Note")
/// for event in try events.read(timeout: .seconds(1), wakeup: nil) { print(event.path) }
/// ```
///
/// The kernel queues events until they are read; when its queue (fs.inotify.max_queued_events,
/// 16,384 by default) fills, later events are dropped and one ``Event/Kind/overflow`` event says
/// so: the reader must then look at everything once. On platforms without inotify,
/// ``init()`` throws ``SystemError`` with `ENOSYS` and callers fall back to scanning.
package final class DirectoryEvents: @unchecked Sendable {
    /// One thing that happened.
    package struct Event: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            /// A file was written and closed, created (a link to a file written unnamed, too), or
            /// renamed into the directory; or, where modifications are watched, written to.
            case written
            /// A file was deleted or renamed out of the directory.
            case removed
            /// A directory was created or renamed in (watch it too), or removed.
            case directoryAdded, directoryRemoved
            /// The kernel's queue overflowed: events were lost.
            case overflow
        }

        package var kind: Kind
        /// The full path concerned ("" for an overflow).
        package var path: String
    }

    /// The inotify descriptor, readable when events wait: for an ``EventPoll``.
    package let descriptor: Int32
    /// Watched directories by watch descriptor.
    private var directories: [Int32: String] = [:]
    /// The watches that report every write (``watch(_:modifications:)``).
    private var modificationWatches: Set<Int32> = []

    #if os(Linux)
    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF)
        | UInt32(IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW) | UInt32(IN_EXCL_UNLINK)
    #endif

    /// Called as each instance opens, in the task that binds it: how a test tells that a path
    /// opens none (closing one that watched anything waits for the kernel's fsnotify grace
    /// period, milliseconds usually, seconds on a busy machine).
    @TaskLocal package static var openingObserver: (@Sendable () -> Void)?

    /// Opens an inotify instance (non-blocking, close-on-exec).
    package init() throws(SystemError) {
        #if os(Linux)
        Self.openingObserver?()
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { throw .current("inotify_init1", path: nil) }
        #else
        throw SystemError("inotify", path: nil, code: ENOSYS)
        #endif
    }

    deinit {
        _ = close(descriptor)
    }

    /// Watches `directory` (not what is under it: a new subdirectory is reported, and is the
    /// caller's to watch). Returns `false` when it is gone or is not a directory (or a link).
    /// - Parameter modifications: whether every write to a file open there is reported too (a
    ///   journal appended to through a descriptor kept open), not only its close.
    @discardableResult
    package func watch(_ directory: String, modifications: Bool = false) throws(SystemError) -> Bool {
        #if os(Linux)
        let watch = inotify_add_watch(descriptor, directory, Self.mask | (modifications ? UInt32(IN_MODIFY) : 0))
        guard watch >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return false }
            throw .current("inotify_add_watch", path: directory)
        }
        directories[watch] = directory
        if modifications { modificationWatches.insert(watch) } else { modificationWatches.remove(watch) }
        return true
        #else
        return false
        #endif
    }

    /// The events the kernel holds, waiting up to `timeout` for the first (`nil`: for ever),
    /// or until `wakeup` (a descriptor such as a ``WakeupPipe``'s) is readable; empty then.
    package func read(timeout: Duration?, wakeup: Int32?) throws(SystemError) -> [Event] {
        let ready = try Poll.waitForReadable([descriptor] + (wakeup.map { [$0] } ?? []), timeout: timeout)
        guard ready[0] else { return [] }
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc_readEvents(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                throw .current("read", path: "inotify")
            }
            if count == 0 { break }
            parse(buffer[0..<count], into: &events)
        }
        return events
    }

    /// Events from a buffer of `struct inotify_event`s: a 16-byte header (watch, mask,
    /// cookie, name length) and a NUL-padded name.
    private func parse(_ bytes: ArraySlice<UInt8>, into events: inout [Event]) {
        #if os(Linux)
        var offset = bytes.startIndex
        func word(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        while offset + 16 <= bytes.endIndex {
            let watch = Int32(bitPattern: word(offset))
            let mask = word(offset + 4)
            let nameLength = Int(word(offset + 12))
            let nameEnd = min(offset + 16 + nameLength, bytes.endIndex)
            let name = String(decoding: bytes[(offset + 16)..<nameEnd].prefix { $0 != 0 }, as: UTF8.self)
            offset = nameEnd
            if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                events.append(Event(kind: .overflow, path: ""))
                continue
            }
            guard let directory = directories[watch] else { continue }
            if mask & UInt32(IN_IGNORED) != 0 || mask & UInt32(IN_DELETE_SELF) != 0 {
                directories[watch] = nil
                modificationWatches.remove(watch)
                if mask & UInt32(IN_DELETE_SELF) != 0 { events.append(Event(kind: .directoryRemoved, path: directory)) }
                continue
            }
            // Where every write is reported, a close is news only after a write, which was
            // reported: a file opened for writing and closed untouched (a store opened for a
            // sync that wrote nothing) changed nothing.
            if modificationWatches.contains(watch) && mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_MODIFY | IN_DELETE | IN_MOVED_FROM) == 0 {
                continue
            }
            let path = directory + "/" + name
            let isDirectory = mask & UInt32(IN_ISDIR) != 0
            switch (isDirectory, mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY) != 0) {
            case (true, true): events.append(Event(kind: .directoryAdded, path: path))
            case (true, false): events.append(Event(kind: .directoryRemoved, path: path))
            case (false, true): events.append(Event(kind: .written, path: path))
            case (false, false): events.append(Event(kind: .removed, path: path))
            }
        }
        #endif
    }
}

@inline(__always) private func Glibc_readEvents(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
