@testable import Ferry

/// A folder peer seen through a test's wrapper: every requirement, the join's included, is
/// forwarded to `inner`; a subclass overrides what it alters (pages read again, versions
/// rewritten on the way).
class ForwardingFolderPeer: SyncTransport, StateStatingSource, WriteCheck, @unchecked Sendable {
    let inner: FolderTransport

    init(_ inner: FolderTransport) { self.inner = inner }

    var peerDescription: String { inner.peerDescription }
    func open() async throws(SyncError) -> PeerInfo { try await inner.open() }
    func close() async { await inner.close() }
    func frontier() async throws(SyncError) -> ReplicaFrontier { try await inner.frontier() }
    func mayWrite() async -> Bool? { await inner.mayWrite() }
    func liveRecordCount() async throws(SyncError) -> Int { try await inner.liveRecordCount() }
    func resume(from mark: PeerMark) async throws(SyncError) -> UInt64? { try await inner.resume(from: mark) }
    func changes(after position: UInt64, excluding knowledge: VersionVector, limit: Int) async throws(SyncError) -> ChangeBatch {
        try await inner.changes(after: position, excluding: knowledge, limit: limit)
    }
    func push(_ changes: [Change], maximumSkew: UInt64, continuing mark: PeerMark?) async throws(SyncError) -> PushResult {
        try await inner.push(changes, maximumSkew: maximumSkew, continuing: mark)
    }
    func saveCheckpoint(_ checkpoint: PeerCheckpoint) async throws(SyncError) { try await inner.saveCheckpoint(checkpoint) }
    func snapshotOffer(for knowledge: VersionVector, pending: SnapshotJoins.Join?) async throws(SyncError) -> SnapshotOffer? {
        try await inner.snapshotOffer(for: knowledge, pending: pending)
    }
    func snapshotChanges(limit: Int) async throws(SyncError) -> [Change]? { try await inner.snapshotChanges(limit: limit) }
    var joinSource: (id: ReplicaID, location: String)? { inner.joinSource }
    func statementOfStateRead() async throws(SyncError) -> JSONValue? { try await inner.statementOfStateRead() }
}
