import Foundation

/// PocketBase as a ``SyncBackend``: Ferry's fields (`ferry_id`, `ferry_rev`, `ferry_deleted`)
/// and the compare-and-set rule that ``PocketBaseSetup`` puts in place.
public final class PocketBaseBackend: SyncBackend {
    public let client: PocketBaseClient
    /// Writes per batch request (PocketBase's default limit is 50).
    public let batchSize: Int
    /// Whether the server takes batches: unknown until tried.
    private let batches = BatchAvailability()

    /// The relation field naming each record's owner (``PocketBaseAccess/owner(field:)``), or
    /// `nil`: left out of the records' fields, and set to the signed-in user on a create.
    public let ownerField: String?

    public init(client: PocketBaseClient, batchSize: Int = 50, ownerField: String? = nil) {
        self.client = client
        self.batchSize = batchSize
        self.ownerField = ownerField
    }

    public var location: String { client.location.description }
    public var requestCount: Int { client.requestCount }

    /// Fields of PocketBase's own, never part of a document.
    static let systemFields: Set<String> = ["id", "collectionId", "collectionName", "created", "updated", "expand"]

    public func backendID(for ferryID: String) -> String {
        PocketBaseRecordID.backendID(for: ferryID)
    }

    public func connect() async throws(BackendError) {
        // A client signed in earlier in this process keeps its session (it signs in again if
        // the session has expired); otherwise sign in now.
        let identity: PocketBaseClient.Identity
        if let current = client.identity {
            identity = current
        } else {
            identity = try await client.signIn()
        }
        if identity.isSuperuser {
            throw BackendError(.forbidden,
                "\(location): these credentials are a superuser's, which bypass every API rule, the compare-and-set on "
                    + "ferry_rev included; sync as an ordinary user (POCKETBASE_EMAIL/POCKETBASE_PASSWORD of a users record)")
        }
    }

    public func changes(in collection: String, since: String?, after: (updated: String, id: String)?, limit: Int) async throws(BackendError) -> BackendPage {
        var clauses: [String] = []
        if let since { clauses.append("updated >= \(Self.literal(since))") }
        if let after {
            clauses.append("(updated > \(Self.literal(after.updated)) || (updated = \(Self.literal(after.updated)) && id > \(Self.literal(after.id))))")
        }
        let page = try await client.records(
            in: collection, filter: clauses.isEmpty ? nil : clauses.joined(separator: " && "), sort: "updated,id", page: 1, perPage: limit)
        var records: [BackendRecord] = []
        records.reserveCapacity(page.items.count)
        for item in page.items { records.append(withoutOwner(try Self.record(item, in: collection))) }
        let serverTime = page.serverTime.map {
            ISO8601Milliseconds.format(signedMilliseconds: $0).replacingOccurrences(of: "T", with: " ")
        }
        return BackendPage(records: records, mayHaveMore: page.items.count >= page.perPage, serverTime: serverTime)
    }

    public func count(in collection: String) async throws(BackendError) -> Int {
        try await client.count(in: collection)
    }

    public func ids(in collection: String) async throws(BackendError) -> Set<String> {
        var ids = Set<String>()
        var after: String?
        while true {
            let page = try await client.records(
                in: collection, filter: after.map { "id > \(Self.literal($0))" }, sort: "id", page: 1, perPage: 1000, fields: "id")
            for item in page.items { if let id = item["id"]?.stringValue { ids.insert(id) } }
            guard page.items.count >= page.perPage, let last = page.items.last?["id"]?.stringValue else { return ids }
            after = last
        }
    }

    public func create(_ record: BackendRecord, clearing: [String: JSONValue]) async throws(BackendError) -> BackendWriteOutcome {
        var body = Self.body(record, clearing: clearing)
        body["id"] = .string(record.backendID)
        owned(&body)
        do {
            let stored = try await client.create(in: record.collection, fields: body)
            return .written(withoutOwner(try Self.checked(stored, sent: record, in: record.collection)))
        } catch where error.kind == .invalid && error.message.contains("id: ") {
            // The id is taken: another replica or client created it meanwhile.
            return .stale
        }
    }

    public func update(_ record: BackendRecord, base: String, baseUpdated: String?, clearing: [String: JSONValue]) async throws(BackendError) -> BackendWriteOutcome {
        var body = Self.body(record, clearing: clearing)
        body[PocketBaseSetup.baseRevisionMember] = .string(base)
        if let baseUpdated { body[PocketBaseSetup.baseUpdatedMember] = .string(baseUpdated) }
        do {
            let stored = try await client.update(in: record.collection, id: record.backendID, fields: body)
            return .written(withoutOwner(try Self.checked(stored, sent: record, in: record.collection)))
        } catch where error.kind == .notFound {
            // The update rule refused a stale base revision (or the record is gone): PocketBase
            // answers both with 404.
            return .stale
        }
    }

