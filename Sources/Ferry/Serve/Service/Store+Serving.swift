/// What the store service needs of a store beyond its public API.
extension Store {
    /// The head when no writer holds the store right now, without waiting; `nil` when one
    /// does (a push being made durable), so the caller can wait off the cooperative pool.
    func headWithoutWaiting() -> StoreHead? {
        guard mutex.try() else { return nil }
        defer { mutex.unlock() }
        return head
    }
}

extension Store {
    /// Binds the unsigned work among `changes` (see ``UnsignedWorkBook``) to `holder`, the
    /// fingerprint of the token pushing it, durably, before the push is received.
    /// - Returns: the replica whose unsigned work another token pushed first (the push must be
    ///   refused), or `nil`.
    func bindUnsignedWork(of changes: [Change], to holder: String) throws(StoreError) -> ReplicaID? {
        guard options.signsWork, changes.contains(where: { !$0.origin.isKeyDerived }) else { return nil }
        let keys = try keyBook()
        return try withWriteLock { () throws(StoreError) -> ReplicaID? in
            let origins = UnsignedWorkBook.unsignedOrigins(of: changes, knowledge: index.knowledge) { keys[$0] != nil }
            guard !origins.isEmpty else { return nil }
            var book = try UnsignedWorkBook.read(at: layout.unsignedWorkBook)
            let before = book
            if let taken = book.bind(origins, to: holder) { return taken }
            if book != before { try book.write(to: layout.unsignedWorkBook) }
            return nil
        }
    }
}
