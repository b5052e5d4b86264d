import Foundation

/// A Ferry store: records as JSON files in a plain directory, every change first written to
/// a durable, hash-chained journal.
///
/// ```swift
/// let store = try Store.create(at: "./data")
/// let id = try store.put(["name": "Lamp", "price": 12.5], entity: EntityName("Product"))
/// let lamp = try store.get(entity: EntityName("Product"), id: id)
/// try store.delete(entity: EntityName("Product"), id: id)
/// store.close()
/// ```
///
/// A `Store` may be shared between threads; its methods are serialized. Several processes may
/// open one store: each write takes the store's lock and first catches up with what the others
/// appended.
public final class Store: @unchecked Sendable {
    /// The store's directories and files.
    public let layout: StoreLayout
    /// The store's manifest (format, replica id, name).
    public let manifest: StoreManifest
    let options: StoreOptions
    let mutex = NSRecursiveLock()
    let lock: StoreLock
    var journal: Journal
    var index: StoreIndex
    var clock: HybridLogicalClock
    /// The journal sequence the index image, or the last merge (into a image, the delta or
    /// a spill), covers: where the next merge's interval starts.
    var imageSequence: UInt64 = 0
    /// Whether file stamps changed since the image (a status scan confirmed files).
    var stampsChanged = false
    /// The journal sequence the image plus delta on disk cover.
    var persistedHead: UInt64 = 0
    /// A new image being written on another thread, if any (see ``IndexMerge``).
    var indexMerge: IndexMerge?
    /// A merge interval for the current run of writes, lower than ``StoreOptions/mergeInterval``
    /// (see ``StreamedImport``); `nil` for the store's.
    var mergeIntervalOverride: Int?
    /// Told how far the local writes of the current run have got (journaling, the index, the
    /// record files), step by step; set by an import around its write, `nil` otherwise.
    var writeProgress: WorkProgressHandler?
    /// The most record states held in memory after a batch of writes, since the store was
    /// opened: what the merge interval bounds.
    var inMemoryHighWater = 0
    var isClosed = false
    /// Swaps new record files in over old ones, reusing inodes (see ``FileReplacer``).
    let fileReplacer: FileReplacer
    /// This replica's signing key, once read or made (see ``signingKey()``).
    var loadedSigningKey: ReplicaSigningKey?
    /// The keys held for other replicas, once read (see ``keyBook()``).
    var loadedKeyBook: ReplicaKeyBook?
    /// Digests of signed changes whose signatures were checked in this process (see ``SealCheck``).
    var verifiedSeals = Set<SHA256Digest>()

    /// This replica's identity.
    public var replicaID: ReplicaID { manifest.replica }

    /// The store directory.
    public var path: String { layout.root }

    init(layout: StoreLayout, manifest: StoreManifest, options: StoreOptions, lock: StoreLock, journal: Journal, index: StoreIndex) {
        self.layout = layout
        self.manifest = manifest
        self.options = options
        self.lock = lock
        self.journal = journal
        self.index = index
        fileReplacer = FileReplacer(sparePath: layout.spareFile)
        clock = HybridLogicalClock(wallClock: options.clock, latest: index.latestModification)
    }

    deinit { close() }

    // MARK: Creating and opening

    /// Makes a new, empty store at `path` with a fresh replica id.
    /// - Parameters:
    ///   - path: a directory that does not exist yet or is empty.
    ///   - name: a short name for this replica (`laptop`), shown by `ferry log`.
    /// - Throws: ``StoreError/alreadyExists(path:)`` when `path` holds anything.
    public static func create(at path: String, name: String? = nil, options: StoreOptions = StoreOptions()) throws(StoreError) -> Store {
        let layout = StoreLayout(root: path)
        do {
            if let status = try FileSystem.status(layout.root) {
                guard status.kind == .directory, try FileSystem.contents(ofDirectory: layout.root).isEmpty else {
                    throw StoreError.alreadyExists(path: layout.root)
                }
            } else {
                try FileSystem.createDirectories(layout.root)
            }
            for directory in [layout.records, layout.conflicts, layout.journal, layout.engine, layout.peers] {
                try FileSystem.createDirectory(directory)
            }
            // The replica's id is derived from its signing key, so the id speaks for the key.
            let key = ReplicaSigningKey.generate()
            try key.write(to: layout.signingKey)
            let manifest = StoreManifest(
                replica: ReplicaID(derivedFrom: key.publicKey), name: name, created: ISO8601Milliseconds.format(milliseconds: options.clock.milliseconds()))
            // The manifest is written last and durably: a half-made directory is not a store.
            try FileSystem.synchronizeDirectory(layout.root)
            try FileSystem.writeFileAtomically(layout.manifest, manifest.jsonValue.prettyBytes(), durable: true)
        } catch let error as StoreError {
            throw error
        } catch let error as SystemError {
            throw .io(error)
        } catch {
            throw .io(SystemError("create", path: path, code: 5))
        }
        return try open(at: path, options: options)
    }

