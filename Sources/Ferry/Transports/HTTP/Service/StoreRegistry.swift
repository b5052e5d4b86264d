import Foundation

/// The stores under a server's root, each opened once, on first use, and shared by every
/// request for it (``Store`` serializes its own methods and takes its file lock per write, so
/// `ferry` commands on the server machine can still use the stores).
///
/// ```swift
/// let registry = StoreRegistry(root: "/srv/ferry", options: StoreOptions())
/// if let alice = try registry.store(named: try StoreName("alice")) { … }
/// registry.closeAll()
/// ```
public final class StoreRegistry: @unchecked Sendable {
    /// The directory holding one store folder per name.
    public let root: String
    private let options: StoreOptions
    private let lock = NSLock()
    private var open: [StoreName: Store] = [:]

    /// Serves the stores under `root`, opened with `options`.
    public init(root: String, options: StoreOptions = StoreOptions()) {
        self.root = root
        self.options = options
    }

    /// The store's directory.
    public func path(of name: StoreName) -> String { root + "/" + name.rawValue }

    /// The store called `name` if it is already open: no file is touched, so a request can
    /// take this path without leaving its task.
    public func openStore(named name: StoreName) -> Store? {
        lock.lock()
        defer { lock.unlock() }
        return open[name]
    }

    /// The store called `name`, opened if needed; `nil` when there is no such store.
    /// - Throws: ``StoreError`` when the store exists but cannot be opened.
    public func store(named name: StoreName) throws(StoreError) -> Store? {
        lock.lock()
        defer { lock.unlock() }
        if let store = open[name] { return store }
        let layout = StoreLayout(root: path(of: name))
        guard FileSystem.exists(layout.manifest) else { return nil }
        let store = try Store.open(at: layout.root, options: options)
        open[name] = store
        return store
    }

    /// The store called `name`, created empty (named after it) when missing.
    /// - Returns: the store and whether this call created it.
    /// - Throws: ``StoreError`` when it can be neither opened nor created (a folder of that
    ///   name that is not a store, say).
    public func storeCreatingIfMissing(named name: StoreName) throws(StoreError) -> (store: Store, created: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if let store = open[name] { return (store, false) }
        let layout = StoreLayout(root: path(of: name))
        if FileSystem.exists(layout.manifest) {
            let store = try Store.open(at: layout.root, options: options)
            open[name] = store
            return (store, false)
        }
        let store = try Store.create(at: layout.root, name: name.rawValue, options: options)
        open[name] = store
        return (store, true)
    }

    /// The names of the stores under the root, sorted (folders that are not stores are left out).
    public func storeNames() -> [StoreName] {
        guard let entries = try? FileSystem.contents(ofDirectory: root) else { return [] }
        return entries.compactMap { entry in
            guard let name = try? StoreName(entry.name), FileSystem.exists(StoreLayout(root: path(of: name)).manifest) else {
                return nil
            }
            return name
        }.sorted()
    }

    /// Closes every open store (saving index snapshots); later requests reopen them.
    public func closeAll() {
        lock.lock()
        let stores = Array(open.values)
        open = [:]
        lock.unlock()
        for store in stores { store.close() }
    }
}
