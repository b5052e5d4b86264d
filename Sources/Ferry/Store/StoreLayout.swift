/// The paths inside a store directory.
///
/// ```
/// mystore/
///   ferry.json                 manifest
///   records/<Entity>/<file>    one live record per file
///   conflicts/<Entity>/<file>  losing versions awaiting resolution
///   journal/                   append-only change journal
///   .ferry/                    engine state: index, lock, …
///     names.json               names of replicas heard from peers (see ReplicaNameBook)
///     remotes.json             named peers: `ferry remote add` (see NamedPeers)
///     watch/                   a running hand-edit monitor's state (see HandEditMonitor)
///     peers/<peer id>/         everything remembered of one peer (see PeerMemory):
///       checkpoint.json          a store or hub peer's sync checkpoint
///       hub-cache.json           a hub's heads and snapshots, as last read
///       backend/                 an app backend's state.json, bases/ and lock
/// ```
///
/// The peer id is a replica id for a store peer, `hub-<digest of the location>` for a hub's
/// cache and `backend-<digest of the location>` for an app backend (see `PeerMemoryID`).
/// Stores written before this layout are moved to it when they are opened
/// (see `PeerMemoryMigration`).
public struct StoreLayout: Sendable, Hashable {
    /// The store directory.
    public let root: String

    public init(root: String) {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.root = root
    }

    public var manifest: String { root + "/ferry.json" }
    public var records: String { root + "/records" }
    public var conflicts: String { root + "/conflicts" }
    public var journal: String { root + "/journal" }
    public var engine: String { root + "/.ferry" }
    public var index: String { engine + "/index" }
    public var indexDelta: String { engine + "/index-delta" }
    /// A new index file (an image, a delta or a spill) being written on another thread,
    /// swapped in over ``index`` or ``indexDelta`` when done.
    public var indexMerging: String { engine + "/index-merging" }
    public var lock: String { engine + "/lock" }
    /// This replica's private signing key (mode 0600, never synced; see ``ReplicaSigningKey``).
    public var signingKey: String { engine + "/signing-key" }
    /// The public keys this store holds for other replicas (see ``ReplicaKeyBook``).
    public var keyBook: String { engine + "/keys.json" }
    /// Which `ferry serve` token first pushed each replica's unsigned work (see
    /// `UnsignedWorkBook`); only on a served store.
    public var unsignedWorkBook: String { engine + "/unsigned-work.json" }
    /// What this store remembers of its peers, one folder per peer (see `PeerMemory`).
    public var peers: String { engine + "/peers" }
    /// The names of replicas heard from peers (see ``ReplicaNameBook``).
    public var replicaNames: String { engine + "/names.json" }
    /// The peers this store syncs with by name (see ``NamedPeers``).
    public var namedPeers: String { engine + "/remotes.json" }
    /// The snapshots the store joined from, and the frontier they brought (see ``SnapshotJoins``).
    public var snapshotJoins: String { engine + "/base.json" }
    /// The new record files a large batch names before its journal entries are durable
    /// (see ``NewFileIntent``); empty when no batch is in flight.
    public var newFileIntent: String { engine + "/new-files" }
    /// The spare file that replaced record files are swapped through (engine scratch).
    public var spareFile: String { engine + "/spare" }
    /// What a running hand-edit monitor publishes, and what a consumer remembers of it
    /// (see ``HandEditMonitor``): `state.json`, `baseline.json`, `publisher.lock`, `cookies/`, `publishes`.
    public var handEditMonitor: String { engine + "/watch" }
    /// The monitor's published state (``HandEditMonitorState``), replaced whole on each publish.
    public var handEditMonitorState: String { handEditMonitor + "/state.json" }
    /// What the last `status` or `commit` found, at which point of the monitor's state
    /// (``HandEditBaseline``).
    public var handEditBaseline: String { handEditMonitor + "/baseline.json" }
    /// The `flock` a running monitor holds: one publisher per store.
    public var handEditMonitorLock: String { handEditMonitor + "/publisher.lock" }
    /// Where a consumer drops a cookie file, and waits until the monitor says it saw it.
    public var handEditCookies: String { handEditMonitor + "/cookies" }
    /// The socket on which a running monitor tells consumers of other processes that it
    /// published (``HandEditMonitorDoorbell``).
    public var handEditMonitorDoorbell: String { handEditMonitor + "/publishes" }

    /// `records/<Entity>`.
    public func entityDirectory(_ entity: EntityName) -> String { records + "/" + entity.rawValue }

    /// The live record file of `key`.
    public func recordFile(_ key: RecordKey) -> String {
        let relative = RecordFileName.relativePath(for: key.id)
        var path = ""
        path.reserveCapacity(root.utf8.count + key.entity.rawValue.utf8.count + relative.utf8.count + 10)
        path += root
        path += "/records/"
        path += key.entity.rawValue
        path += "/"
        path += relative
        return path
    }

    /// The path of `key`'s file relative to the store, as reports show it.
    public func relativeRecordPath(_ key: RecordKey) -> String {
        "records/" + key.entity.rawValue + "/" + RecordFileName.relativePath(for: key.id)
    }

    /// A losing version's file under `conflicts/<Entity>/`.
    public func conflictFile(_ key: RecordKey, version: ChangeIdentity) -> String {
        conflicts + "/" + key.entity.rawValue + "/"
            + RecordFileName.relativePath(
                for: key.id, suffix: "@\(version.origin.rawValue)-\(version.counter).json")
    }
}
