import Foundation

/// The endpoints of one store: info, knowledge, entry hashes, change streams, push and
/// checkpoints. Each reads or writes the store off the cooperative pool.
extension StoreService {
    func serve(_ resource: RemoteRoute.StoreResource, of name: StoreName, request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        if case .push = resource { return try await push(to: name, request) }
        // Checked out for this request, so it is not closed to make room while in use; a stream
        // gives it back when it ends.
        let store: Store
        if let open = registry.checkOutIfOpen(named: name) { store = open } else { store = try await openStore(name) }
        let registry = self.registry
        var handedToStream = false
        defer { if !handedToStream { registry.checkIn(name) } }
        switch resource {
        case .info:
            // All a no-op sync costs: read on the request's task unless a writer holds the store.
            let head: StoreHead
            if let now = store.headWithoutWaiting() { head = now } else { head = await BlockingWork.run { store.head } }
            var info = RemoteStoreInfo(
                store: name.rawValue, replica: store.replicaID, name: store.manifest.name, format: store.manifest.format, head: head)
            // The names it heard (one small file; a damaged one passes none on until rewritten).
            info.names = (try? ReplicaNameBook.load(from: store.layout))?.names ?? [:]
            return Self.json(info.jsonValue)
        case .knowledge:
            return try await work { () throws(ServiceFailure) -> HTTPResponse in
                do throws(StoreError) {
                    let frontier = try store.currentFrontier()
                    var digests: [String: JSONValue] = [:]
                    for (replica, digest) in frontier.digests { digests[replica.rawValue] = .string(digest.hex) }
                    return Self.json([
                        "knowledge": frontier.knowledge.jsonValue, "digests": .object(digests),
                        "records": .integer(Int64(store.recordCount)),
                    ])
                } catch { throw failure(error, store: name) }
            }
        case .entryHash(let text):
            guard let sequence = UInt64(text) else {
                throw ServiceFailure(.badRequest, "the journal position must be a non-negative integer")
            }
            return try await work { () throws(ServiceFailure) -> HTTPResponse in
                do throws(StoreError) {
                    let hash = try store.entryHash(at: sequence)
                    return Self.json(["seq": .integer(Int64(clamping: sequence)), "hash": hash.map { .string($0.hex) } ?? .null])
                } catch { throw failure(error, store: name) }
            }
        case .changes:
            let query: ChangeQuery
            do {
                query = request.method == .post ? try ChangeQuery(body: request.body) : try ChangeQuery(query: request.query)
            } catch { throw ServiceFailure(.badRequest, error.description) }
            let response = try await changeStream(from: store, name: name, query: query) { registry.checkIn(name) }
            handedToStream = true
            return response
        case .snapshot:
            let response = try await changeStream(
                from: store, name: name, query: ChangeQuery(after: 0, limit: Int.max), paged: false) { registry.checkIn(name) }
            handedToStream = true
            return response
        case .stateOffer:
            let asked: (knowledge: VersionVector, pending: ReplicaID?)
            do { asked = try StateOffer.request(body: request.body) } catch { throw ServiceFailure(.badRequest, error.description) }
            let offeredStates = self.offeredStates
            return try await work { () throws(ServiceFailure) -> HTTPResponse in
                let pending = asked.pending.map { SnapshotJoins.Join(source: $0, location: "", snapshot: .zero, started: 0) }
                let snapshot: StoreSnapshot?
                do throws(StoreError) { snapshot = try store.snapshotOffer(for: asked.knowledge, pending: pending) } catch { throw failure(error, store: name) }
                if let snapshot { offeredStates.keep(snapshot, store: name.rawValue) }
                return HTTPResponse(status: .ok, headers: ["Content-Type": RemoteProtocol.jsonType], body: StateOffer.responseBody(snapshot?.offer))
            }
        case .statePage(let idText):
            guard let id = SHA256Digest(hex: idText) else { throw ServiceFailure(.badRequest, "the state id must be a SHA-256 in hex") }
            guard let from = request.query["from"].flatMap({ Int($0) }), from >= 0,
                let limit = request.query["limit"].flatMap({ Int($0) }), limit >= 1
            else { throw ServiceFailure(.badRequest, "a state page needs ?from=N&limit=M (N ≥ 0, M ≥ 1)") }
            var byteBound = RemoteProtocol.maximumPageBytes
            if let text = request.query["maxBytes"] {
                guard let bytes = Int(text), bytes >= 1 else { throw ServiceFailure(.badRequest, "maxBytes must be at least 1") }
                byteBound = min(bytes, byteBound)
            }
            return try await statePage(
                id, from: from, limit: min(limit, RemoteProtocol.maximumPageSize), byteBound: byteBound, store: store, name: name)
        case .checkpoint(let replicaText):
            return try await saveCheckpoint(request, store: store, name: name, replicaText: replicaText)
        case .feed:
            return try await feed(of: store, name: name, request: request)
        case .push:
            throw ServiceFailure(.internalServerError, "unreachable")
        }
    }

