extension SyncPeer {
    /// Makes the transport that reaches this peer.
    /// - Parameters:
    ///   - options: how a folder peer's store is opened (clock, lock timeout).
    ///   - httpClient: what a remote peer's requests go through (`FerryURLSession`'s
    ///     `URLSessionHTTPClient`, or `makeTransport(options:)` from that module); a remote
    ///     peer without one is an error.
    public func makeTransport(
        options: StoreOptions = StoreOptions(), httpClient: (any HTTPClient)?, handEdits: FolderTransport.HandEdits = .leave
    ) throws(SyncError) -> any SyncTransport {
        switch self {
        case .folder(let path):
            return FolderTransport(path: path, options: options, handEdits: handEdits)
        case .remote(let url, let token):
            guard let httpClient else {
                throw .transport("\(url): this program has no HTTP client (link FerryURLSession)")
            }
            do { return try HTTPTransport(url: url, token: token, client: httpClient) } catch { throw .transport(error.description) }
        }
    }
}
