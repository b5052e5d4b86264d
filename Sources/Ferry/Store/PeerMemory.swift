/// Everything a store remembers of one peer, in one folder: `.ferry/peers/<peer id>/` (the id
/// rule is ``PeerMemoryID``'s).
///
/// ```
/// .ferry/peers/<peer id>/
///   checkpoint.json    what this store last exchanged with a store or hub peer (SyncCheckpoint)
///   hub-cache.json     the heads and snapshots last read from a hub (HubCache)
///   backend/           an app backend's state.json, bases/ and lock (BackendState)
/// ```
///
/// A folder holds the files of one kind of peer: a store's has a checkpoint, a hub location's
/// a cache, a backend's its `backend/` folder. Nothing here is derived from the journal: it is
/// what makes the next sync incremental, so it is never deleted to make room.
///
/// ```swift
/// let memory = store.layout.peerMemory(for: .replica(peer))
/// let bytes = try FileSystem.readFile(memory.checkpoint)
/// ```
struct PeerMemory: Sendable, Hashable {
    /// Whose memory this is.
    let id: PeerMemoryID
    /// `.ferry/peers/<peer id>`.
    let folder: String

    init(id: PeerMemoryID, peers: String) {
        self.id = id
        folder = peers + "/" + id.rawValue
    }

    static let checkpointName = "checkpoint.json"
    static let hubCacheName = "hub-cache.json"
    static let backendName = "backend"

    /// The sync checkpoint (``SyncCheckpoint``) of a store or hub peer.
    var checkpoint: String { folder + "/" + Self.checkpointName }
    /// A hub's cache (``HubCache``).
    var hubCache: String { folder + "/" + Self.hubCacheName }
    /// An app backend's folder (``BackendState``).
    var backend: String { folder + "/" + Self.backendName }

    /// Creates the folder (and `.ferry/peers/`) when missing; with `durable`, the new entries
    /// are synced, so a durable write inside it survives a crash with its folder.
    func create(durable: Bool) throws(SystemError) {
        let created = try FileSystem.createDirectories(folder)
        guard durable else { return }
        for directory in created { try FileSystem.synchronizeDirectory(FileSystem.parentPath(of: directory)) }
    }

    /// Every checkpoint file under `.ferry/peers/`, by peer: `<peer>/checkpoint.json`, and the
    /// `<peer>.json` of a store not yet migrated (see ``PeerMemoryMigration``), which is newer
    /// when both are there. Readers that do not migrate (`ferry verify`) read through this.
    /// - Returns: each peer once, with the path relative to the store, in the order of the ids.
    /// - Throws: when `.ferry/peers/` is there but cannot be listed: no caller that would then
    ///   drop what a peer was not sent may take that for "no peers".
    static func checkpointFiles(in layout: StoreLayout) throws(SystemError) -> [(peer: ReplicaID, relativePath: String)] {
        // Nothing to list is no checkpoint: a store that has never synced has no folder here.
        guard FileSystem.exists(layout.peers) else { return [] }
        let entries = try FileSystem.contents(ofDirectory: layout.peers)
        var found: [ReplicaID: String] = [:]
        for entry in entries {
            if let peer = ReplicaID(entry.name), FileSystem.isRegularFile(layout.peers + "/" + entry.name + "/" + checkpointName) {
                if found[peer] == nil { found[peer] = ".ferry/peers/" + entry.name + "/" + checkpointName }
            } else if entry.name.hasSuffix(".json"), let peer = ReplicaID(String(entry.name.dropLast(5))) {
                found[peer] = ".ferry/peers/" + entry.name
            }
        }
        return found.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

extension StoreLayout {
    /// The folder of everything this store remembers of one peer (see ``PeerMemory``).
    func peerMemory(for id: PeerMemoryID) -> PeerMemory { PeerMemory(id: id, peers: peers) }
}