    /// Opens (off the pool) the store called `name`; `404` when there is none.
    private func openStore(_ name: StoreName) async throws(ServiceFailure) -> Store {
        let registry = self.registry
        return try await work { () throws(ServiceFailure) -> Store in
            let found: Store?
            do throws(StoreError) { found = try registry.checkOut(named: name) } catch { throw failure(error, store: name) }
            guard let found else { throw ServiceFailure(.notFound, "no store named \(quoted(name.rawValue)) on this server") }
            return found
        }
    }

    // MARK: State

    /// A page of the versions of the state `id` offered: JSON Lines of changes from the
    /// `from`-th version on, at most `limit` and about `byteBound` bytes, then the trailer
    /// (`through` counts versions delivered, `head` all of them). A state no longer kept (the
    /// server restarted) is collected again when the store has not changed since; otherwise
    /// `410`: the client runs its sync again and resumes the join from the new state.
    private func statePage(
        _ id: SHA256Digest, from: Int, limit: Int, byteBound: Int, store: Store, name: StoreName
    ) async throws(ServiceFailure) -> HTTPResponse {
        let offeredStates = self.offeredStates
        return try await work { () throws(ServiceFailure) -> HTTPResponse in
            var snapshot: StoreSnapshot
            if let kept = offeredStates.state(id, store: name.rawValue) {
                snapshot = kept
            } else {
                let again: StoreSnapshot?
                do throws(StoreError) { again = try store.snapshotOffer(for: VersionVector(), pending: nil) } catch { throw failure(error, store: name) }
                guard let again, again.offer.id == id else {
                    throw ServiceFailure(.gone, "the state \(id.hex.prefix(12)) of \(quoted(name.rawValue)) is no longer offered: sync again to join from its current state")
                }
                offeredStates.keep(again, store: name.rawValue)
                snapshot = again
            }
            let total = snapshot.offer.changeCount
            guard from <= total else { throw ServiceFailure(.badRequest, "from=\(from) is past the state's \(total) versions") }
            snapshot.delivered = from
            var bytes: [UInt8] = []
            var count = 0
            // Read a few versions at a time until the page's bytes are reached: at least one
            // travels, however large.
            while count < limit, bytes.count < byteBound {
                let changes: [Change]?
                // One at a time while the page is small, so a page ends soon after its bound.
                let step = count < 16 ? 1 : max(1, min(64, limit - count, (byteBound - bytes.count) / max(1, bytes.count / count)))
                do throws(StoreError) { changes = try store.snapshotChanges(&snapshot, limit: step) } catch { throw failure(error, store: name) }
                guard let changes else { break }
                for change in changes {
                    change.writeCanonicalJSON(to: &bytes)
                    bytes.append(UInt8(ascii: "\n"))
                }
                count += changes.count
            }
            bytes += ChangeStreamTrailer(through: UInt64(from + count), head: UInt64(total), count: count).lineBytes
            return HTTPResponse(status: .ok, headers: ["Content-Type": RemoteProtocol.changeStreamType], body: bytes)
        }
    }

    // MARK: Changes

