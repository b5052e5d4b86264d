extension Store {
    /// This replica's signing key: read from `.ferry/signing-key`, or for a store made before
    /// changes were signed, made there now (its changes are signed from the next one on).
    /// - Throws: ``StoreError/signingKeyUnreadable(path:reason:)`` when the file is not a key,
    ///   or others may read it; I/O errors when a new key cannot be written.
    package func signingKey() throws(StoreError) -> ReplicaSigningKey {
        mutex.lock()
        defer { mutex.unlock() }
        if let loadedSigningKey { return loadedSigningKey }
        let key: ReplicaSigningKey
        if let read = try ReplicaSigningKey.read(at: layout.signingKey) {
            key = read
        } else {
            key = .generate()
            try key.write(to: layout.signingKey)
        }
        loadedSigningKey = key
        return key
    }

    /// The public half of this replica's signing key (made now for a store made before changes
    /// were signed); what `ferry hub members add` and other replicas' key books hold for it.
    public func publicKey() throws(StoreError) -> ReplicaPublicKey {
        try signingKey().publicKey
    }

    /// The keys this store holds for replicas whose ids are not derived from their keys.
    public func keyBook() throws(StoreError) -> ReplicaKeyBook {
        mutex.lock()
        defer { mutex.unlock() }
        if let loadedKeyBook { return loadedKeyBook }
        let book = try ReplicaKeyBook.read(at: layout.keyBook)
        loadedKeyBook = book
        return book
    }

    /// The key in `.ferry/signing-key`, without making one: `nil` when the store has none
    /// (made before changes were signed, and not written since).
    /// - Throws: ``StoreError/signingKeyUnreadable(path:reason:)`` when the file is not a key,
    ///   or others may read it.
    func existingSigningKey() throws(StoreError) -> ReplicaSigningKey? {
        mutex.lock()
        defer { mutex.unlock() }
        if let loadedSigningKey { return loadedSigningKey }
        loadedSigningKey = try ReplicaSigningKey.read(at: layout.signingKey)
        return loadedSigningKey
    }

    /// The public half of the key in `.ferry/signing-key`, without making one; `nil` when the
    /// store has none (yet) or it cannot be read.
    func existingPublicKey() -> ReplicaPublicKey? {
        mutex.lock()
        defer { mutex.unlock() }
        if let loadedSigningKey { return loadedSigningKey.publicKey }
        return (try? ReplicaSigningKey.read(at: layout.signingKey))??.publicKey
    }

    public func checkSignatures(_ changes: [Change], from source: String) throws(SyncError) {
        guard options.signsWork else { return }
        let book: ReplicaKeyBook
        do { book = try keyBook() } catch { throw .store(error) }
        mutex.lock()
        defer { mutex.unlock() }
        _ = try SealCheck.check(changes, book: book, source: source, verified: &verifiedSeals)
    }

    public func ownPublicKey() -> ReplicaPublicKey? { existingPublicKey() }

    public func requiresSignatures(from origin: ReplicaID) -> Bool {
        guard options.signsWork else { return false }
        return origin.isKeyDerived || (try? keyBook()[origin]) != nil
    }

    /// Checks `admitted` (new, in order) as ``checkSignatures(_:from:)`` does, and holds the
    /// keys of replicas signing for the first time, durably, before the changes are applied.
    func checkAndLearnSignatures(_ admitted: [Change], from source: String) throws(SyncError) {
        guard options.signsWork else { return }
        var book: ReplicaKeyBook
        do { book = try keyBook() } catch { throw .store(error) }
        let learned: [ReplicaID: ReplicaPublicKey]
        do {
            mutex.lock()
            defer { mutex.unlock() }
            learned = try SealCheck.check(admitted, book: book, source: source, verified: &verifiedSeals)
        }
        guard !learned.isEmpty else { return }
        for (origin, key) in learned { book.hold(key, for: origin) }
        do { try saveKeyBook(book) } catch { throw .store(error) }
    }

    /// Saves `book` durably as the store's key book.
    func saveKeyBook(_ book: ReplicaKeyBook) throws(StoreError) {
        mutex.lock()
        defer { mutex.unlock() }
        try book.write(to: layout.keyBook)
        loadedKeyBook = book
    }

    /// Besides the last change of each batch, every change whose counter is a multiple of this
    /// is signed: what a receiver holds back until a signature covers it stays bounded.
    static let sealInterval: UInt64 = 1024
    /// And a change is signed once the documents since the last signed one take this many
    /// bytes, so that a push cut to fit a server's body limit can end signed.
    static let sealBytes = 256 << 10
}
