import Foundation

/// The ``HandEditMonitor``s running in this process, by the folder each publishes in
/// (`.ferry/watch/`, known by device and inode, so any spelling of the store's path finds it).
///
/// ```swift
/// if let monitor = RunningHandEditMonitors.shared.monitor(publishingIn: layout.handEditMonitor) {
///     // wait for the cookie's answer on the monitor itself
/// }
/// ```
///
/// A status or commit whose store is watched from this very process (a `ferry sync --watch`,
/// an app holding ``LiveSync``) asks the monitor here and waits on it, instead of opening an
/// inotify instance of its own to learn that the state was published. That matters beyond the
/// few system calls saved: closing an inotify instance waits for the kernel's fsnotify grace
/// period (`synchronize_srcu`), which on a busy machine has taken seconds, and every round of a
/// live sync would pay it with the store's lock held. The monitor and its consumers still meet
/// through the store folder (the cookie file, the published state); this table is only the
/// in-process shortcut to the same rendezvous, one per process as the kernel's own tables are.
final class RunningHandEditMonitors: @unchecked Sendable {
    /// The monitors of this process.
    static let shared = RunningHandEditMonitors()

    /// A folder, as the kernel knows it.
    struct Folder: Hashable {
        var device: UInt64
        var inode: UInt64

        /// The folder at `path`; `nil` when there is none.
        init?(at path: String) {
            guard let status = try? FileSystem.status(path), status.kind == .directory else { return nil }
            device = status.device
            inode = status.inode
        }
    }

    private struct Entry {
        weak var monitor: HandEditMonitor?
    }

    private let lock = NSLock()
    private var monitors: [Folder: Entry] = [:]

    /// Notes that `monitor` publishes in `folder` from now on.
    func add(_ monitor: HandEditMonitor, publishingIn folder: Folder) {
        lock.withLock { monitors[folder] = Entry(monitor: monitor) }
    }

    /// Forgets `monitor` (a stopped one answers nobody).
    func remove(_ monitor: HandEditMonitor, publishingIn folder: Folder) {
        lock.withLock {
            if monitors[folder]?.monitor === monitor || monitors[folder]?.monitor == nil { monitors[folder] = nil }
        }
    }

    /// The monitor of this process that publishes in the folder at `path`, if one runs.
    func monitor(publishingIn path: String) -> HandEditMonitor? {
        guard let folder = Folder(at: path) else { return nil }
        return lock.withLock { monitors[folder]?.monitor }
    }
}
