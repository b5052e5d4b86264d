extension Store {
    /// Stamps this store's unpublished changes again by its clock, when any of them is stamped
    /// more than `maximumSkew` ahead of it (they were made while the clock ran ahead, and a
    /// sync refuses to publish them: ``SyncError/stampedAhead(store:peer:origin:record:aheadByMilliseconds:limit:)``).
    ///
    /// A change's stamp is part of its identity and digest, and the journal is append-only, so
    /// the changes are not rewritten in place: the store is re-identified
    /// (``reidentify(at:sharedThrough:options:)``): the changes its checkpoints say a peer
    /// has are kept as they are, and the records its later changes made are journaled again as
    /// changes of a new replica id, stamped now. The folder as it was is kept beside it.
    ///
    /// ```swift
    /// if let report = try Store.restamp(at: "./laptop", maximumSkew: 86_400_000) {
    ///     print("now replica", report.newReplica.short, "; was", report.formerReplica.short)
    /// }
    /// ```
    ///
    /// - Returns: what the re-identification did; `nil` when no unpublished change is stamped
    ///   that far ahead (nothing is done).
    /// - Throws: ``StoreError`` when the store cannot be read or rebuilt.
    public static func restamp(
        at path: String, maximumSkew: UInt64, options: StoreOptions = StoreOptions()
    ) throws(StoreError) -> ReidentifyReport? {
        let store = try Store.open(at: path, options: options)
        let shared: UInt64
        let ahead: Bool
        do {
            defer { store.close() }
            shared = try store.ownChangesSharedByCheckpoints()
            let limit = options.clock.milliseconds() + maximumSkew
            ahead = try store.journalEntries().contains {
                $0.change.origin == store.replicaID && $0.change.counter > shared && $0.change.timestamp.physical > limit
            }
        }
        guard ahead else { return nil }
        return try reidentify(at: path, sharedThrough: shared, options: options)
    }
}
