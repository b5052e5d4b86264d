/// A change committed to a store's journal, with its position there.
public struct CommittedChange: Sendable {
    /// Its journal position: pass it to ``Store/changes(since:)`` to go on after it.
    public var position: UInt64
    public var change: Change
}

/// The changes a store commits, as they are committed: local writes, changes received from
/// peers, and hand edits once journaled (``Store/commit()``), in journal order, from a position.
///
/// ```swift
/// for try await committed in store.changes(since: savedPosition) {
///     show(committed.change.key)
///     savedPosition = committed.position   // resume here after a restart: nothing skipped or repeated
/// }
/// ```
///
/// It waits on the kernel's word that the journal grew (``StoreWatcher``), not on a timer;
/// where the platform cannot tell, it looks every 200 ms. The sequence ends when the task is
/// cancelled.
public struct StoreChangeFeed: AsyncSequence, Sendable {
    public typealias Element = CommittedChange

    let store: Store
    let position: UInt64

    public func makeAsyncIterator() -> Iterator {
        Iterator(store: store, position: position)
    }

    public final class Iterator: AsyncIteratorProtocol {
        private let store: Store
        private var position: UInt64
        private var buffered: [CommittedChange] = []
        private var watcher: StoreWatcher?
        private var watcherFailed = false

        init(store: Store, position: UInt64) {
            self.store = store
            self.position = position
        }

        deinit {
            watcher?.stop()
        }

        public func next() async throws -> CommittedChange? {
            while buffered.isEmpty {
                if Task.isCancelled { return nil }
                // Watch before reading, so that a commit between the read and the wait is seen.
                if watcher == nil && !watcherFailed {
                    do { watcher = try StoreWatcher(storeAt: store.path) } catch { watcherFailed = true }
                }
                let batch = try store.changes(after: position, excluding: VersionVector(), limit: 500)
                buffered = zip(batch.sequences, batch.changes).map { CommittedChange(position: $0, change: $1) }
                if buffered.isEmpty {
                    position = Swift.max(position, batch.through)
                    if let watcher {
                        guard await watcher.changes() != nil else { return nil }
                    } else {
                        try await Task.sleep(for: .milliseconds(200))
                    }
                }
            }
            let next = buffered.removeFirst()
            position = next.position
            return next
        }
    }
}

extension Store {
    /// The changes committed after journal position `position` (0: all of them), then each
    /// one as it is committed, until the task is cancelled. See ``StoreChangeFeed``.
    public func changes(since position: UInt64) -> StoreChangeFeed {
        StoreChangeFeed(store: self, position: position)
    }
}
