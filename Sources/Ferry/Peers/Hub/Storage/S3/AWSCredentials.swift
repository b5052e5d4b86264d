/// An access key for S3 (or any AWS-signed service).
///
/// Printing one, interpolating it, or `dump`ing it shows only the key id: the secret and the
/// session token never reach a log.
///
/// ```swift
/// let credentials = AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: secret)
/// print(credentials)  // AWSCredentials(AKIAIOSFODNN7EXAMPLE, secret hidden)
/// ```
public struct AWSCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The access key id (`AWS_ACCESS_KEY_ID`), sent in every request's `Authorization` header.
    public var accessKeyID: String
    /// The secret access key (`AWS_SECRET_ACCESS_KEY`): it derives the signing key and is never sent.
    public var secretAccessKey: String
    /// The token of temporary credentials (`AWS_SESSION_TOKEN`), sent as `X-Amz-Security-Token`.
    public var sessionToken: String?

    /// Makes credentials from a key pair and, for temporary credentials, a session token.
    ///
    /// - Parameters:
    ///   - accessKeyID: The access key id.
    ///   - secretAccessKey: The secret access key.
    ///   - sessionToken: The session token of temporary credentials, or `nil`.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The key id only: `AWSCredentials(AKID…, secret hidden)`.
    public var description: String {
        "AWSCredentials(\(accessKeyID), secret hidden\(sessionToken == nil ? "" : ", with session token"))"
    }

    /// The same as ``description``: the secret stays hidden in debug output too.
    public var debugDescription: String { description }

    /// A mirror without the secret or the token, so `dump` and debuggers do not show them.
    public var customMirror: Mirror {
        Mirror(self, children: ["accessKeyID": accessKeyID, "hasSessionToken": sessionToken != nil], displayStyle: .struct)
    }
}
