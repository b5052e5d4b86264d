import Foundation
@testable import Ferry

/// A store's peer memory put back where Ferry kept it before ``PeerMemory`` (main at 4b7af7f):
/// the same bytes, at the paths that code wrote them to.
///
/// - `Store.saveCheckpoint`: `layout.peers + "/" + peer + ".json"`;
/// - `HubCache.path`: `layout.hubs + "/" + SHA-256(location).hex.prefix(24) + ".json"`;
/// - `BackendState.folder`: `layout.engine + "/backends/" + SHA-256(location).hex.prefix(16)`.
///
/// The files' content did not change with the layout, so moving them back is exactly a store
/// that the old code wrote.
enum OldPeerLayout {
    /// Moves every peer memory of the (closed) store at `path` back to the old places.
    static func write(_ path: String) throws {
        let layout = StoreLayout(root: path)
        let files = FileManager.default
        for name in try files.contentsOfDirectory(atPath: layout.peers) {
            let folder = layout.peers + "/" + name
            if ReplicaID(name) != nil, files.fileExists(atPath: folder + "/checkpoint.json") {
                try files.moveItem(atPath: folder + "/checkpoint.json", toPath: layout.peers + "/" + name + ".json")
            } else if name.hasPrefix("hub-") {
                try files.createDirectory(atPath: layout.engine + "/hubs", withIntermediateDirectories: true)
                try files.moveItem(atPath: folder + "/hub-cache.json", toPath: layout.engine + "/hubs/" + name.dropFirst(4) + ".json")
            } else if name.hasPrefix("backend-") {
                try files.createDirectory(atPath: layout.engine + "/backends", withIntermediateDirectories: true)
                try files.moveItem(atPath: folder + "/backend", toPath: layout.engine + "/backends/" + name.dropFirst(8))
            }
            try files.removeItem(atPath: folder)
        }
    }

    /// The peer memory files below `.ferry/` of the store at `path`, relative to it, sorted.
    static func files(_ path: String) throws -> [String] {
        let engine = StoreLayout(root: path).engine
        return try FileManager.default.subpathsOfDirectory(atPath: engine).filter { relative in
            (relative.hasPrefix("peers/") || relative.hasPrefix("hubs/") || relative.hasPrefix("backends/"))
                && !relative.hasSuffix("/lock")
                && !FileSystem.isDirectory(engine + "/" + relative)
        }.map { ".ferry/" + $0 }.sorted()
    }
}
