import Foundation

/// Tells, without scanning, which record files of a store changed and whether its journal
/// grew: the kernel reports each write, rename and delete under `records/` and in `journal/`
/// (``DirectoryEvents``, inotify on Linux), and a thread of the watcher's own reads them as they
/// come, so that a burst of writes does not fill the kernel's queue.
///
/// ```swift
/// let watcher = try StoreWatcher(storeAt: "notes")
/// while let changes = watcher.nextChanges(timeout: .seconds(30)) {
///     if changes.needsScan { /* events were lost: look at everything once */ }
///     for key in changes.recordFiles { print("changed by hand or by Ferry:", key) }
/// }
/// ```
///
/// Changes gather until taken, as a set (one entry per record file however often it changed),
/// so memory grows with the files changed, not with the events. When the kernel's queue
/// overflows, the next changes say ``Changes/needsScan`` with the reason, and callers scan once.
/// Call ``stop()`` when done: the reading thread holds the watcher until then.
public final class StoreWatcher: @unchecked Sendable {
    /// What changed since the last ``nextChanges(timeout:)``.
    public struct Changes: Sendable, Equatable {
        /// Record files written, created, renamed or deleted (by Ferry or by anyone else).
        public var recordFiles: Set<RecordKey> = []
        /// Whether the journal was written (a change committed here or received).
        public var journalChanged = false
        /// Why the events do not tell everything (the kernel dropped some; a folder could not
        /// be watched): the caller must scan once. `nil` when they do.
        public var rescanReason: String?
        /// Whether something under `records/` that is no record file was created, written or
        /// removed (an editor's swap file, a folder that is not an entity's): a scan reports
        /// such names as problems, so whoever skips scanning must look once.
        public var otherFilesChanged = false
        /// The cookie files dropped since, by name (only with a cookie folder, see
        /// ``init(storeAt:cookieFolder:fileModifications:)``).
        public var cookies: Set<String> = []

        public var needsScan: Bool { rescanReason != nil }
        public var isEmpty: Bool {
            recordFiles.isEmpty && !journalChanged && rescanReason == nil && !otherFilesChanged && cookies.isEmpty
        }

        /// Adds `other`'s changes to these (the first rescan reason kept).
        public mutating func merge(_ other: Changes) {
            recordFiles.formUnion(other.recordFiles)
            journalChanged = journalChanged || other.journalChanged
            if rescanReason == nil { rescanReason = other.rescanReason }
            otherFilesChanged = otherFilesChanged || other.otherFilesChanged
            cookies.formUnion(other.cookies)
        }
    }

    private let layout: StoreLayout
    /// What under `records/` is no change of note (an editor's swap file): as the store's
    /// `.ferryignore` was when the watch began; the built-in list alone if it could not be read
    /// (its files then cost a scan, never a missed edit).
    private let ignoreRules: IgnoreRules
    private let cookieFolder: String?
    private let fileModifications: Bool
    private let events: DirectoryEvents
    private let stopping: WakeupPipe
    private let lock = NSCondition()
    private var pending = Changes()
    private var stopped = false
    private var reader: Thread?
    /// A task waiting in ``changes()``.
    private var waiter: CheckedContinuation<Changes?, Never>?

    /// Starts watching the store at `path`: `records/` and every folder under it, and
    /// `journal/`. Throws when the platform has no inotify (callers fall back to scanning).
    /// - Parameters:
    ///   - cookieFolder: a folder to watch too, whose new files are reported by name in
    ///     ``Changes/cookies``: a file dropped there after a change is reported with it or
    ///     after it (the kernel queues both in order), which is how a reader knows it has
    ///     heard of every change made before it asked (see ``HandEditMonitor``).
    ///   - fileModifications: whether each write to a record file is reported, not only its
    ///     close: an edit in progress is then known before the editor closes the file.
    public init(storeAt path: String, cookieFolder: String? = nil, fileModifications: Bool = false) throws(SystemError) {
        layout = StoreLayout(root: path)
        ignoreRules = (try? IgnoreRules.load(storeRoot: path)) ?? IgnoreRules()
        self.cookieFolder = cookieFolder
        self.fileModifications = fileModifications
        events = try DirectoryEvents()
        stopping = try WakeupPipe()
        try events.watch(layout.journal, modifications: true)
        if let cookieFolder, try !events.watch(cookieFolder) {
            throw SystemError("inotify_add_watch", path: cookieFolder, code: ENOENT)
        }
        try events.watchTree(layout.records, modifications: fileModifications)
        let thread = Thread { [self] in readEvents() }
        thread.name = "ferry-store-watcher"
        reader = thread
        thread.start()
    }

    deinit {
        stopping.signal()
    }

    /// Waits up to `timeout` for changes, then takes all that gathered; `nil` once stopped.
    /// Returns empty changes when nothing happened in time.
    public func nextChanges(timeout: Duration) -> Changes? {
        let (seconds, attoseconds) = timeout.components
        let deadline = Date().addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
        lock.lock()
        defer { lock.unlock() }
        while pending.isEmpty && !stopped {
            if !lock.wait(until: deadline) { break }
        }
        return takeLocked()
    }

