import Foundation

/// The states a server offered joining replicas lately (see ``StateOffer``), by store and
/// offer id, so that each page is read by position instead of collecting the state again.
/// Each holds 8 bytes per version; the four most recent are kept.
final class OfferedStates: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(store: String, snapshot: StoreSnapshot)] = []
    private let limit = 4

    /// Keeps `snapshot`, offered by the store called `store`.
    func keep(_ snapshot: StoreSnapshot, store: String) {
        lock.withLock {
            entries.removeAll { $0.store == store && $0.snapshot.offer.id == snapshot.offer.id }
            entries.append((store, snapshot))
            if entries.count > limit { entries.removeFirst(entries.count - limit) }
        }
    }

    /// The state with `id` offered by `store`, if still kept.
    func state(_ id: SHA256Digest, store: String) -> StoreSnapshot? {
        lock.withLock { entries.last { $0.store == store && $0.snapshot.offer.id == id }?.snapshot }
    }
}
