/// A record as a backend holds it, in Ferry's terms: where it is, which Ferry record it is,
/// its revision, and its fields.
public struct BackendRecord: Sendable, Equatable {
    /// The collection (one per entity).
    public var collection: String
    /// The backend's id for it.
    public var backendID: String
    /// The Ferry record id (``PocketBaseRecordID/ferryID(backendID:ferryIDField:)``).
    public var ferryID: String
    /// Its revision: changed by every write, Ferry's (`ferry:<origin>:<counter>`) or another
    /// client's (anything else; empty for a record another client created without one).
    public var revision: String
    /// Whether it is soft-deleted.
    public var isDeleted: Bool
    /// When it was last written, as the backend orders them (PocketBase: `2026-11-25 08:50:46.872Z`).
    public var updated: String
    /// The members of the record's document (Ferry's own fields and the backend's left out).
    public var fields: [String: JSONValue]

    public init(collection: String, backendID: String, ferryID: String, revision: String, isDeleted: Bool, updated: String,
                fields: [String: JSONValue]) {
        self.collection = collection
        self.backendID = backendID
        self.ferryID = ferryID
        self.revision = revision
        self.isDeleted = isDeleted
        self.updated = updated
        self.fields = fields
    }

    /// A digest of what the record holds: its Ferry id, whether it is deleted, and its fields
    /// (canonical JSON). Another client's edit that keeps the revision changes it.
    public var contentDigest: SHA256Digest {
        SHA256.hash(JSONValue.array([.string(ferryID), .bool(isDeleted), .object(fields)]).canonicalBytes())
    }
}

/// One page of records in (updated, id) order.
public struct BackendPage: Sendable {
    public var records: [BackendRecord]
    /// Whether a next page may hold more (this one was full).
    public var mayHaveMore: Bool
    /// The backend's clock when it answered, in its own timestamp form (as ``BackendRecord/updated``).
    public var serverTime: String?

    public init(records: [BackendRecord], mayHaveMore: Bool, serverTime: String? = nil) {
        self.records = records
        self.mayHaveMore = mayHaveMore
        self.serverTime = serverTime
    }
}

/// How a push hands its writes to a backend (``SyncBackend/writeGrouping``).
public struct BackendWriteGrouping: Sendable, Equatable {
    /// The writes of one ``SyncBackend/write(_:)`` call (at least one).
    public let size: Int
    /// The calls that may run at once (at least one).
    public let inFlight: Int

    public init(size: Int, inFlight: Int) {
        self.size = max(1, size)
        self.inFlight = max(1, inFlight)
    }

    /// Every write in one call: for a backend that runs them as it sees fit.
    public static let allAtOnce = BackendWriteGrouping(size: .max, inFlight: 1)
}

/// One conditional write: a create (no base) or an update from a base revision.
public struct BackendWrite: Sendable {
    public var record: BackendRecord
    /// The revision the write was made from; `nil` to create the record.
    public var base: String?
    /// The record's `updated` when Ferry last saw it (``BackendRecord/updated``): the update is
    /// refused when it moved, whoever moved it. `nil` when unknown (only the revision is compared).
    public var baseUpdated: String?
    /// The empty value of each field the record's document no longer has.
    public var clearing: [String: JSONValue]

    public init(record: BackendRecord, base: String?, baseUpdated: String? = nil, clearing: [String: JSONValue]) {
        self.record = record
        self.base = base
        self.baseUpdated = baseUpdated
        self.clearing = clearing
    }
}

/// What a conditional write met.
public enum BackendWriteOutcome: Sendable, Equatable {
    /// Written; the record as stored.
    case written(BackendRecord)
    /// Refused because the record changed since its base revision (or, for a create, exists
    /// already): pull, then decide.
    case stale
}

/// A record marked deleted, as a purge finds it: which, and the write it holds.
public struct SoftDeletedRecord: Sendable, Equatable {
    public var backendID: String
    public var revision: String
    /// Its `updated` (the purge is refused when it moved).
    public var updated: String

    public init(backendID: String, revision: String, updated: String) {
        self.backendID = backendID
        self.revision = revision
        self.updated = updated
    }
}

/// The few operations Ferry's backend sync needs of an app backend. PocketBase is one
/// (``PocketBaseBackend``); another REST backend (Parse Server, Supabase) would be one more type
/// beside it. docs/BACKENDS.md describes the protocol.
///
/// Every write is conditional, and the backend itself must enforce the condition (a rule, a
/// constraint), since other clients write at the same time.
public protocol SyncBackend: Sendable {
    /// Where it is, for messages.
    var location: String { get }

