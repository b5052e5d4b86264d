/// One record as an observation yields it.
public struct ObservedRecord: Sendable, Equatable {
    public var id: RecordID
    public var document: JSONValue
}

/// The live records of one entity, optionally filtered, yielded now and again each time they
/// change: a write here, a change received from a peer, a hand edit once journaled
/// (``Store/commit()``, which `ferry sync --watch` does): what it yields is the store's
/// committed state, as ``Store/records(of:)`` reads it.
///
/// ```swift
/// // In a SwiftUI view model:
/// for try await notes in store.observe(EntityName("Note"), where: { _, note in note["done"] != .bool(true) }) {
///     self.notes = notes          // sorted by id
/// }
/// ```
///
/// It wakes on the kernel's word (``StoreWatcher``): a change to another entity's files does
/// not re-read this one, and a change that leaves the filtered records as they were yields
/// nothing. Where the platform cannot tell, it looks every 200 ms. The sequence ends when the
/// task is cancelled.
public struct EntityObservation: AsyncSequence, Sendable {
    public typealias Element = [ObservedRecord]

    let store: Store
    let entity: EntityName
    let isIncluded: @Sendable (RecordID, JSONValue) -> Bool

    public func makeAsyncIterator() -> Iterator {
        Iterator(observation: self)
    }

    public final class Iterator: AsyncIteratorProtocol {
        private let observation: EntityObservation
        private var last: [ObservedRecord]?
        private var watcher: StoreWatcher?
        private var watcherFailed = false

        init(observation: EntityObservation) {
            self.observation = observation
        }

        deinit {
            watcher?.stop()
        }

        public func next() async throws -> [ObservedRecord]? {
            while !Task.isCancelled {
                // Watch before reading, so that a change between the read and the wait is seen.
                if watcher == nil && !watcherFailed {
                    do { watcher = try StoreWatcher(storeAt: observation.store.path) } catch { watcherFailed = true }
                }
                let current = try read()
                if current != last {
                    last = current
                    return current
                }
                if !(try await waitForChange()) { return nil }
            }
            return nil
        }

        private func read() throws -> [ObservedRecord] {
            var records: [ObservedRecord] = []
            try observation.store.forEachRecord(of: observation.entity) { id, document in
                if observation.isIncluded(id, document) { records.append(ObservedRecord(id: id, document: document)) }
                return true
            }
            return records
        }

        /// Waits until something that may concern the entity changed; `false` when the watcher stopped.
        private func waitForChange() async throws -> Bool {
            guard let watcher else {
                try await Task.sleep(for: .milliseconds(200))
                return true
            }
            while !Task.isCancelled {
                guard let changes = await watcher.changes() else { return false }
                if changes.journalChanged || changes.needsScan || changes.recordFiles.contains(where: { $0.entity == observation.entity }) {
                    return true
                }
            }
            return true
        }
    }
}

extension Store {
    /// The live records of `entity` that `isIncluded` keeps, now and each time they change,
    /// until the task is cancelled. See ``EntityObservation``.
    public func observe(
        _ entity: EntityName, where isIncluded: @escaping @Sendable (RecordID, JSONValue) -> Bool = { _, _ in true }
    ) -> EntityObservation {
        EntityObservation(store: self, entity: entity, isIncluded: isIncluded)
    }
}
