/// Performs the steps a ``SyncSession`` decides, against the engine's replica and peer.
///
/// Two drivers share every read and every check (``SyncEngine``'s steps): ``LiveSyncDriver``
/// then writes, and ``DryRunSyncDriver`` counts, predicts and notes what would be refused, and
/// writes nothing. A dry run is the choice of driver, not a flag tested along the way.
protocol SyncDriver: Sendable {
    /// Takes the peer's snapshot first, when it offers one.
    func join(_ exchange: inout SyncEngine.Exchange, result: inout SyncReport) async throws(SyncError)
    /// Brings the peer's changes here.
    func pull(_ exchange: inout SyncEngine.Exchange, copyingAll: Bool, result: inout SyncReport) async throws(SyncError)
    /// Settles the conflicts among the records the pull wrote, by the policy.
    func resolve(_ exchange: SyncEngine.Exchange, result: inout SyncReport) throws(SyncError)
    /// Sends this store's changes the peer lacks; returns the peer's mark after them.
    func push(_ exchange: SyncEngine.Exchange, continuing mark: PeerMark?, result: inout SyncReport) async throws(SyncError) -> PeerMark?
    /// Saves the checkpoints the session decided.
    func saveCheckpoints(_ checkpoints: SyncSession.Checkpoints, exchange: SyncEngine.Exchange) async throws(SyncError)
    /// Completes the report.
    func finish(_ exchange: SyncEngine.Exchange, result: inout SyncReport) async throws(SyncError)
    /// After the last round: tells a peer that keeps something for each replica that the sync
    /// succeeded (a hub notes the replica as seen; an app backend saves a pull-only sync's pull
    /// and purges what was deleted long ago).
    func succeeded() async throws(SyncError)
}
