import Foundation

extension SyncPeer {
    /// Makes the transport that reaches this peer.
    /// - Parameters:
    ///   - options: how a folder peer's store is opened (clock, lock timeout).
    ///   - httpClient: what a remote peer's requests go through (`FerryURLSession`'s
    ///     `URLSessionHTTPClient`, or `makeTransport(options:)` from that module); a remote
    ///     peer without one is an error.
    ///   - s3: how to reach an `s3://` hub; `nil` reads it from the process's environment and
    ///     `~/.aws` as the AWS CLI does (``S3Configuration/fromEnvironment(_:endpoint:)``).
    public func makeTransport(
        options: StoreOptions = StoreOptions(), httpClient: (any HTTPClient)?, handEdits: FolderTransport.HandEdits = .leave,
        s3: S3Configuration? = nil
    ) throws(SyncError) -> any SyncTransport {
        switch self {
        case .folder(let path):
            return FolderTransport(path: path, options: options, handEdits: handEdits)
        case .remote(let url, let token):
            guard let httpClient else {
                throw .transport("\(url): this program has no HTTP client (link FerryURLSession)")
            }
            do { return try HTTPTransport(url: url, token: token, client: httpClient) } catch { throw .transport(error.description) }
        case .hubFolder(let path):
            return HubTransport(folder: path)
        case .s3(let location):
            guard let httpClient else {
                throw .transport("\(location): this program has no HTTP client (link FerryURLSession)")
            }
            let configuration: S3Configuration
            if let s3 {
                configuration = s3
            } else {
                do { configuration = try S3Configuration.fromEnvironment(ProcessInfo.processInfo.environment) } catch { throw .hub(error) }
            }
            return HubTransport(storage: S3HubStorage(location: location, client: S3Client(configuration: configuration, httpClient: httpClient)))
        }
    }
}
