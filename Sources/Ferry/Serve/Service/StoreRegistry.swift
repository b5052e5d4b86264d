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
package final class StoreRegistry: @unchecked Sendable {
    /// The directory holding one store folder per name.
    package let root: String
    /// The most stores kept open at once; beyond it, the least recently used store that no
    /// request is using is closed (each open store holds two or three file descriptors).
    package let maximumOpen: Int
    private let options: StoreOptions
    private let lock = NSLock()
    private var open: [StoreName: Entry] = [:]
    private var tick: UInt64 = 0

    private struct Entry {
        var store: Store
        /// Requests using it now (checked out and not yet back).
        var users = 0
        /// When it was last checked out or in, for least-recently-used closing.
        var lastUsed: UInt64 = 0
    }

    /// Serves the stores under `root`, opened with `options`.
    package init(root: String, options: StoreOptions = StoreOptions(), maximumOpen: Int = 256) {
        self.root = root
        self.options = options
        self.maximumOpen = max(1, maximumOpen)
    }

    /// The store's directory.
    package func path(of name: StoreName) -> String { root + "/" + name.rawValue }

    /// The number of stores open now.
    package var openCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return open.count
    }

    /// The store called `name` if it is already open: no file is touched, so a request can
    /// take this path without leaving its task.
    package func openStore(named name: StoreName) -> Store? {
        lock.lock()
        defer { lock.unlock() }
        return open[name]?.store
    }

    /// The store called `name` checked out for a request (see ``checkOut(named:)``) if it is
    /// already open; `nil` otherwise, without touching a file.
    package func checkOutIfOpen(named name: StoreName) -> Store? {
        lock.lock()
        defer { lock.unlock() }
        guard var entry = open[name] else { return nil }
        tick += 1
        entry.users += 1
        entry.lastUsed = tick
        open[name] = entry
        return entry.store
    }

    /// The store called `name`, opened if needed; `nil` when there is no such store.
    /// - Throws: ``StoreError`` when the store exists but cannot be opened.
    package func store(named name: StoreName) throws(StoreError) -> Store? {
        lock.lock()
        defer { lock.unlock() }
        return try openLocked(name, checkingOut: false)
    }

    /// The store called `name` for one request, which gives it back with ``checkIn(_:)``: until
    /// then it is never closed to make room. `nil` when there is no such store.
    package func checkOut(named name: StoreName) throws(StoreError) -> Store? {
        lock.lock()
        defer { lock.unlock() }
        return try openLocked(name, checkingOut: true)
    }

    /// Gives back a store taken with ``checkOut(named:)`` or ``storeCreatingIfMissing(named:)``,
    /// and closes the least recently used idle stores while more than ``maximumOpen`` are open.
    package func checkIn(_ name: StoreName) {
        lock.lock()
        if var entry = open[name] {
            entry.users = max(0, entry.users - 1)
            tick += 1
            entry.lastUsed = tick
            open[name] = entry
        }
        let closing = evictLocked()
        lock.unlock()
        for store in closing { store.close() }
    }

    private func openLocked(_ name: StoreName, checkingOut: Bool) throws(StoreError) -> Store? {
        tick += 1
        if var entry = open[name] {
            if checkingOut { entry.users += 1 }
            entry.lastUsed = tick
            open[name] = entry
            return entry.store
        }
        let layout = StoreLayout(root: path(of: name))
        try refuseLink(layout.root)
        guard FileSystem.exists(layout.manifest) else { return nil }
        let store = try Store.open(at: layout.root, options: options)
        open[name] = Entry(store: store, users: checkingOut ? 1 : 0, lastUsed: tick)
        return store
    }

    /// The stores to close so that at most ``maximumOpen`` stay open: least recently used
    /// first, never one a request is using. Caller holds the lock and closes them after.
    private func evictLocked() -> [Store] {
        guard open.count > maximumOpen else { return [] }
        let idle = open.filter { $0.value.users == 0 }.sorted { $0.value.lastUsed < $1.value.lastUsed }
        var closing: [Store] = []
        for (name, entry) in idle.prefix(open.count - maximumOpen) {
            open[name] = nil
            closing.append(entry.store)
        }
        return closing
    }

    /// Refuses a store folder that is a symbolic link: it may lead out of the root.
    private func refuseLink(_ path: String) throws(StoreError) {
        let status: FileStatus?
        do { status = try FileSystem.status(path) } catch { throw .io(error) }
        if status?.kind == .symbolicLink {
            throw .linkedFolder(path: path)
        }
    }

    /// The store called `name`, created empty (named after it) when missing, checked out for
    /// the request (give it back with ``checkIn(_:)``). Creation is atomic: the store is made in
    /// a hidden folder beside and renamed into place, so a failure leaves nothing behind.
    /// - Returns: the store and whether this call created it.
    /// - Throws: ``StoreError`` when it can be neither opened nor created (a folder of that
    ///   name that is not a store, say).
    package func storeCreatingIfMissing(named name: StoreName) throws(StoreError) -> (store: Store, created: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if let store = try openLocked(name, checkingOut: true) { return (store, false) }
        let layout = StoreLayout(root: path(of: name))
        if FileSystem.exists(layout.root) {
            // A folder that is not a store: never made into one behind its owner's back.
            throw .alreadyExists(path: layout.root)
        }
        let staging = root + "/.creating-" + name.rawValue + "-\(FileSystem.processID)"
        try? FileSystem.removeTree(staging)
        do {
            let made = try Store.create(at: staging, name: name.rawValue, options: options)
            made.close()
            try FileSystem.rename(staging, to: layout.root)
            try FileSystem.synchronizeDirectory(root)
        } catch let error as StoreError {
            try? FileSystem.removeTree(staging)
            throw error
        } catch let error as SystemError {
            try? FileSystem.removeTree(staging)
            throw .io(error)
        } catch {
            try? FileSystem.removeTree(staging)
            throw .coding("\(error)")
        }
        let store = try Store.open(at: layout.root, options: options)
        tick += 1
        open[name] = Entry(store: store, users: 1, lastUsed: tick)
        return (store, true)
    }

    /// The names of the stores under the root, sorted (folders that are not stores are left out).
    package func storeNames() -> [StoreName] {
        guard let entries = try? FileSystem.contents(ofDirectory: root) else { return [] }
        return entries.compactMap { entry in
            guard entry.kind == .directory, let name = try? StoreName(entry.name),
                FileSystem.exists(StoreLayout(root: path(of: name)).manifest)
            else { return nil }
            return name
        }.sorted()
    }

    /// Closes every open store (saving index snapshots); later requests reopen them.
    package func closeAll() {
        lock.lock()
        let stores = open.values.map(\.store)
        open = [:]
        lock.unlock()
        for store in stores { store.close() }
    }
}
