/// An access key for S3 (or any AWS-signed service). Printing one shows only the key id.
public struct AWSCredentials: Sendable, Hashable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// The token of temporary credentials (`AWS_SESSION_TOKEN`).
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String { "AWSCredentials(\(accessKeyID), secret hidden\(sessionToken == nil ? "" : ", with session token"))" }
}
