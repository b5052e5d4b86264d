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

extension PeerAddress {
    /// Makes the transport that reaches this peer, remote peers and S3 hubs through `URLSession`.
    /// - Parameters:
    ///   - options: how a folder peer's store is opened (clock, lock timeout).
    ///   - s3: how to reach an `s3://` hub; `nil` reads the AWS CLI's variables and files.
    public func makeTransport(options: StoreOptions = StoreOptions(), s3: S3Configuration? = nil) throws(SyncError) -> any SyncTransport {
        switch self {
        case .served, .s3Hub, .backend: return try makeTransport(options: options, httpClient: URLSessionHTTPClient(), s3: s3)
        case .store, .hubFolder: return try makeTransport(options: options, httpClient: nil)
        }
    }
}
