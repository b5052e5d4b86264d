import Foundation

/// One object in a bucket listing.
public struct S3ListedObject: Sendable, Hashable {
    public var key: String
    /// The ETag without its quotes.
    public var etag: String
    public var size: Int64
}

/// The S3 requests a hub needs (GET, PUT, HEAD, DELETE, ListObjectsV2), signed with
/// Signature Version 4, over any ``HTTPClient`` (URLSession's, for TLS).
///
/// Requests are retried as ``RetryPolicy`` says for every client: after a `429`, `500`, `502`,
/// `503` (`SlowDown` included) or `504`, or a connection that was refused, reset or timed out. Every other
/// failure is one line naming the bucket, the key, the HTTP status and S3's error code.
public final class S3Client: Sendable {
    public let configuration: S3Configuration
    private let httpClient: any HTTPClient
    private let signer: SigV4Signer
    private let counter = RequestCounter()
    /// When a request is tried again (``RetryPolicy``, as for every client).
    private let retry: RetryPolicy

    /// - Parameter retryDelay: seconds before the first retry (doubled for each next one, up
    ///   to 64 times); the attempts are `configuration.maximumAttempts`.
    public init(configuration: S3Configuration, httpClient: any HTTPClient, retryDelay: Double = 0.2) {
        self.configuration = configuration
        self.httpClient = httpClient
        self.signer = SigV4Signer(credentials: configuration.credentials, region: configuration.region, service: "s3")
        self.retry = RetryPolicy(attempts: configuration.maximumAttempts, firstDelay: retryDelay, maximumDelay: retryDelay * 64)
    }

    /// Requests sent so far, retries included.
    public var requestCount: Int { counter.value }

    // MARK: Operations

    /// The object's bytes and ETag; `nil` when there is no such key.
    public func getObject(bucket: String, key: String) async throws(HubError) -> (bytes: [UInt8], etag: String)? {
        let response = try await send(.get, bucket: bucket, key: key)
        switch response.status {
        case .ok: return (response.body, Self.unquoted(response.headers["etag"] ?? ""))
        case .notFound where errorCode(response) != "NoSuchBucket": return nil
        default: throw failure(response, "GET", bucket: bucket, key: key)
        }
    }

    /// At most the first `limit + 1` bytes of an object (a ranged GET: one request, whatever the
    /// object's size), with its ETag and whole size; `nil` when there is no such key. The bytes
    /// are the whole object only when `size` is at most `limit`.
    public func getObject(bucket: String, key: String, limit: Int) async throws(HubError) -> (bytes: [UInt8], etag: String, size: Int64)? {
        let response = try await send(.get, bucket: bucket, key: key, headers: [("Range", "bytes=0-\(limit)")])
        let etag = Self.unquoted(response.headers["etag"] ?? "")
        switch response.status {
        case .partialContent:
            // `Content-Range: bytes 0-99/1234`: the whole size follows the slash.
            let range = response.headers["content-range"] ?? ""
            guard let total = range.split(separator: "/").last.flatMap({ Int64($0) }) else {
                throw .storage("GET s3://\(bucket)/\(key): a partial answer without its whole size (Content-Range: \(range))")
            }
            return (response.body, etag, total)
        case .ok:
            // A service that ignores ranges sends the whole object.
            return (response.body, etag, Int64(response.body.count))
        case .rangeNotSatisfiable:
            // An empty object has no byte 0.
            guard let whole = try await getObject(bucket: bucket, key: key) else { return nil }
            return (whole.bytes, whole.etag, Int64(whole.bytes.count))
        case .notFound where errorCode(response) != "NoSuchBucket": return nil
        default: throw failure(response, "GET", bucket: bucket, key: key)
        }
    }

    /// The object's ETag and size; `nil` when there is no such key.
    public func headObject(bucket: String, key: String) async throws(HubError) -> (etag: String, size: Int64)? {
        let response = try await send(.head, bucket: bucket, key: key)
        switch response.status {
        case .ok: return (Self.unquoted(response.headers["etag"] ?? ""), Int64(response.headers["content-length"] ?? "") ?? 0)
        case .notFound: return nil
        default: throw failure(response, "HEAD", bucket: bucket, key: key)
        }
    }

