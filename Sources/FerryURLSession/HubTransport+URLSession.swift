import Ferry

extension HubTransport {
    /// A transport to the hub under an S3 prefix, through `URLSession` (TLS included).
    ///
    /// ```swift
    /// let hub = HubTransport(
    ///     s3: try S3Location(parsing: "s3://team-bucket/notes"),
    ///     configuration: S3Configuration(credentials: AWSCredentials(accessKeyID: id, secretAccessKey: secret), region: "eu-west-1"))
    /// let report = try await store.sync(with: hub)
    /// ```
    public convenience init(s3 location: S3Location, configuration: S3Configuration) {
        let client = S3Client(configuration: configuration, httpClient: URLSessionHTTPClient())
        self.init(storage: S3HubStorage(location: location, client: client))
    }
}
