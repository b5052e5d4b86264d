extension SyncPeer {
    /// Makes the transport that reaches this peer.
    /// - Parameter options: how a folder peer's store is opened (clock, lock timeout).
    public func makeTransport(options: StoreOptions = StoreOptions()) throws(SyncError) -> any SyncTransport {
        switch self {
        case .folder(let path):
            return FolderTransport(path: path, options: options)
        case .remote(let url, let token):
            do { return try HTTPTransport(url: url, token: token) } catch { throw .transport(error.description) }
        }
    }
}
