import Foundation

/// One page fetched ahead while the caller works on the current one: the read-ahead of every
/// paged client (a served store's changes, a backend's listing). The page is started for the
/// request it answers, and taken only by that request; any other request (a sync that went back
/// to read from elsewhere) cancels it and fetches its own.
///
/// ```swift
/// let ahead = PagePrefetch<ChangeQuery, Result<ChangeBatch, RemoteError>>()
/// let page = await (ahead.take(query) ?? Task { await fetch(query) }).value
/// ahead.start(nextQuery) { await fetch(nextQuery) }
/// ```
///
/// A hub's segments are not pages of one listing but objects read while deciding on a
/// snapshot, kept by key for the pull that follows: they do not go through this type.
final class PagePrefetch<Key: Equatable & Sendable, Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: (key: Key, task: Task<Value, Never>)?

    /// Starts fetching the page that answers `key`, replacing (and cancelling) any other.
    func start(_ key: Key, _ fetch: @escaping @Sendable () async -> Value) {
        let task = Task { await fetch() }
        let replaced = lock.withLock { () -> Task<Value, Never>? in
            defer { pending = (key, task) }
            return pending?.task
        }
        replaced?.cancel()
    }

    /// The page fetched ahead for `key`, if that is the one started; any other is cancelled.
    func take(_ key: Key) -> Task<Value, Never>? {
        let taken = lock.withLock { () -> (key: Key, task: Task<Value, Never>)? in
            defer { pending = nil }
            return pending
        }
        guard let taken else { return nil }
        guard taken.key == key else {
            taken.task.cancel()
            return nil
        }
        return taken.task
    }

    /// Cancels the page fetched ahead, if any (the exchange ended).
    func cancel() {
        lock.withLock { () -> Task<Value, Never>? in
            defer { pending = nil }
            return pending?.task
        }?.cancel()
    }
}
