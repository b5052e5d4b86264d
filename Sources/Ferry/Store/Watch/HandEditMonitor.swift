import Foundation

/// Keeps, while it runs, the record files of a store touched since the last `status`, so that
/// `ferry status` and a default `ferry sync` look at those files only, not the whole tree
/// (git's fsmonitor, Watchman's cookies).
///
/// ```swift
/// let monitor = try store.startHandEditMonitor()   // or HandEditMonitor(storeAt: "notes")
/// defer { monitor.stop() }
/// // … status(), commit() and every sync of this store, in any process, now ask it first.
/// ```
///
/// It publishes ``HandEditMonitorState`` in `.ferry/watch/state.json` (temp file + rename,
/// never in place): its pid, a random generation, a sequence that grows with each publish, and
/// each record key touched with the publish that saw it. It publishes only when the kernel
/// reported something, gathering changes for up to ``batchInterval`` between publishes, and
/// answers a cookie at once. A consumer (``Store/status(progress:)``) drops a cookie file in
/// `.ferry/watch/cookies/` and waits until the state names it: the kernel queued every change
/// made before the cookie ahead of it, so those changes are in that state. The cookie's name
/// carries the point the consumer is at, and the keys touched before it are forgotten: the set
/// stays as small as what changed since the last `status`. A consumer learns that the state
/// was replaced from the monitor itself when it runs in the same process
/// (``RunningHandEditMonitors``), else from its doorbell (``HandEditMonitorDoorbell``).
///
/// When the kernel dropped events, or the set outgrows ``keyLimit``, it starts a new
/// generation: a consumer then cannot use what it knew, and scans once. When the monitor dies,
/// its pid says so, and consumers scan. One monitor per store: a second one throws
/// ``HandEditMonitorError/alreadyRunning(store:pid:)``, which a caller may ignore (the first
/// serves everyone).
public final class HandEditMonitor: @unchecked Sendable {
    /// What the monitor did, for a caller that reports it (`ferry watch -v`).
    public enum Event: Sendable {
        /// A publish of `sequence`, naming `records` record files touched (Ferry's own writes
        /// too: a consumer compares each with the index).
        case published(sequence: UInt64, records: Int)
        /// A new generation began because the old one could no longer tell everything.
        case restarted(reason: String)
        /// The state could not be written (consumers that wait for it time out and scan).
        case publishFailed(SystemError)
    }

    /// The longest a change waits for others to be published with it.
    public static let batchInterval: Duration = .milliseconds(50)
    /// The most record keys published before the monitor starts a new generation instead.
    public let keyLimit: Int

    private let layout: StoreLayout
    private let watcher: StoreWatcher
    private let lockFile: FileDescriptor
    private let onEvent: (@Sendable (Event) -> Void)?
    /// Owned by the publishing thread once it starts.
    private var state: HandEditMonitorState
    private let finished = NSCondition()
    private var running = true
    private var stopRequested = false
    /// The folder it publishes in, as this process's consumers find it (``RunningHandEditMonitors``).
    private let folder: RunningHandEditMonitors.Folder?
    /// The last state published, for consumers in this process; guarded by `answers`, which is
    /// broadcast after each publish and when the monitor stops (then `answering` is false).
    private let answers = NSCondition()
    private var lastPublished: HandEditMonitorState
    private var answering = true
    /// The publishing thread, set before it starts.
    private var publisher: Thread?
    /// Tells consumers of other processes of each publish; `nil` where no socket could be made
    /// (they watch the folder instead).
    private let doorbell: HandEditMonitorDoorbell?