    public func softDeleted(in collection: String, updatedBefore cutoff: String, limit: Int) async throws(BackendError) -> [SoftDeletedRecord] {
        let page = try await client.records(
            in: collection, filter: "\(PocketBaseSetup.deletedField) = true && updated < \(Self.literal(cutoff))", sort: "updated,id",
            page: 1, perPage: limit, fields: "id,updated,\(PocketBaseSetup.revisionField)")
        return page.items.compactMap { item in
            guard let id = item["id"]?.stringValue, let updated = item["updated"]?.stringValue else { return nil }
            return SoftDeletedRecord(backendID: id, revision: item[PocketBaseSetup.revisionField]?.stringValue ?? "", updated: updated)
        }
    }

    /// A compare-and-set update (still this revision, still deleted) and the delete, in one
    /// batch (one transaction) where the server takes batches; otherwise the update, then the
    /// delete: a client would have to read the record in between, and write it under the
    /// revision just set, to lose its write.
    public func purge(in collection: String, record: SoftDeletedRecord) async throws(BackendError) -> Bool {
        let backendID = record.backendID
        let path = "/api/collections/\(PocketBaseLocation.escape(collection))/records/\(PocketBaseLocation.escape(backendID))"
        let claim: [String: JSONValue] = [
            PocketBaseSetup.baseRevisionMember: .string(record.revision), PocketBaseSetup.baseUpdatedMember: .string(record.updated),
            PocketBaseSetup.revisionField: .string("ferry-purge:" + record.revision), PocketBaseSetup.deletedField: true,
        ]
        let what = "purge \(collection)/\(backendID)"
        if batches.allowed != false {
            do {
                let results = try await client.batch([.init(method: "PATCH", path: path, body: claim), .init(method: "DELETE", path: path, body: [:])], what: what)
                batches.allowed = true
                return results.allSatisfy { (200..<300).contains($0.status) }
            } catch where error.kind == .forbidden && error.message.contains("Batch requests are not allowed") {
                batches.allowed = false
            } catch where error.kind == .invalid || error.kind == .notFound {
                return false  // the update was refused: the record changed, or is gone
            }
        }
        do {
            _ = try await client.update(in: collection, id: backendID, fields: claim)
        } catch where error.kind == .notFound {
            return false
        }
        do {
            try await client.delete(in: collection, id: backendID)
        } catch where error.kind == .notFound {
            return true
        }
        return true
    }

    /// Writes in batches of ``batchSize`` (one transaction each) where the server allows the
    /// batch API; a batch that fails as a whole (one stale write fails them all) is written one
    /// by one, which tells the stale writes from the rest. Without the batch API, eight single
    /// writes are in flight at once.
    public func write(_ writes: [BackendWrite]) async -> [Result<BackendWriteOutcome, BackendError>] {
        guard writes.count > 1, batches.allowed != false else { return await writeOneByOne(writes, concurrency: 8) }
        // Two batches in flight: the server reads and checks one while it commits the other.
        let chunks = stride(from: 0, to: writes.count, by: max(1, batchSize)).map { Array(writes[$0..<min(writes.count, $0 + max(1, batchSize))]) }
        let results = await withTaskGroup(
            of: (Int, [Result<BackendWriteOutcome, BackendError>]).self, returning: [[Result<BackendWriteOutcome, BackendError>]].self
        ) { group in
            var collected = [[Result<BackendWriteOutcome, BackendError>]](repeating: [], count: chunks.count)
            var next = 0
            var running = 0
            while next < chunks.count || running > 0 {
                while running < 2 && next < chunks.count {
                    let index = next
                    next += 1
                    running += 1
                    group.addTask { (index, await self.writeBatch(chunks[index])) }
                }
                guard let (index, outcomes) = await group.next() else { break }
                running -= 1
                collected[index] = outcomes
            }
            return collected
        }
        return results.flatMap { $0 }
    }

    /// A batch's worth per call, two calls at once (as ``write(_:)`` keeps two batches in
    /// flight) where the server takes batches; every write at once where it does not (eight
    /// single writes in flight).
    public var writeGrouping: BackendWriteGrouping {
        batches.allowed == false ? .allAtOnce : BackendWriteGrouping(size: batchSize, inFlight: 2)
    }