    /// Waits, without holding a thread, until changes gather, then takes them; `nil` once
    /// stopped. Empty changes when the task is cancelled. One task at a time may wait.
    public func changes() async -> Changes? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Changes?, Never>) in
                lock.lock()
                defer { lock.unlock() }
                if !pending.isEmpty || stopped || Task.isCancelled {
                    continuation.resume(returning: takeLocked())
                } else {
                    waiter?.resume(returning: Changes())
                    waiter = continuation
                }
            }
        } onCancel: {
            lock.lock()
            let cancelled = waiter
            waiter = nil
            lock.unlock()
            cancelled?.resume(returning: Changes())
        }
    }

    /// Whether the reading thread still runs (for the tests that check a watcher's owner stops it).
    var isReading: Bool { reader?.isFinished == false }

    /// Stops the reading thread; ``nextChanges(timeout:)`` then returns what gathered, then `nil`.
    public func stop() {
        stopping.signal()
        lock.lock()
        stopped = true
        let waiting = waiter
        waiter = nil
        let taken = waiting == nil ? nil : takeLocked()
        lock.broadcast()
        lock.unlock()
        waiting?.resume(returning: taken)
    }

    /// What gathered, taken (`nil` when stopped and nothing gathered); the lock is held.
    private func takeLocked() -> Changes? {
        if stopped && pending.isEmpty { return nil }
        let taken = pending
        pending = Changes()
        return taken
    }

    private func readEvents() {
        do {
            try events.readUntilStopped(by: stopping) { batch in
                var changes = Changes()
                for event in batch { take(event, into: &changes) }
                record { $0.merge(changes) }
            }
        } catch {
            record { $0.rescanReason = "the store's watcher stopped reading events (\(error))" }
        }
    }

    /// What one event means for the store (internal for the tests of what the kernel rarely does).
    func take(_ event: DirectoryEvents.Event, into changes: inout Changes) {
        switch event.kind {
        case .overflow:
            changes.rescanReason = "the kernel's event queue overflowed (fs.inotify.max_queued_events): some changes were not reported"
        case .directoryAdded:
            // Files written into it before its watch starts are found by the walk.
            if event.path.hasPrefix(layout.records + "/") {
                do { try events.watchTree(event.path, modifications: fileModifications) } catch {
                    changes.rescanReason = "\(event.path) could not be watched (\(error))"
                }
                if !isRecordFolder(event.path) { changes.otherFilesChanged = true }
                changes.recordFiles.formUnion(recordKeys(under: event.path, changes: &changes))
            }
        case .directoryRemoved:
            if event.path == layout.records || event.path == layout.journal {
                changes.rescanReason = "\(event.path) was removed"
            } else if event.path.hasPrefix(layout.records + "/") {
                // Every record it held is gone; which ones is for a scan to say.
                changes.rescanReason = "\(event.path) was removed"
            }
        case .written, .removed:
            if event.path.hasPrefix(layout.journal + "/") {
                changes.journalChanged = true
            } else if let key = recordKey(at: event.path) {
                changes.recordFiles.insert(key)
            } else if let cookieFolder, FileSystem.parentPath(of: event.path) == cookieFolder {
                let name = FileSystem.lastComponent(of: event.path)
                if event.kind == .written && !name.hasPrefix(".tmp-") { changes.cookies.insert(name) }
            } else if event.path.hasPrefix(layout.records + "/") && !FileSystem.lastComponent(of: event.path).hasPrefix(".tmp-")
                && !isIgnored(event.path)
            {
                changes.otherFilesChanged = true
            }
        }
    }

    /// The record a path under `records/` names; `nil` for anything else (temporary files,
    /// editor files, names that are not record files).
    private func recordKey(at path: String) -> RecordKey? {
        guard path.hasPrefix(layout.records + "/") else { return nil }
        let relative = path.dropFirst(layout.records.count + 1)
        guard let slash = relative.firstIndex(of: "/"), let entity = try? EntityName(String(relative[..<slash])),
              let id = RecordFileName.id(fromRelativePath: String(relative[relative.index(after: slash)...]))
        else { return nil }
        return RecordKey(entity: entity, id: id)
    }

    /// Whether the file at `path` (under `records/`) is one a scan passes over.
    private func isIgnored(_ path: String) -> Bool {
        ignoreRules.ignores(String(path.dropFirst(layout.root.count + 1)))
    }

    /// Whether a folder under `records/` is one Ferry makes: an entity's, or a folder of long
    /// ids in one (`<piece>~`).
    private func isRecordFolder(_ path: String) -> Bool {
        let relative = path.dropFirst(layout.records.count + 1)
        guard let slash = relative.firstIndex(of: "/") else { return (try? EntityName(String(relative))) != nil }
        return (try? EntityName(String(relative[..<slash]))) != nil && relative.hasSuffix("~")
    }

    /// The record files under a folder that appeared; anything else there is noted in `changes`.
    private func recordKeys(under directory: String, changes: inout Changes) -> Set<RecordKey> {
        var keys = Set<RecordKey>()
        for entry in (try? FileSystem.contents(ofDirectory: directory)) ?? [] {
            let path = directory + "/" + entry.name
            if entry.kind == .directory {
                if !isRecordFolder(path) { changes.otherFilesChanged = true }
                keys.formUnion(recordKeys(under: path, changes: &changes))
            } else if let key = recordKey(at: path) {
                keys.insert(key)
            } else if !entry.name.hasPrefix(".tmp-") && !isIgnored(path) {
                changes.otherFilesChanged = true
            }
        }
        return keys
    }

    private func record(_ change: (inout Changes) -> Void) {
        lock.lock()
        change(&pending)
        let waiting = waiter
        waiter = nil
        let taken = waiting == nil ? nil : takeLocked()
        lock.broadcast()
        lock.unlock()
        waiting?.resume(returning: taken)
    }
}
