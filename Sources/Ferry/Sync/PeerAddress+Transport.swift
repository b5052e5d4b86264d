import Foundation

extension PeerAddress {
    /// Makes the transport that reaches this peer.
    /// - Parameters:
    ///   - options: how a folder peer's store is opened (clock, lock timeout).
    ///   - httpClient: what a remote peer's requests go through (`FerryURLSession`'s
    ///     `URLSessionHTTPClient`, or `makeTransport(options:)` from that module); a remote
    ///     peer without one is an error.
    ///   - s3: how to reach an `s3://` hub; `nil` reads it from the process's environment and
    ///     `~/.aws` as the AWS CLI does (``S3Configuration/fromEnvironment(_:endpoint:)``).
    ///   - backend: what to sync with an app backend, and as whom; an app backend without it
    ///     is an error.
    public func makeTransport(
        options: StoreOptions = StoreOptions(), httpClient: (any HTTPClient)?, handEdits: FolderTransport.HandEdits = .leave,
        s3: S3Configuration? = nil, backend: BackendPeer.Settings? = nil
    ) throws(SyncError) -> any SyncTransport {
        switch self {
        case .store(let path):
            return FolderTransport(path: path, options: options, handEdits: handEdits)
        case .served(let url, let token):
            guard let httpClient else {
                throw .transport("\(url): this program has no HTTP client (link FerryURLSession)")
            }
            do { return try HTTPTransport(url: url, token: token, client: httpClient) } catch { throw .transport(error.description) }
        case .hubFolder, .s3Hub:
            return HubTransport(storage: try hubStorage(httpClient: httpClient, s3: s3))
        case .backend(let location):
            guard let httpClient else {
                throw .transport("\(location): this program has no HTTP client (link FerryURLSession)")
            }
            guard let backend else { throw .transport("\(location) is an app backend: give the entities to sync with it") }
            let client = PocketBaseClient(location: location, credentials: backend.credentials, httpClient: httpClient)
            return BackendPeer(backend: PocketBaseBackend(client: client, ownerField: backend.options.ownerField), options: backend.options)
        }
    }

    /// The storage of a hub at this location: a folder (whatever it holds, for `hub init`) or an
    /// S3 prefix; a `ferry serve` URL is not one.
    /// - Parameters:
    ///   - httpClient: what an S3 hub's requests go through.
    ///   - s3: how to reach an S3 hub; `nil` reads the AWS CLI's variables and files.
    public func hubStorage(httpClient: (any HTTPClient)?, s3: S3Configuration? = nil) throws(SyncError) -> any HubStorage {
        switch self {
        case .store(let path), .hubFolder(let path):
            return FolderHubStorage(root: path)
        case .served, .backend:
            throw .transport("\(self) is not a hub: a hub is a folder or s3://bucket/prefix")
        case .s3Hub(let location):
            guard let httpClient else {
                throw .transport("\(location): this program has no HTTP client (link FerryURLSession)")
            }
            let configuration: S3Configuration
            if let s3 {
                configuration = s3
            } else {
                do { configuration = try S3Configuration.fromEnvironment(ProcessInfo.processInfo.environment) } catch { throw .hub(error) }
            }
            return S3HubStorage(location: location, client: S3Client(configuration: configuration, httpClient: httpClient))
        }
    }
}
