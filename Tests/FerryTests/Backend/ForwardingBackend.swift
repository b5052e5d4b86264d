@testable import Ferry

/// A backend that passes every call to another: the tests' wrappers around the real
/// PocketBase (``FailingWrites``, ``RacingBackend``) override only the calls they change.
class ForwardingBackend: SyncBackend, @unchecked Sendable {
    let inner: any SyncBackend

    init(_ inner: any SyncBackend) { self.inner = inner }

    var location: String { inner.location }
    func backendID(for ferryID: String) -> String { inner.backendID(for: ferryID) }
    var requestCount: Int { inner.requestCount }
    func connect() async throws(BackendError) { try await inner.connect() }
    func changes(in collection: String, since: String?, after: (updated: String, id: String)?, limit: Int) async throws(BackendError) -> BackendPage {
        try await inner.changes(in: collection, since: since, after: after, limit: limit)
    }
    func count(in collection: String) async throws(BackendError) -> Int { try await inner.count(in: collection) }
    func ids(in collection: String) async throws(BackendError) -> Set<String> { try await inner.ids(in: collection) }
    func softDeleted(in collection: String, updatedBefore cutoff: String, limit: Int) async throws(BackendError) -> [SoftDeletedRecord] {
        try await inner.softDeleted(in: collection, updatedBefore: cutoff, limit: limit)
    }
    func purge(in collection: String, record: SoftDeletedRecord) async throws(BackendError) -> Bool {
        try await inner.purge(in: collection, record: record)
    }
    func create(_ record: BackendRecord, clearing: [String: JSONValue]) async throws(BackendError) -> BackendWriteOutcome {
        try await inner.create(record, clearing: clearing)
    }
    func update(_ record: BackendRecord, base: String, baseUpdated: String?, clearing: [String: JSONValue]) async throws(BackendError) -> BackendWriteOutcome {
        try await inner.update(record, base: base, baseUpdated: baseUpdated, clearing: clearing)
    }
    func write(_ writes: [BackendWrite]) async -> [Result<BackendWriteOutcome, BackendError>] {
        await inner.write(writes)
    }
    var writeGrouping: BackendWriteGrouping { inner.writeGrouping }
}