    /// One batch request (one transaction), or its writes one by one when it fails as a whole.
    private func writeBatch(_ chunk: [BackendWrite]) async -> [Result<BackendWriteOutcome, BackendError>] {
        if batches.allowed == false || chunk.count == 1 { return await writeOneByOne(chunk, concurrency: 8) }
        var outcomes: [Result<BackendWriteOutcome, BackendError>] = []
        outcomes.reserveCapacity(chunk.count)
        let requests = chunk.map { write -> PocketBaseClient.BatchRequest in
            var body = Self.body(write.record, clearing: write.clearing)
            let collection = PocketBaseLocation.escape(write.record.collection)
            if let base = write.base {
                body[PocketBaseSetup.baseRevisionMember] = .string(base)
                if let baseUpdated = write.baseUpdated { body[PocketBaseSetup.baseUpdatedMember] = .string(baseUpdated) }
                return .init(method: "PATCH", path: "/api/collections/\(collection)/records/\(PocketBaseLocation.escape(write.record.backendID))", body: body)
            }
            body["id"] = .string(write.record.backendID)
            owned(&body)
            return .init(method: "POST", path: "/api/collections/\(collection)/records", body: body)
        }
        do {
            let results = try await client.batch(requests, what: "batch of \(chunk.count) writes to \(chunk[0].record.collection)")
            batches.allowed = true
            for (write, result) in zip(chunk, results) {
                guard (200..<300).contains(result.status), let stored = result.body.objectValue else {
                    outcomes.append(.failure(BackendError(.protocolViolation, "\(write.record.collection)/\(write.record.backendID): batch answered \(result.status)")))
                    continue
                }
                do throws(BackendError) {
                    outcomes.append(.success(.written(withoutOwner(try Self.checked(stored, sent: write.record, in: write.record.collection)))))
                } catch {
                    outcomes.append(.failure(error))
                }
            }
        } catch {
            if error.kind == .forbidden && error.message.contains("Batch requests are not allowed") { batches.allowed = false }
            // Failed as a whole (a stale write among them, or no batch API): one by one.
            outcomes += await writeOneByOne(chunk, concurrency: 8)
        }
        return outcomes
    }

    /// Whether the server takes batches, shared by concurrent pushes.
    private final class BatchAvailability: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Bool?
        var allowed: Bool? {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }

    // MARK: Mapping

    /// A record without the owner field (not part of a document).
    private func withoutOwner(_ record: BackendRecord) -> BackendRecord {
        guard let ownerField else { return record }
        var record = record
        record.fields[ownerField] = nil
        return record
    }

    /// A create's body, owned by the signed-in user.
    private func owned(_ body: inout [String: JSONValue]) {
        if let ownerField, let id = client.identity?.id { body[ownerField] = .string(id) }
    }

    /// The body of a write: the document's members, the fields it no longer has emptied, and Ferry's fields.
    static func body(_ record: BackendRecord, clearing: [String: JSONValue]) -> [String: JSONValue] {
        var body = clearing
        for (name, value) in record.fields { body[name] = value }
        body[PocketBaseSetup.idField] = .string(record.ferryID == record.backendID ? "" : record.ferryID)
        body[PocketBaseSetup.revisionField] = .string(record.revision)
        body[PocketBaseSetup.deletedField] = .bool(record.isDeleted)
        return body
    }

    /// A record as PocketBase sends it, in Ferry's terms.
    static func record(_ item: [String: JSONValue], in collection: String) throws(BackendError) -> BackendRecord {
        guard let id = item["id"]?.stringValue, let updated = item["updated"]?.stringValue else {
            throw BackendError(.setup,
                "\(collection): records have no id or updated field; run 'ferry backend setup' for this collection (an autodate updated field)")
        }
        var fields: [String: JSONValue] = [:]
        for (name, value) in item where !systemFields.contains(name) && !name.hasPrefix("ferry_") {
            fields[name] = value
        }
        return BackendRecord(
            collection: collection, backendID: id,
            ferryID: PocketBaseRecordID.ferryID(backendID: id, ferryIDField: item[PocketBaseSetup.idField]?.stringValue),
            revision: item[PocketBaseSetup.revisionField]?.stringValue ?? "", isDeleted: item[PocketBaseSetup.deletedField]?.boolValue ?? false,
            updated: updated, fields: fields)
    }

    /// The stored record, after checking that it kept every member sent: PocketBase drops a
    /// member its collection has no field for without a word.
    static func checked(_ stored: [String: JSONValue], sent: BackendRecord, in collection: String) throws(BackendError) -> BackendRecord {
        if let missing = sent.fields.keys.sorted().first(where: { stored[$0] == nil }) {
            throw BackendError(.setup,
                "\(collection)/\(sent.backendID): the collection has no field \(quoted(missing)), and PocketBase dropped it from the "
                    + "record; add the field with 'ferry backend setup … --from <store>'")
        }
        guard stored[PocketBaseSetup.revisionField] != nil, stored[PocketBaseSetup.deletedField] != nil else {
            throw BackendError(.setup, "\(collection): the collection lacks Ferry's fields; run 'ferry backend setup' for it")
        }
        return try record(stored, in: collection)
    }

    /// A string literal for a PocketBase filter.
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