    /// Starts monitoring the store at `path` and publishes its first state before returning.
    /// - Parameters:
    ///   - keyLimit: the most record keys the state lists (see ``keyLimit``).
    ///   - onEvent: called on the monitor's thread after each publish or restart.
    /// - Throws: ``HandEditMonitorError/alreadyRunning(store:pid:)`` when a monitor runs for
    ///   this store already; ``HandEditMonitorError/cannotWatch(store:_:)`` when the platform
    ///   has no inotify or `.ferry/watch/` cannot be written.
    public init(storeAt path: String, keyLimit: Int = 50_000, onEvent: (@Sendable (Event) -> Void)? = nil) throws(HandEditMonitorError) {
        let layout = StoreLayout(root: path)
        let lockFile: FileDescriptor
        do {
            _ = try FileSystem.createDirectories(layout.handEditCookies)
            // A folder that does not exist cannot be watched: files made in it later would go unseen.
            _ = try FileSystem.createDirectories(layout.records)
            lockFile = try FileDescriptor.open(layout.handEditMonitorLock, .readWrite, options: .create)
        } catch {
            throw .cannotWatch(store: path, error)
        }
        let state = HandEditMonitorState(pid: FileSystem.processID, generation: .random())
        do {
            guard try lockFile.lockExclusively(wait: false) else {
                lockFile.close()
                throw HandEditMonitorError.alreadyRunning(store: path, pid: HandEditMonitorState.read(at: layout.handEditMonitorState)?.pid)
            }
            // Cookies left by a monitor that died answer nobody now.
            for entry in try FileSystem.contents(ofDirectory: layout.handEditCookies) {
                try FileSystem.removeFile(layout.handEditCookies + "/" + entry.name)
            }
            // Published before the watch starts, harmlessly: no consumer trusts a state that
            // has not answered its cookie, and only the watch answers cookies.
            try Self.publish(state, in: layout)
            watcher = try StoreWatcher(storeAt: path, cookieFolder: layout.handEditCookies, fileModifications: true)
        } catch let error as HandEditMonitorError {
            throw error
        } catch {
            try? FileSystem.removeFile(layout.handEditMonitorState)
            lockFile.close()
            throw .cannotWatch(store: path, error as? SystemError ?? SystemError("watch", path: path, code: 0))
        }
        self.layout = layout
        self.lockFile = lockFile
        self.state = state
        self.keyLimit = keyLimit
        self.onEvent = onEvent
        lastPublished = state
        folder = RunningHandEditMonitors.Folder(at: layout.handEditMonitor)
        // Without it consumers watch the folder: slower, never wrong.
        doorbell = try? HandEditMonitorDoorbell(layout: layout)
        let thread = Thread { [self] in publishUntilStopped() }
        thread.name = "ferry-hand-edit-monitor"
        publisher = thread
        if let folder { RunningHandEditMonitors.shared.add(self, publishingIn: folder) }
        thread.start()
    }

    deinit {
        stop()
    }

    /// The process whose pid the state carries (this one).
    public var processID: Int32 { FileSystem.processID }

    /// Stops watching, waits for the publishing thread, removes the published state (a
    /// consumer then scans) and lets another monitor start. Safe to call more than once.
    public func stop() {
        finished.lock()
        if stopRequested {
            while running { finished.wait() }
            finished.unlock()
            return
        }
        stopRequested = true
        finished.unlock()
        // Consumers of this process ask the published state from now on, and those waiting give up.
        if let folder { RunningHandEditMonitors.shared.remove(self, publishingIn: folder) }
        answers.withLock {
            answering = false
            answers.broadcast()
        }
        watcher.stop()
        finished.lock()
        while running { finished.wait() }
        finished.unlock()
        doorbell?.close()
        // The state names a process that no longer answers; without it consumers scan at once.
        try? FileSystem.removeFile(layout.handEditMonitorState)
        FileSystem.unlock(lockFile)
        lockFile.close()
    }

    // MARK: The publishing thread

    private func publishUntilStopped() {
        defer {
            finished.lock()
            running = false
            finished.broadcast()
            finished.unlock()
        }
        while let first = watcher.nextChanges(timeout: .seconds(3600)) {
            guard !first.isEmpty else { continue }
            var changes = first
            // A cookie is answered at once; anything else waits a little for company.
            let deadline = ContinuousClock.now + Self.batchInterval
            while changes.cookies.isEmpty {
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero, let more = watcher.nextChanges(timeout: remaining), !more.isEmpty else { break }
                changes.merge(more)
            }
            take(changes)
            do {
                try Self.publish(state, in: layout)
                answers.withLock {
                    lastPublished = state
                    answers.broadcast()
                }
                doorbell?.ring()
                onEvent?(.published(sequence: state.sequence, records: state.touched.count))
            } catch {
                onEvent?(.publishFailed(error))
            }
        }
    }

    // MARK: Consumers in this process