    /// Opens an existing store, recovering from a crash if needed: a torn journal tail is cut
    /// off, and record files and the index are brought in line with the journal.
    /// - Throws: ``StoreError/notAStore(path:)``, ``StoreError/unsupportedFormat(_:path:)``,
    ///   ``StoreError/locked(path:holder:waitedSeconds:)`` and I/O errors.
    public static func open(at path: String, options: StoreOptions = StoreOptions()) throws(StoreError) -> Store {
        let layout = StoreLayout(root: path)
        let manifest = try readManifest(layout)
        do {
            try FileSystem.createDirectory(layout.engine)
            try FileSystem.createDirectory(layout.peers)
        } catch { throw .io(error) }
        let lock = try StoreLock(path: layout.lock, storePath: layout.root)
        try lock.acquire(timeout: options.lockTimeout)
        defer { lock.release() }
        do { try PeerMemoryMigration.migrate(layout) } catch { throw .io(error) }
        let journal: Journal
        do {
            journal = try Journal(directory: layout.journal, warn: options.warningHandler)
        } catch { throw .journal(error) }
        let store = Store(layout: layout, manifest: manifest, options: options, lock: lock, journal: journal, index: StoreIndex())
        try store.recover()
        if !FileSystem.exists(layout.index) {
            try store.writeIndexImage()
        } else if store.index.records.delta != nil, store.deltaIsDueForImage {
            // A long run that was cut off before it closed (Ctrl-C on a join) leaves the delta
            // its merges wrote, up to half the image. Fold it in now, streaming, as its
            // close would have: whole-table reads (a status scan) decode the delta into memory.
            // Where the index cannot be written (a read-only medium), the delta stays.
            try? store.writeIndexImage()
        }
        return store
    }

