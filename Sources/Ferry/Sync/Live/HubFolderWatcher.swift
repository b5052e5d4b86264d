import Foundation

/// The kernel's word that a hub folder changed (``DirectoryEvents``): another replica's head,
/// segment or snapshot landed, written there or copied in late by a cloud drive. What this
/// replica writes itself (its own head and segments) and temporary dot files are left out,
/// so its own rounds do not wake it.
///
/// A thread of its own reads the events and calls `onChange`; ``stop()`` ends it.
final class HubFolderWatcher: @unchecked Sendable {
    private let root: String
    private let ownHead: String
    private let ownSegments: String
    private let events: DirectoryEvents
    private let stopping: WakeupPipe
    private let onChange: @Sendable () -> Void
    private var reader: Thread?

    /// Starts watching the hub at `root`: the folder itself (its descriptor), `heads/`,
    /// `segments/` and every replica's folder there, and `hub-snapshots/`.
    /// - Throws: ``SystemError`` where the platform has no inotify (the caller polls then).
    init(root: String, ownReplica: ReplicaID, onChange: @escaping @Sendable () -> Void) throws(SystemError) {
        self.root = root
        ownHead = root + "/" + HubHead.key(of: ownReplica)
        ownSegments = root + "/segments/" + ownReplica.rawValue
        self.onChange = onChange
        events = try DirectoryEvents()
        stopping = try WakeupPipe()
        try events.watchTree(root)
        let thread = Thread { [self] in readEvents() }
        thread.name = "ferry-hub-watcher"
        reader = thread
        thread.start()
    }

    deinit {
        stopping.signal()
    }

    /// Whether the reading thread still runs (for the tests that check ``stop()`` ends it).
    var isReading: Bool { reader?.isFinished == false }

    /// Ends the reading thread.
    func stop() {
        stopping.signal()
    }

    private func readEvents() {
        do {
            try events.readUntilStopped(by: stopping) { batch in
                var changed = false
                for event in batch where concerns(event) {
                    // A new replica's segments: watched from now on (failing that, the interval brings them).
                    if event.kind == .directoryAdded { _ = try? events.watchTree(event.path) }
                    changed = true
                }
                if changed { onChange() }
            }
        } catch {
            onChange()  // one more round; then the interval
        }
    }

    /// Whether an event is another replica's news.
    private func concerns(_ event: DirectoryEvents.Event) -> Bool {
        if event.kind == .overflow { return true }
        let name = event.path.split(separator: "/").last ?? ""
        if name.hasPrefix(".") || event.path == ownHead || event.path.hasPrefix(ownSegments + "/") { return false }
        return true
    }
}