    /// Whether the caller runs on the publishing thread (an ``onEvent`` handler), which cannot
    /// answer a cookie while it waits for the answer.
    var isPublishingThread: Bool { Thread.current == publisher }

    /// Waits, up to `timeout`, until a publish names `cookie` (a file the caller dropped in the
    /// cookie folder), and returns that state; `nil` when none does in time or the monitor stops.
    /// What ``HandEditMonitorQuery`` does through the state file and a watch of its folder, done
    /// here in memory: the state returned is the one the file holds after that publish.
    func state(naming cookie: String, within timeout: Duration) -> HandEditMonitorState? {
        let (seconds, attoseconds) = timeout.components
        let deadline = Date().addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
        answers.lock()
        defer { answers.unlock() }
        while answering {
            if lastPublished.cookies.contains(cookie) { return lastPublished }
            guard answers.wait(until: deadline) else { break }
        }
        return answering && lastPublished.cookies.contains(cookie) ? lastPublished : nil
    }

    /// Folds one batch of changes into the state, as the next publish.
    private func take(_ changes: StoreWatcher.Changes) {
        if let reason = changes.rescanReason {
            restart(because: reason)
        }
        state.sequence += 1
        let sequence = state.sequence
        for key in changes.recordFiles { state.touched[key] = sequence }
        if changes.journalChanged { state.journalChangedAt = sequence }
        if changes.otherFilesChanged { state.otherFilesChangedAt = sequence }
        for cookie in changes.cookies.sorted() {
            state.cookies.append(cookie)
            // `<random>.<generation>.<sequence>`: the consumer is at that point, and the keys
            // touched at or before it are in what it knows.
            let parts = cookie.split(separator: ".")
            if parts.count == 3, parts[1] == state.generation.rawValue, let acknowledged = UInt64(parts[2]) {
                state.touched = state.touched.filter { $0.value > acknowledged }
            }
        }
        if state.cookies.count > 16 { state.cookies.removeFirst(state.cookies.count - 16) }
        if state.touched.count > keyLimit {
            restart(because: "more than \(keyLimit) record files changed since the last status")
            state.sequence = 1
            state.cookies = changes.cookies.sorted()
        }
    }

    /// Starts a new generation: what the old one knew is no longer offered.
    private func restart(because reason: String) {
        state = HandEditMonitorState(pid: state.pid, generation: .random())
        state.restartReason = reason
        onEvent?(.restarted(reason: reason))
    }

    /// Replaces the published state (a temp file renamed over it: a reader sees the old or
    /// the new, whole). Not durable: after a crash the pid it names is dead, and consumers scan.
    private static func publish(_ state: HandEditMonitorState, in layout: StoreLayout) throws(SystemError) {
        _ = try FileSystem.writeFileAtomically(layout.handEditMonitorState, state.jsonValue.canonicalBytes(), durable: false)
    }
}

/// Why a ``HandEditMonitor`` could not start.
public enum HandEditMonitorError: Error, Sendable, CustomStringConvertible {
    /// Another monitor runs for this store (its pid, when its state says).
    case alreadyRunning(store: String, pid: Int32?)
    /// The platform has no file events, or the store's `.ferry/watch/` cannot be written.
    case cannotWatch(store: String, SystemError)

    public var description: String {
        switch self {
        case .alreadyRunning(let store, let pid):
            return "\(store) is watched already\(pid.map { " (by pid \($0))" } ?? ""): one watcher serves every command"
        case .cannotWatch(let store, let error):
            return "cannot watch \(store) for hand edits: \(error)"
        }
    }
}

extension Store {
    /// Starts a ``HandEditMonitor`` for this store: until it is stopped, `status`, `commit`
    /// and the hand-edit step of a sync (in any process) examine only the record files it
    /// reports touched.
    ///
    /// ```swift
    /// let monitor = try? store.startHandEditMonitor()   // nil: one runs already, or no inotify
    /// defer { monitor?.stop() }
    /// ```
    /// - Throws: ``HandEditMonitorError``.
    public func startHandEditMonitor(onEvent: (@Sendable (HandEditMonitor.Event) -> Void)? = nil) throws(HandEditMonitorError) -> HandEditMonitor {
        try HandEditMonitor(storeAt: path, onEvent: onEvent)
    }
}