    /// Streams the changes `query` asks for as JSON Lines, a page of the journal at a time,
    /// then the trailer. The first page is read before answering, so a failure gets a status.
    /// - Parameter paged: whether the stream ends at a page's byte bound (the snapshot does not).
    /// - Parameter ended: called once the stream has ended (or failed), to give the store back.
    private func changeStream(
        from store: Store, name: StoreName, query: ChangeQuery, paged: Bool = true, ended: @escaping @Sendable () -> Void
    ) async throws(ServiceFailure) -> HTTPResponse {
        // Journal reads are sized by the bytes seen so far: a few changes first (they may be
        // huge), then as many as the read budget holds at the average size, so memory stays
        // near the budget even for records of many megabytes.
        let pageSize = min(query.limit, 2_000)
        let readBudget = RemoteProtocol.maximumPageBytes
        let first = try await work { () throws(ServiceFailure) -> ChangeBatch in
            do throws(StoreError) { return try store.changes(after: query.after, excluding: query.knowledge, limit: min(pageSize, 16)) } catch {
                throw failure(error, store: name)
            }
        }
        let log = self.log
        // A page ends at the query's byte bound (and never past the server's own), after the
        // change that crosses it: at least one change, however large, always travels.
        let byteBound = paged ? min(query.maximumBytes ?? RemoteProtocol.maximumPageBytes, RemoteProtocol.maximumPageBytes) : Int.max
        return HTTPResponse(headers: ["Content-Type": RemoteProtocol.changeStreamType]) { writer in
            defer { ended() }
            var batch = first
            var count = 0
            var sent = 0
            while true {
                var bytes: [UInt8] = []
                bytes.reserveCapacity(batch.changes.count * 256)
                for (offset, change) in batch.changes.enumerated() {
                    let start = bytes.count
                    change.writeCanonicalJSON(to: &bytes)
                    bytes.append(UInt8(ascii: "\n"))
                    count += 1
                    sent += bytes.count - start
                    if sent >= byteBound, offset < batch.sequences.count, offset + 1 < batch.changes.count || batch.through < batch.head {
                        let through = batch.sequences[offset]
                        bytes += ChangeStreamTrailer(through: through, head: batch.head, count: count).lineBytes
                        try await writer.write(bytes)
                        return
                    }
                }
                if batch.through >= batch.head || count >= query.limit {
                    bytes += ChangeStreamTrailer(through: batch.through, head: batch.head, count: count).lineBytes
                    try await writer.write(bytes)
                    return
                }
                try await writer.write(bytes)
                let average = max(1, sent / max(count, 1))
                let fitting = max(1, (byteBound == Int.max ? readBudget : min(readBudget, byteBound - sent)) / average)
                let (after, limit) = (batch.through, min(query.limit - count, pageSize, fitting))
                let next = await BlockingWork.run { () -> Result<ChangeBatch, StoreError> in
                    do throws(StoreError) { return .success(try store.changes(after: after, excluding: query.knowledge, limit: limit)) } catch {
                        return .failure(error)
                    }
                }
                switch next {
                case .success(let page): batch = page
                case .failure(let error):
                    log("store \(name): reading changes failed mid-stream: \(error)")
                    throw error
                }
            }
        }
    }

    // MARK: Push

    /// Applies a batch atomically (one durable journal append under the store's lock),
    /// creating the store first when it is missing.
    private func push(to name: StoreName, _ request: HTTPRequest) async throws(ServiceFailure) -> HTTPResponse {
        let push: PushRequest
        if let decoded = request.decodedBody as? PushRequest {
            push = decoded  // read as it arrived (see PushBodyConsumer)
        } else {
            do { push = try PushRequest(body: request.body) } catch { throw ServiceFailure(.badRequest, error.description) }
        }
        let (registry, skew) = (self.registry, min(push.maximumSkew ?? maximumClockSkew, maximumClockSkew))
        let client = "client \(request.remoteAddress)"
        let token = policy.isOpen ? nil : policy.grant(forAuthorization: request.headers["Authorization"])?.token
        return try await work { () throws(ServiceFailure) -> HTTPResponse in
            let store: Store
            let created: Bool
            do throws(StoreError) { (store, created) = try registry.storeCreatingIfMissing(named: name) } catch {
                throw failure(error, store: name)
            }
            defer { registry.checkIn(name) }
            try Self.checkHistoryClaims(push.changes, store: store, name: name)
            if let token {
                let taken: ReplicaID?
                do throws(StoreError) { taken = try store.bindUnsignedWork(of: push.changes, to: UnsignedWorkBook.holder(ofToken: token)) } catch {
                    throw failure(error, store: name)
                }
                if let taken {
                    throw ServiceFailure(
                        .forbidden,
                        "replica \(taken.short)'s changes carry no signature, and another token pushed its unsigned work first: "
                            + "only that token may push more of it (once that replica writes with this Ferry its work is signed, and any token may relay it)")
                }
            }
            let result: ReceiveResult
            do throws(SyncError) { result = try store.receive(push.changes, from: client, maximumSkew: skew) } catch {
                switch error {
                case .invalidChange: throw ServiceFailure(.badRequest, error.description)
                case .clockSkew, .alteredChange, .counterGap, .unsignedWork, .impersonated:
                    throw ServiceFailure(.unprocessableContent, error.description)
                case .divergedReplica: throw ServiceFailure(.conflict, error.description)
                case .store(let storeError): throw failure(storeError, store: name)
                default: throw ServiceFailure(.internalServerError, error.description)
                }
            }
            return Self.json(PushReply(result: result, created: created).jsonValue, status: created ? .created : .ok)
        }
    }

