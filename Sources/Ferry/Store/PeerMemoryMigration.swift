/// Moves what a store remembers of its peers from the places Ferry used before
/// ``PeerMemory`` into `.ferry/peers/<peer id>/`. ``Store/open(at:options:)`` runs it under the
/// store's lock, every time (when there is nothing to move, it costs two `stat`s of folders
/// that are gone and two listings of `.ferry/peers/`).
///
/// | before                              | after                                      |
/// |-------------------------------------|--------------------------------------------|
/// | `.ferry/peers/<replica>.json`       | `.ferry/peers/<replica>/checkpoint.json`   |
/// | `.ferry/hubs/<24 hex>.json`         | `.ferry/peers/hub-<24 hex>/hub-cache.json` |
/// | `.ferry/backends/<16 hex>/`         | `.ferry/peers/backend-<16 hex>/backend/`   |
///
/// Each item moves by one `rename`, after its new folder is made and synced, and the folders
/// on both sides are synced after it: a crash leaves every item in the old place or the new,
/// never lost and never half moved, and the next open moves what is left. Running it again
/// changes nothing. Names that are not what Ferry wrote (a temporary file, a stray note) are
/// left where they are.
///
/// When an item is in both places, the old place's wins: only a Ferry from before this layout
/// writes there, and only after this store was migrated (a newer Ferry moves it on its open
/// before writing anything), so that copy is the one its last sync wrote. A checkpoint or
/// cache replaces the new one in the same rename; a backend folder is swapped in and the one it
/// replaces is removed (its stand-in replica's changes stay in the journal).
///
/// Neither the store's format nor `ferry.json` change: see docs/FORMAT.md, "Peer memory".
enum PeerMemoryMigration {
    /// Moves everything found in the old places; idempotent.
    /// - Throws: the first I/O error; what was moved before it stays moved.
    static func migrate(_ layout: StoreLayout) throws(SystemError) {
        let hubs = legacyHubs(layout)
        let backends = legacyBackends(layout)
        try moveCheckpoints(layout)
        for name in try legacyNames(in: hubs) where name.hasSuffix(".json") {
            let stem = String(name.dropLast(5))
            guard isHex(stem, digits: 24), let id = PeerMemoryID(rawValue: PeerMemoryID.hubPrefix + stem) else { continue }
            let memory = layout.peerMemory(for: id)
            try move(hubs + "/" + name, to: memory.hubCache, in: memory)
        }
        for name in try legacyNames(in: backends) where isHex(name, digits: 16) && FileSystem.isDirectory(backends + "/" + name) {
            guard let id = PeerMemoryID(rawValue: PeerMemoryID.backendPrefix + name) else { continue }
            let memory = layout.peerMemory(for: id)
            if FileSystem.exists(memory.backend) {
                let replaced = memory.folder + "/backend-replaced"
                try FileSystem.removeTree(replaced)
                try FileSystem.rename(memory.backend, to: replaced)
                try FileSystem.synchronizeDirectory(memory.folder)
            }
            try move(backends + "/" + name, to: memory.backend, in: memory)
        }
        // A crash after a swap above leaves the replaced folder; nothing reads it.
        for name in try legacyNames(in: layout.peers) where PeerMemoryID(rawValue: name) != nil {
            try FileSystem.removeTree(layout.peers + "/" + name + "/backend-replaced")
        }
        for folder in [hubs, backends] where FileSystem.removeEmptyDirectory(folder) {
            try FileSystem.synchronizeDirectory(layout.engine)
        }
    }

    /// `.ferry/hubs`, where hub caches were.
    static func legacyHubs(_ layout: StoreLayout) -> String { layout.engine + "/hubs" }
    /// `.ferry/backends`, where backend folders were.
    static func legacyBackends(_ layout: StoreLayout) -> String { layout.engine + "/backends" }

    /// `.ferry/peers/<replica>.json` -> `.ferry/peers/<replica>/checkpoint.json`.
    private static func moveCheckpoints(_ layout: StoreLayout) throws(SystemError) {
        for name in try legacyNames(in: layout.peers) where name.hasSuffix(".json") {
            guard let peer = ReplicaID(String(name.dropLast(5))), FileSystem.isRegularFile(layout.peers + "/" + name) else { continue }
            let memory = layout.peerMemory(for: .replica(peer))
            try move(layout.peers + "/" + name, to: memory.checkpoint, in: memory)
        }
    }

    /// One item into `memory`'s folder, durably (the folder first, then the rename).
    private static func move(_ source: String, to destination: String, in memory: PeerMemory) throws(SystemError) {
        try memory.create(durable: true)
        try FileSystem.rename(source, to: destination)
        try FileSystem.synchronizeDirectory(memory.folder)
        try FileSystem.synchronizeDirectory(FileSystem.parentPath(of: source))
    }

    /// The names in `folder`; none when it does not exist (nothing to move).
    private static func legacyNames(in folder: String) throws(SystemError) -> [String] {
        guard FileSystem.isDirectory(folder) else { return [] }
        return try FileSystem.contents(ofDirectory: folder).map(\.name).sorted()
    }

    private static func isHex(_ text: String, digits: Int) -> Bool {
        text.utf8.count == digits
            && text.utf8.allSatisfy { $0.isASCIIDigit || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }
}