    /// The backend's id of the record whose Ferry id is `ferryID` (a stable rule: the record is
    /// created under it, and found by it).
    func backendID(for ferryID: String) -> String

    /// Signs in.
    /// - Throws: ``BackendError`` for refused credentials, or credentials that bypass the
    ///   backend's rules (a superuser), under which a compare-and-set would not hold.
    func connect() async throws(BackendError)

    /// Records of `collection` written at or after `since` (all when `nil`) and, when `after`
    /// is given, after that (updated, id) position, in (updated, id) order, at most `limit`.
    func changes(in collection: String, since: String?, after: (updated: String, id: String)?, limit: Int) async throws(BackendError) -> BackendPage

    /// How many records of `collection` the signed-in user can see, soft-deleted ones included.
    func count(in collection: String) async throws(BackendError) -> Int

    /// The backend ids of every record of `collection` the user can see.
    func ids(in collection: String) async throws(BackendError) -> Set<String>

    /// Creates a record whose backend id is `record.backendID`; ``BackendWriteOutcome/stale`` when it exists.
    func create(_ record: BackendRecord, clearing: [String: JSONValue]) async throws(BackendError) -> BackendWriteOutcome

    /// Replaces a record's fields if its revision is still `base` and, when `baseUpdated` is
    /// given, it was last written at `baseUpdated` (no write since, by anyone);
    /// ``BackendWriteOutcome/stale`` when not (or the record is gone). `clearing` gives the empty
    /// value of each field the record's document no longer has.
    func update(_ record: BackendRecord, base: String, baseUpdated: String?, clearing: [String: JSONValue]) async throws(BackendError) -> BackendWriteOutcome

    /// Records of `collection` marked deleted whose last write is older than `cutoff` (the
    /// backend's clock, in the form of its `updated` field), oldest first, at most `limit`:
    /// their backend id, revision and `updated`.
    func softDeleted(in collection: String, updatedBefore cutoff: String, limit: Int) async throws(BackendError) -> [SoftDeletedRecord]

    /// Deletes a record outright if it is still `record` (its revision and `updated`) and still
    /// marked deleted, as one step the backend enforces; `false` when it changed meanwhile (it stays).
    func purge(in collection: String, record: SoftDeletedRecord) async throws(BackendError) -> Bool

    /// Runs many writes, in any order and as many at once as suits the backend; each
    /// outcome in the writes' order. The default runs ``create(_:clearing:)`` and
    /// ``update(_:base:clearing:)``, eight at a time.
    func write(_ writes: [BackendWrite]) async -> [Result<BackendWriteOutcome, BackendError>]

    /// How a push hands its writes to ``write(_:)``: groups of `size`, at most `inFlight` calls
    /// at once. The push reads each group's records from the store while the groups before it
    /// are written, so its first request leaves once one group is read. The default,
    /// ``BackendWriteGrouping/allAtOnce``, hands every write to one call.
    var writeGrouping: BackendWriteGrouping { get }

    /// Requests sent so far.
    var requestCount: Int { get }
}

extension SyncBackend {
    public func write(_ writes: [BackendWrite]) async -> [Result<BackendWriteOutcome, BackendError>] {
        await writeOneByOne(writes, concurrency: 8)
    }

    public var writeGrouping: BackendWriteGrouping { .allAtOnce }

    /// Runs each write on its own, at most `concurrency` at once; the outcomes in order.
    public func writeOneByOne(_ writes: [BackendWrite], concurrency: Int) async -> [Result<BackendWriteOutcome, BackendError>] {
        let limit = max(1, concurrency)
        let collected = await withTaskGroup(
            of: (Int, Result<BackendWriteOutcome, BackendError>).self, returning: [Result<BackendWriteOutcome, BackendError>?].self
        ) { group in
            var outcomes = [Result<BackendWriteOutcome, BackendError>?](repeating: nil, count: writes.count)
            var next = 0
            var running = 0
            while next < writes.count || running > 0 {
                while running < limit && next < writes.count {
                    let index = next
                    let write = writes[index]
                    next += 1
                    running += 1
                    group.addTask {
                        do throws(BackendError) {
                            if let base = write.base {
                                return (index, .success(try await update(write.record, base: base, baseUpdated: write.baseUpdated, clearing: write.clearing)))
                            }
                            return (index, .success(try await create(write.record, clearing: write.clearing)))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                guard let (index, outcome) = await group.next() else { break }
                running -= 1
                outcomes[index] = outcome
            }
            return outcomes
        }
        return collected.map { $0 ?? .failure(BackendError(.protocolViolation, "a write was not run")) }
    }
}