    /// What a create-only PUT met.
    public enum CreateOnlyOutcome: Sendable, Equatable {
        /// Written, with this ETag.
        case created(String)
        /// The key exists: nothing was written.
        case exists
        /// The service does not support `If-None-Match: *` on PUT.
        case unsupported
    }

    /// Writes an object, replacing any with that key.
    /// - Returns: its ETag.
    public func putObject(bucket: String, key: String, bytes: [UInt8]) async throws(HubError) -> String {
        let response = try await send(.put, bucket: bucket, key: key, body: bytes)
        guard response.status == .ok else { throw failure(response, "PUT", bucket: bucket, key: key) }
        return Self.unquoted(response.headers["etag"] ?? "")
    }

    /// Writes an object only if its key is free (`If-None-Match: *`).
    public func putObjectIfAbsent(bucket: String, key: String, bytes: [UInt8]) async throws(HubError) -> CreateOnlyOutcome {
        let response = try await send(.put, bucket: bucket, key: key, headers: [("If-None-Match", "*")], body: bytes)
        switch response.status {
        case .ok: return .created(Self.unquoted(response.headers["etag"] ?? ""))
        case .preconditionFailed: return .exists
        case .conflict where errorCode(response) == "ConditionalRequestConflict": return .exists
        case .notImplemented: return .unsupported
        case .badRequest where ["NotImplemented", "InvalidArgument", "InvalidRequest"].contains(errorCode(response) ?? ""): return .unsupported
        default: throw failure(response, "PUT", bucket: bucket, key: key)
        }
    }

    /// Removes an object (no error when there is none).
    public func deleteObject(bucket: String, key: String) async throws(HubError) {
        let response = try await send(.delete, bucket: bucket, key: key)
        guard response.status == .noContent || response.status == .ok || response.status == .notFound && errorCode(response) != "NoSuchBucket" else {
            throw failure(response, "DELETE", bucket: bucket, key: key)
        }
    }

