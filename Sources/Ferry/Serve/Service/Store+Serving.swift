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
