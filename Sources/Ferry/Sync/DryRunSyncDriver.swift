/// The driver of a dry run: every read and check of a sync, and no write. It counts what would
/// be pulled and pushed, predicts the conflicts, and notes in the report what would be refused
/// (a mass deletion, a push the token may not make) instead of failing.
struct DryRunSyncDriver: SyncDriver {
    let engine: SyncEngine

    func join(_ exchange: inout SyncEngine.Exchange, result: inout SyncReport) async throws(SyncError) {
        guard let (offer, source) = try await engine.snapshotOffer(exchange, result: &result) else { return }
        if engine.replica.recordCount > 0 {
            let knowledge = exchange.localKnowledge
            let pending = exchange.pendingJoin
            try await note(&result) { () async throws(SyncError) in
                try await engine.checkSnapshotDeletions(offer, from: source, knowledge: knowledge, pending: pending)
            }
        }
        // A store's state is proven as the join would (a hub's was, before it was offered).
        if offer.position != nil { _ = try await engine.readProvenState(offer, from: source, keeping: false, result: &result) }
    }

    func pull(_ exchange: inout SyncEngine.Exchange, copyingAll: Bool, result: inout SyncReport) async throws(SyncError) {
        let incoming = try await engine.readIncoming(&exchange, spoolDirectory: nil, predicting: true)
        try await note(&result) { () throws(SyncError) in try engine.refuseLocalDeletions(incoming.deletions) }
        result.pulled = incoming.checked.count
        // The policy settles some conflicts as the live run's resolve step would; each
        // settlement is a change of this store's that the push then carries.
        let settled = engine.predictedResolutions(incoming.predicted)
        result.resolved = settled.count
        exchange.predictedConflicts = Set(incoming.predicted.keys).subtracting(settled)
    }

    func resolve(_ exchange: SyncEngine.Exchange, result: inout SyncReport) throws(SyncError) {}

    func push(_ exchange: SyncEngine.Exchange, continuing mark: PeerMark?, result: inout SyncReport) async throws(SyncError) -> PeerMark? {
        let outgoing = try engine.readOutgoing(exchange)
        try await note(&result) { () async throws(SyncError) in try await engine.checkPeerDeletions(outgoing, exchange) }
        let count = outgoing.checked.count + result.resolved
        result.pushed = count
        if count > 0, let check = engine.transport as? WriteCheck, await check.mayWrite() == false {
            result.refusals.append(
                "\(engine.transport.peerDescription) may not be written with this token: the push of \(count) "
                    + "change\(count == 1 ? "" : "s") would be refused (403); sync with --pull-only, or use a read-write token")
        }
        return mark
    }

    func saveCheckpoints(_ checkpoints: SyncSession.Checkpoints, exchange: SyncEngine.Exchange) async throws(SyncError) {}

    func succeeded() async throws(SyncError) {}

    func finish(_ exchange: SyncEngine.Exchange, result: inout SyncReport) async throws(SyncError) {
        result.conflicts = Set(try engine.conflictedKeys()).union(exchange.predictedConflicts).sorted()
    }

    /// Runs a safety check, noting a refusal in the report instead of failing.
    private func note(_ result: inout SyncReport, _ check: () async throws(SyncError) -> Void) async throws(SyncError) {
        do { try await check() } catch {
            guard case .massDeletion = error else { throw error }
            result.refusals.append(error.description)
        }
    }
}