    /// Refuses changes that claim history of this store's own replica that it never made:
    /// a change stamped with its replica id beyond the last change it made, or a version
    /// vector that says it descends from such a change. Only this store makes changes of its
    /// own replica, so such a change is forged or comes from a copy of this store's folder
    /// that went its own way (two stores with one replica id), and accepting it would make
    /// two different changes share one identity.
    static func checkHistoryClaims(_ changes: [Change], store: Store, name: StoreName) throws(ServiceFailure) {
        let own = store.replicaID
        guard changes.contains(where: { $0.version[own] > 0 }) else { return }
        let made: UInt64
        do throws(StoreError) { made = try store.currentKnowledge()[own] } catch { throw failure(error, store: name) }
        for (index, change) in changes.enumerated() where change.version[own] > made {
            let what = change.origin == own ? "is" : "descends from"
            throw ServiceFailure(
                .conflict,
                "changes[\(index)] \(what) change \(own.short):\(change.version[own]) of store \(quoted(name.rawValue))'s own "
                    + "replica, which has made only \(made) changes; refusing history this store never made")
        }
    }

    // MARK: Checkpoints

    private func saveCheckpoint(
        _ request: HTTPRequest, store: Store, name: StoreName, replicaText: String
    ) async throws(ServiceFailure) -> HTTPResponse {
        guard let replica = ReplicaID(replicaText) else {
            throw ServiceFailure(.badRequest, "the checkpoint path must end with the client's replica UUID")
        }
        let members: [String: JSONValue]
        do { members = try RemoteMessageError.object(request.body, what: "the checkpoint") } catch {
            throw ServiceFailure(.badRequest, error.description)
        }
        guard let checkpoint = SyncCheckpoint(json: .object(members)) else {
            throw ServiceFailure(
                .badRequest,
                "the checkpoint needs peer (UUID), peerPosition, peerHash, localPosition, localHash (64 hex digits) and time (ISO 8601)")
        }
        guard checkpoint.peerStoreMark != nil else {
            throw ServiceFailure(.badRequest, "the checkpoint's peerMark must be the client store's position and hash")
        }
        guard checkpoint.peer == replica else {
            throw ServiceFailure(.badRequest, "the checkpoint's peer does not match the replica in its path")
        }
        guard replica != store.replicaID else {
            throw ServiceFailure(.badRequest, "a store keeps no checkpoint for its own replica")
        }
        return try await work { () throws(ServiceFailure) -> HTTPResponse in
            do {
                guard let hash = try store.entryHash(at: checkpoint.localPosition), hash == checkpoint.localHash else {
                    throw ServiceFailure(
                        .conflict,
                        "the checkpoint does not match this store's journal at position \(checkpoint.localPosition)")
                }
                // The name a replica goes by is the one it first gave: a later checkpoint for it,
                // which any writer may send, cannot rename it in this store's log.
                var saved = checkpoint
                if let known = (try? store.checkpoint(for: replica))?.peerName { saved.peerName = known }
                try store.saveCheckpoint(saved)
                try store.learnReplicaNames(ReplicaNameBook.names(in: members["names"]))
            } catch let error as ServiceFailure {
                throw error
            } catch let error as StoreError {
                throw failure(error, store: name)
            } catch {
                throw ServiceFailure(.internalServerError, "\(error)")
            }
            return HTTPResponse(status: .noContent)
        }
    }

    // MARK: Helpers

    /// Runs `body` off the cooperative pool.
    func work<T: Sendable>(_ body: @escaping @Sendable () throws(ServiceFailure) -> T) async throws(ServiceFailure) -> T {
        let result = await BlockingWork.run { () -> Result<T, ServiceFailure> in
            do throws(ServiceFailure) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

/// The status and message for a store error: a busy store is `503` (try again), anything else
/// `500` without the server's paths in the message.
func failure(_ error: StoreError, store name: StoreName) -> ServiceFailure {
    switch error {
    case .locked:
        return ServiceFailure(
            .serviceUnavailable, "store \(quoted(name.rawValue)) is busy; try again", headers: ["Retry-After": "1"])
    case .alreadyExists, .notAStore:
        return ServiceFailure(.conflict, "the server holds a folder named \(quoted(name.rawValue)) that is not a Ferry store")
    case .linkedFolder:
        return ServiceFailure(.conflict, "the server's folder for store \(quoted(name.rawValue)) is a symbolic link, which it does not follow")
    case .unsupportedFormat(let format, _):
        return ServiceFailure(.internalServerError, "store \(quoted(name.rawValue)) has format \(format), which this server cannot read")
    default:
        return ServiceFailure(
            .internalServerError, "store \(quoted(name.rawValue)) failed on the server; see its log", detail: error.description)
    }
}
