import Foundation

/// How to reach an S3-compatible service: credentials, region, endpoint and addressing.
///
/// Built explicitly, or from the variables and files the AWS CLI uses
/// (``fromEnvironment(_:endpoint:)``):
/// ```swift
/// let configuration = S3Configuration(
///     credentials: AWSCredentials(accessKeyID: "…", secretAccessKey: "…"),
///     region: "us-east-1", endpoint: URL(string: "http://127.0.0.1:8333"))
/// ```
public struct S3Configuration: Sendable {
    /// How a bucket is named in a request's URL.
    public enum Addressing: String, Sendable {
        /// `https://endpoint/bucket/key`: what SeaweedFS, MinIO, Garage and Ceph expect.
        case path
        /// `https://bucket.endpoint/key`: what AWS prefers.
        case virtualHosted = "virtual"
    }

    public var credentials: AWSCredentials
    public var region: String
    /// The service's base URL; `nil` is AWS itself (`https://s3.<region>.amazonaws.com`).
    public var endpoint: URL?
    public var addressing: Addressing
    /// Attempts of one request when the service answers 5xx or the connection is reset.
    public var maximumAttempts: Int = 4

    /// A configuration. Addressing defaults to path style for a custom endpoint and to
    /// virtual-hosted style for AWS (with path style for bucket names holding dots, which TLS
    /// certificates do not cover).
    public init(credentials: AWSCredentials, region: String = "us-east-1", endpoint: URL? = nil, addressing: Addressing? = nil) {
        self.credentials = credentials
        self.region = region
        self.endpoint = endpoint
        self.addressing = addressing ?? (endpoint == nil ? .virtualHosted : .path)
    }

    /// The base URL requests go to.
    public var baseURL: URL {
        endpoint ?? URL(string: "https://s3.\(region).amazonaws.com") ?? URL(fileURLWithPath: "/")
    }

    /// Reads the configuration the AWS CLI would use: `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`; else the profile `AWS_PROFILE` (or
    /// `default`) of `~/.aws/credentials` (`AWS_SHARED_CREDENTIALS_FILE`); the region from
    /// `AWS_REGION`, `AWS_DEFAULT_REGION` or the profile in `~/.aws/config` (`AWS_CONFIG_FILE`);
    /// the endpoint from `endpoint`, `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL` or the profile's
    /// `endpoint_url`; `FERRY_S3_ADDRESSING=path|virtual` overrides the addressing style.
    /// - Throws: ``HubError/missingCredentials(_:)`` when no credentials are found.
    public static func fromEnvironment(
        _ environment: [String: String], endpoint override: String? = nil
    ) throws(HubError) -> S3Configuration {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        let home = value("HOME") ?? NSHomeDirectory()
        let profile = value("AWS_PROFILE") ?? "default"
        let credentialsFile = AWSConfigFile(path: value("AWS_SHARED_CREDENTIALS_FILE") ?? home + "/.aws/credentials")
        let configFile = AWSConfigFile(path: value("AWS_CONFIG_FILE") ?? home + "/.aws/config")
        // The credentials file names sections `[name]`; the config file `[profile name]`,
        // except `[default]`.
        let credentialSection = credentialsFile.section(profile)
        let configSection = configFile.section(profile == "default" ? "default" : "profile " + profile)

        let credentials: AWSCredentials
        if let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") {
            credentials = AWSCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        } else if let key = credentialSection?["aws_access_key_id"] ?? configSection?["aws_access_key_id"],
            let secret = credentialSection?["aws_secret_access_key"] ?? configSection?["aws_secret_access_key"]
        {
            credentials = AWSCredentials(
                accessKeyID: key, secretAccessKey: secret,
                sessionToken: credentialSection?["aws_session_token"] ?? configSection?["aws_session_token"])
        } else {
            throw .missingCredentials(
                "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with a profile in "
                    + "\(credentialsFile.path) (profile '\(profile)' was \(credentialSection == nil ? "not found" : "incomplete"))")
        }
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? configSection?["region"] ?? "us-east-1"
        let endpointText = override ?? value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL") ?? configSection?["endpoint_url"]
        var endpoint: URL?
        if let endpointText {
            guard let url = URL(string: endpointText), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                url.host != nil
            else { throw .invalidLocation(endpointText, reason: "an S3 endpoint is an http:// or https:// URL") }
            endpoint = url
        }
        let addressing = value("FERRY_S3_ADDRESSING").flatMap(Addressing.init(rawValue:))
        return S3Configuration(credentials: credentials, region: region, endpoint: endpoint, addressing: addressing)
    }
}
