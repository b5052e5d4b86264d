/// The driver of a sync that writes: it joins, applies, resolves, pushes and saves the
/// checkpoints, and a safety check that fails stops the sync before anything is written.
struct LiveSyncDriver: SyncDriver {
    let engine: SyncEngine

    func join(_ exchange: inout SyncEngine.Exchange, result: inout SyncReport) async throws(SyncError) {
        guard let (offer, source) = try await engine.snapshotOffer(exchange, result: &result) else { return }
        if engine.replica.recordCount > 0 {
            // A re-join deletes what was deleted meanwhile: the same limit as for a pull.
            try await engine.checkSnapshotDeletions(offer, from: source, knowledge: exchange.localKnowledge, pending: exchange.pendingJoin)
        }
        try await engine.join(
            from: offer, of: source, knowledge: exchange.localKnowledge, pending: exchange.pendingJoin, result: &result, touched: &exchange.touched)
        do { exchange.localFrontier = try engine.replica.currentFrontier() } catch { throw .store(error) }
        // From a store: its journal is read on from the entry the state stands for.
        exchange.pulledThrough = max(exchange.pulledThrough, offer.position ?? 0)
    }

    func pull(_ exchange: inout SyncEngine.Exchange, copyingAll: Bool, result: inout SyncReport) async throws(SyncError) {
        if copyingAll {
            try await engine.copyAll(&exchange, result: &result)
            return
        }
        let firstPosition = exchange.pulledThrough
        let incoming = try await engine.readIncoming(&exchange, spoolDirectory: engine.options.spoolDirectory)
        try engine.refuseLocalDeletions(incoming.deletions)
        try await engine.apply(incoming.checked, after: firstPosition, &exchange, result: &result)
    }

    func resolve(_ exchange: SyncEngine.Exchange, result: inout SyncReport) throws(SyncError) {
        engine.report(SyncProgress(phase: .resolving, completed: 0, total: nil))
        do { result.resolved = try engine.replica.resolveConflicts(among: exchange.touched, policy: engine.options.policy) } catch {
            throw .store(error)
        }
    }

    func push(_ exchange: SyncEngine.Exchange, continuing mark: PeerMark?, result: inout SyncReport) async throws(SyncError) -> PeerMark? {
        let outgoing = try engine.readOutgoing(exchange)
        try await engine.checkPeerDeletions(outgoing, exchange)
        return try await engine.send(outgoing, exchange, continuing: mark, result: &result)
    }

    func saveCheckpoints(_ checkpoints: SyncSession.Checkpoints, exchange: SyncEngine.Exchange) async throws(SyncError) {
        try await engine.saveCheckpoints(checkpoints, exchange: exchange)
    }

    func succeeded() async throws(SyncError) {
        try await (engine.transport as? ReplicaAwarePeer)?.exchangeSucceeded()
    }

    func finish(_ exchange: SyncEngine.Exchange, result: inout SyncReport) async throws(SyncError) {
        result.conflicts = try engine.conflictedKeys()
        engine.report(SyncProgress(phase: .done, completed: result.pulled + result.pushed, total: nil))
    }
}
