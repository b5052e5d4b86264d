/// A replica that signs the objects it publishes (a hub head) and holds the keys of replicas
/// whose ids are not derived from their keys: what a hub reader needs to sign its own head and
/// check the others'. A store is one; a replica without a key (``MemoryReplica``) is not, and
/// writes unsigned objects.
package protocol ObjectSigner: AnyObject {
    /// This replica's signing key.
    func signingKey() throws(StoreError) -> ReplicaSigningKey
    /// The keys held for replicas whose ids are not derived from their keys.
    func keyBook() throws(StoreError) -> ReplicaKeyBook
    /// Holds `key` for `replica` from now on, durably (its first signed object was just checked).
    func holdKey(_ key: ReplicaPublicKey, for replica: ReplicaID) throws(StoreError)
}

extension Store: ObjectSigner {
    package func holdKey(_ key: ReplicaPublicKey, for replica: ReplicaID) throws(StoreError) {
        var book = try keyBook()
        guard book[replica] != key else { return }
        book.hold(key, for: replica)
        try saveKeyBook(book)
    }
}
