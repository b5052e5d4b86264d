import Ferry

extension HTTPTransport {
    /// A transport to the store at `url` with a `URLSession` client of its own.
    /// - Parameters:
    ///   - url: `http(s)://host[:port][/prefix]/<store>`.
    ///   - token: the bearer token (`nil` for a server run with `--no-auth`).
    ///   - configuration: retries, timeout, read-ahead.
    /// - Throws: ``RemoteError/invalidURL(_:reason:)``.
    public convenience init(url: String, token: String?, configuration: Configuration = Configuration()) throws(RemoteError) {
        try self.init(url: url, token: token, client: URLSessionHTTPClient(timeout: configuration.timeout), configuration: configuration)
    }
}

extension SyncPeer {
    /// Makes the transport that reaches this peer, remote peers through `URLSession`.
    /// - Parameter options: how a folder peer's store is opened (clock, lock timeout).
    public func makeTransport(options: StoreOptions = StoreOptions()) throws(SyncError) -> any SyncTransport {
        if case .remote = self { return try makeTransport(options: options, httpClient: URLSessionHTTPClient()) }
        return try makeTransport(options: options, httpClient: nil)
    }
}
