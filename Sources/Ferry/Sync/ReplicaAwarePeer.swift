/// A peer shared by many replicas that keeps something for each of them, and so must know which
/// replica syncs and how the exchange ended: a hub keeps a head per replica, with its record
/// count and when it was last seen.
///
/// The engine calls ``prepare(for:)`` before opening the peer, and ``exchangeSucceeded()``
/// after a sync that was not a dry run, before closing.
public protocol ReplicaAwarePeer: SyncTransport {
    /// Told, before ``SyncTransport/open()``, which replica is syncing (a hub needs it to know
    /// which of its heads is the replica's own and where to keep its cache).
    func prepare(for replica: any SyncReplica)
    /// Told that the exchange succeeded (a hub then notes that this replica was seen, even when
    /// there was nothing to exchange).
    /// An app backend saves there what it pulled in a sync that wrote nothing to it (which
    /// has no checkpoint to save there), and purges what was deleted long ago.
    func exchangeSucceeded() async throws(SyncError)
    /// What the exchange noticed without failing (a hub's segment that has not arrived yet).
    var notes: [String] { get }
}