    /// Every object whose key starts with `prefix`, in key order (ListObjectsV2, following
    /// continuation tokens: one request per 1,000 keys).
    public func listObjects(bucket: String, prefix: String) async throws(HubError) -> [S3ListedObject] {
        var objects: [S3ListedObject] = []
        var token: String?
        var pages = 0
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let response = try await send(.get, bucket: bucket, key: nil, query: query)
            guard response.status == .ok else { throw failure(response, "LIST", bucket: bucket, key: prefix) }
            let text = Substring(String(decoding: response.body, as: UTF8.self))
            for contents in S3XML.elements("Contents", in: text) {
                guard let key = S3XML.first("Key", in: contents) else { continue }
                objects.append(
                    S3ListedObject(
                        key: key, etag: Self.unquoted(S3XML.first("ETag", in: contents) ?? ""),
                        size: Int64(S3XML.first("Size", in: contents) ?? "") ?? 0))
            }
            let truncated = S3XML.first("IsTruncated", in: text) == "true"
            token = truncated ? S3XML.first("NextContinuationToken", in: text) : nil
            pages += 1
            if truncated && token == nil {
                throw .storage("LIST s3://\(bucket)/\(prefix): the listing is truncated but names no continuation token")
            }
        } while token != nil && pages < 1_000_000
        return objects
    }

    /// Creates a bucket (for tests and first-time setup).
    public func createBucket(_ bucket: String) async throws(HubError) {
        let response = try await send(.put, bucket: bucket, key: nil)
        guard response.status == .ok || errorCode(response) == "BucketAlreadyOwnedByYou" else {
            throw failure(response, "CREATE BUCKET", bucket: bucket, key: nil)
        }
    }

    // MARK: Requests

    /// The URL of a bucket or object, with the query in S3's encoding.
    func url(bucket: String, key: String?, query: [(String, String)] = []) -> URL? {
        let base = configuration.baseURL
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false), let host = components.host else { return nil }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        let virtual = configuration.addressing == .virtualHosted && !bucket.contains(".")
        if virtual {
            components.host = bucket + "." + host
        } else {
            path += "/" + SigV4Signer.encode(bucket, keepingSlashes: false)
        }
        if let key { path += "/" + SigV4Signer.encode(key, keepingSlashes: true) } else if virtual || path.isEmpty { path += "/" }
        components.percentEncodedPath = path
        if !query.isEmpty {
            components.percentEncodedQuery = query.map { SigV4Signer.encode($0.0, keepingSlashes: false) + "=" + SigV4Signer.encode($0.1, keepingSlashes: false) }
                .joined(separator: "&")
        }
        return components.url
    }

    private func send(
        _ method: HTTPMethod, bucket: String, key: String?, query: [(String, String)] = [], headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil
    ) async throws(HubError) -> HTTPClientResponse {
        let what = "\(method) s3://\(bucket)/\(key ?? "")"
        guard let url = url(bucket: bucket, key: key, query: query) else {
            throw .storage("\(what): cannot make a URL from the endpoint \(configuration.baseURL)")
        }
        let payloadHash = SigV4Signer.payloadHash(body ?? [])
        // Each attempt is signed anew: a signature carries its time.
        let exchange = await httpClient.send(retrying: retry, counting: counter) { _ in
            var request = HTTPClientRequest(
                method: method, url: url, headers: headers, body: method == .put ? (body ?? []) : body,
                responseHeaderNames: ["etag", "content-length", "content-type", "content-range"])
            request.headers += signer.sign(method: method.rawValue, url: url, headers: headers, payloadHash: payloadHash, date: Date())
            return request
        }
        switch exchange.outcome {
        case .success(let response):
            return response
        case .failure(let error):
            let attempts = exchange.attempts > 1 ? " (after \(exchange.attempts) attempts)" : ""
            throw .storage("\(what): \(error.message)\(attempts); is the endpoint \(configuration.baseURL) right and up?")
        }
    }

    /// S3's error code from an error body (`AccessDenied`, `NoSuchBucket`…).
    private func errorCode(_ response: HTTPClientResponse) -> String? {
        guard !response.body.isEmpty, response.body.count < 1 << 20 else { return nil }
        return S3XML.first("Code", in: Substring(String(decoding: response.body, as: UTF8.self)))
    }

    /// The one-line error for an answer that is not the one expected.
    private func failure(_ response: HTTPClientResponse, _ operation: String, bucket: String, key: String?) -> HubError {
        let code = errorCode(response) ?? (response.status == .notFound && operation == "HEAD" ? "NotFound" : nil)
        let message = response.body.count < 1 << 20 ? S3XML.first("Message", in: Substring(String(decoding: response.body, as: UTF8.self))) : nil
        var line = "\(operation) s3://\(bucket)/\(key ?? ""): HTTP \(response.status.code)"
        if let code { line += " \(code)" }
        if let message, !message.isEmpty { line += ": \(message)" }
        switch code {
        case "RequestTimeTooSkewed":
            line += " (this machine's clock differs from the service's by more than 15 minutes: set the clock, e.g. with NTP)"
        case "SignatureDoesNotMatch":
            line += " (check AWS_SECRET_ACCESS_KEY, the profile's aws_secret_access_key, and the region \(configuration.region))"
        case "InvalidAccessKeyId":
            line += " (the access key id \(configuration.credentials.accessKeyID) is unknown to \(configuration.baseURL))"
        case "NoSuchBucket":
            line += " (the bucket does not exist: create it first, e.g. 'aws s3 mb s3://\(bucket)')"
        case "AccessDenied":
            line += " (these credentials may not \(operation == "LIST" ? "list" : operation == "PUT" ? "write" : "read") there)"
        default:
            break
        }
        return .storage(line)
    }

    static func unquoted(_ etag: String) -> String {
        var text = etag
        if text.hasPrefix("W/") { text.removeFirst(2) }
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        return text
    }
}