    /// Reads and checks `ferry.json`.
    static func readManifest(_ layout: StoreLayout) throws(StoreError) -> StoreManifest {
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(layout.manifest, limit: 1 << 20) } catch {
            if error.isNotFound || error.isNotADirectory { throw .notAStore(path: layout.root) }
            throw .io(error)
        }
        let manifest: StoreManifest
        do {
            manifest = try StoreManifest(json: try JSONParser.parse(bytes))
        } catch let problem as StoreManifestProblem {
            throw .damagedManifest(path: layout.root, reason: problem.reason)
        } catch {
            throw .damagedManifest(path: layout.root, reason: "\(error)")
        }
        guard manifest.format == StoreManifest.currentFormat else {
            throw .unsupportedFormat(manifest.format, path: layout.root)
        }
        return manifest
    }

    /// Saves what changed in the index and releases files. Called by `deinit` too.
    ///
    /// Usually writes only the delta file (the records changed since the image), so the next
    /// open reads no journal and no record file; when the delta has grown large, merges it into
    /// a new image.
    public func close() {
        mutex.lock()
        defer { mutex.unlock() }
        guard !isClosed else { return }
        isClosed = true
        if indexMerge != nil || index.headSequence != persistedHead || stampsChanged {
            // The index files are only replaced under the lock; without it they stay as they
            // are, and the next open catches up from the journal.
            if (try? lock.acquire(timeout: options.lockTimeout)) != nil {
                try? finishIndexMerge()
                if (index.headSequence != persistedHead || stampsChanged) && !journal.hasExternalAppends() { try? persistIndex() }
                lock.release()
            }
            cancelIndexMerge()
        }
        journal.close()
    }

    /// Writes the delta file, or a whole new image when the delta is large.
    func persistIndex() throws(StoreError) {
        try finishIndexMerge()
        if deltaIsDueForImage || index.records.base == nil {
            try writeIndexImage()
            return
        }
        do {
            try index.writeFile(.delta, toFileAt: layout.indexDelta)
        } catch { throw .io(error) }
        persistedHead = index.headSequence
        stampsChanged = false
    }

    /// Whether the records changed since the image reach the interval and a sixteenth of
    /// the store: then a new image is written rather than a delta, so the full rewrite is
    /// amortized over many closes.
    var deltaIsDueForImage: Bool {
        index.records.changedCount >= max(Int(options.imageInterval), index.records.count / 16)
    }

    /// Writes `.ferry/index` now, merging every change in; removes the delta file.
    func writeIndexImage() throws(StoreError) {
        cancelIndexMerge()
        do {
            try index.writeFile(toFileAt: layout.index)
            try FileSystem.removeFile(layout.indexDelta)
        } catch { throw .io(error) }
        // Continue from the new image: its lines replace the in-memory changes.
        if let image = try IndexFile.open(layout.index) {
            let kept = (index.liveCounts, index.conflicted, index.knowledge)
            index.records = RecordTable(base: image)
            (index.liveCounts, index.conflicted, index.knowledge) = kept
        }
        imageSequence = index.headSequence
        persistedHead = index.headSequence
        stampsChanged = false
    }

    // MARK: Serialization

    /// Runs `body` holding the in-process mutex and the store's file lock, after catching up
    /// with entries other processes appended.
    func withWriteLock<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        mutex.lock()
        defer { mutex.unlock() }
        try lock.acquire(timeout: options.lockTimeout)
        defer { lock.release() }
        try catchUpWithOtherProcesses()
        do {
            return try body()
        } catch .damagedIndex(let reason) {
            // Found before anything was written: rebuild from the journal and try once more.
            options.warningHandler("warning: \(layout.root): the index is damaged (\(reason))")
            try rebuildFromJournal(warn: true)
            return try body()
        }
    }

    /// Runs `body` holding the in-process mutex, with the index loaded and caught up with
    /// other processes.
    func withReadAccess<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        mutex.lock()
        defer { mutex.unlock() }
        if journal.hasExternalAppends() {
            try lock.acquire(timeout: options.lockTimeout)
            defer { lock.release() }
            try catchUpWithOtherProcesses()
        }
        let result = try body()
        guard let damage = index.records.damage else { return result }
        // A image line could not be read: rebuild from the journal and answer again.
        options.warningHandler("warning: \(layout.root): the index is damaged (\(damage))")
        try lock.acquire(timeout: options.lockTimeout)
        defer { lock.release() }
        try rebuildFromJournal(warn: true)
        return try body()
    }

    /// Where the journal ends (cheap: no record is read).
    public var head: StoreHead {
        (try? withReadAccess { () throws(StoreError) -> StoreHead in index.head })
            ?? StoreHead(sequence: journal.headSequence, hash: journal.headHash, latestModification: index.latestModification)
    }

    /// Applies entries another process appended since this store last looked, and brings the
    /// files they touched in line the way opening the store does: that process may have been
    /// killed between its journal append and its file renames (it is not mid-way now: the
    /// caller holds the lock).
    func catchUpWithOtherProcesses() throws(StoreError) {
        try settleNewFileIntent()
        guard journal.hasExternalAppends() else { return }
        let previousHead = index.headSequence
        do { _ = try journal.readExternalAppends() } catch { throw .journal(error) }
        try replay(after: previousHead)
        clock.observe(index.latestModification)
    }

    // MARK: Facts

    /// The highest clock stamp in the journal: the store's latest modification.
    public var latestModification: HybridTimestamp { head.latestModification }

    /// The last journal sequence (0 for an empty store).
    public var headSequence: UInt64 { head.sequence }

    /// The hash of the last journal entry.
    public var headHash: SHA256Digest { head.hash }

    /// Which folder this store is: the device and inode of its root, `<device>:<inode>`. A copy
    /// of the folder has the same replica id but another instance.
    public var instance: String? {
        guard let status = try? FileSystem.status(layout.root) else { return nil }
        return "\(status.device):\(status.inode)"
    }

    /// For each replica, the counter of its latest change this store has.
    public var knowledge: VersionVector {
        (try? withReadAccess { () throws(StoreError) -> VersionVector in index.knowledge }) ?? VersionVector()
    }

    /// The number of live records.
    public var recordCount: Int {
        (try? withReadAccess { () throws(StoreError) -> Int in index.liveRecordCount }) ?? 0
    }
}


extension Store {
    /// Holds the store's lock until ``endExchange()``: a sync keeps both stores locked.
    public func beginExchange() throws(StoreError) {
        mutex.lock()
        defer { mutex.unlock() }
        try lock.acquire(timeout: options.lockTimeout)
        do { try settleNewFileIntent() } catch {
            lock.release()
            throw error
        }
    }

    /// Releases the lock taken by ``beginExchange()``.
    public func endExchange() {
        mutex.lock()
        defer { mutex.unlock() }
        lock.release()
    }

    /// For each replica, the counter of its latest change this store has.
    public func currentKnowledge() throws(StoreError) -> VersionVector {
        try withReadAccess { () throws(StoreError) -> VersionVector in index.knowledge }
    }

    /// For each replica, the counter and digest of its latest change this store has: what a
    /// sync compares to tell a copied store from the original (see ``ReplicaFrontier``).
    public func currentFrontier() throws(StoreError) -> ReplicaFrontier {
        try withReadAccess { () throws(StoreError) -> ReplicaFrontier in
            ReplicaFrontier(knowledge: index.knowledge, digests: index.digests)
        }
    }
}
