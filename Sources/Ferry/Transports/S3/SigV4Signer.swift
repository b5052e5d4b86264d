import Foundation

/// Signs requests with AWS Signature Version 4, as S3 and every S3-compatible service expect;
/// tested against the AWS SigV4 test suite and the S3 documentation's examples.
///
/// ```swift
/// let signer = SigV4Signer(credentials: credentials, region: "us-east-1")
/// request.headers += signer.sign(method: "GET", url: url, headers: [], payloadHash: SigV4Signer.payloadHash([]), date: Date())
/// ```
public struct SigV4Signer: Sendable {
    public let credentials: AWSCredentials
    public let region: String
    public let service: String

    public init(credentials: AWSCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The hex SHA-256 of a payload, for `X-Amz-Content-Sha256` and the canonical request.
    public static func payloadHash(_ body: [UInt8]) -> String { SHA256.hash(body).hex }

    /// The marker for a payload that is not signed.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// The headers to add to a request: `X-Amz-Date`, `X-Amz-Content-Sha256` (S3 only),
    /// `X-Amz-Security-Token` (temporary credentials) and `Authorization`.
    /// - Parameter headers: the request's other headers; `Host` is taken from the URL when absent.
    public func sign(
        method: String, url: URL, headers: [(name: String, value: String)], payloadHash: String, date: Date
    ) -> [(name: String, value: String)] {
        let stamp = Self.timestamp(date)
        var added: [(name: String, value: String)] = [("X-Amz-Date", stamp)]
        if service == "s3" { added.append(("X-Amz-Content-Sha256", payloadHash)) }
        if let token = credentials.sessionToken { added.append(("X-Amz-Security-Token", token)) }
        var all = headers + added
        if !all.contains(where: { $0.name.lowercased() == "host" }) { all.append(("Host", Self.hostHeader(url))) }
        let (canonical, signed) = canonicalRequest(method: method, url: url, headers: all, payloadHash: payloadHash)
        let scope = "\(stamp.prefix(8))/\(region)/\(service)/aws4_request"
        let toSign = stringToSign(timestamp: stamp, scope: scope, canonicalRequest: canonical)
        let signature = HMACSHA256.authenticate(Array(toSign.utf8), key: signingKey(day: String(stamp.prefix(8)))).hex
        added.append(
            ("Authorization", "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signed), Signature=\(signature)"))
        return added
    }

    /// The canonical request and the signed header names (`host;x-amz-date`).
    func canonicalRequest(
        method: String, url: URL, headers: [(name: String, value: String)], payloadHash: String
    ) -> (text: String, signedHeaders: String) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let rawPath = components?.percentEncodedPath ?? "/"
        let path = canonicalPath(rawPath.isEmpty ? "/" : rawPath)
        let query = Self.canonicalQuery(components?.percentEncodedQuery)
        var grouped: [String: [String]] = [:]
        for header in headers {
            grouped[header.name.lowercased(), default: []].append(Self.trimmed(header.value))
        }
        let names = grouped.keys.sorted()
        let headerLines = names.map { "\($0):\(grouped[$0]!.joined(separator: ","))\n" }.joined()
        let signed = names.joined(separator: ";")
        return ([method, path, query, headerLines, signed, payloadHash].joined(separator: "\n"), signed)
    }

    /// The string to sign for a canonical request.
    func stringToSign(timestamp: String, scope: String, canonicalRequest: String) -> String {
        ["AWS4-HMAC-SHA256", timestamp, scope, SHA256.hash(Array(canonicalRequest.utf8)).hex].joined(separator: "\n")
    }

    /// The key for one day (`yyyyMMdd`), region and service.
    func signingKey(day: String) -> [UInt8] {
        var key = HMACSHA256.authenticate(Array(day.utf8), key: Array(("AWS4" + credentials.secretAccessKey).utf8)).bytes
        for part in [region, service, "aws4_request"] { key = HMACSHA256.authenticate(Array(part.utf8), key: key).bytes }
        return key
    }

    /// The path decoded, then encoded once the SigV4 way; other services than S3 also have
    /// `.`, `..` and empty segments removed (S3 signs the key exactly as it is).
    private func canonicalPath(_ encodedPath: String) -> String {
        let decoded = encodedPath.removingPercentEncoding ?? encodedPath
        if service == "s3" { return Self.encode(decoded, keepingSlashes: true) }
        var segments: [Substring] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." { continue }
            if segment == ".." {
                _ = segments.popLast()
                continue
            }
            segments.append(segment)
        }
        var normalized = "/" + segments.joined(separator: "/")
        if decoded.hasSuffix("/") && normalized != "/" { normalized += "/" }
        return Self.encode(normalized, keepingSlashes: true)
    }

    /// Each name and value decoded, then encoded the SigV4 way, sorted by name then value.
    static func canonicalQuery(_ encodedQuery: String?) -> String {
        guard let encodedQuery, !encodedQuery.isEmpty else { return "" }
        var pairs: [(String, String)] = []
        for item in encodedQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            pairs.append((encode(name, keepingSlashes: false), encode(value, keepingSlashes: false)))
        }
        pairs.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        return pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// URI encoding as SigV4 defines it: unreserved characters kept, `%XX` in upper case.
    static func encode(_ text: String, keepingSlashes: Bool) -> String { S3Client.encode(text, keepingSlashes: keepingSlashes) }

    /// A header value with its ends trimmed and inner runs of spaces made one.
    static func trimmed(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " ")
    }

    /// `Host` as a client sends it: the port only when it is not the scheme's default.
    static func hostHeader(_ url: URL) -> String {
        let host = url.host ?? ""
        guard let port = url.port else { return host }
        let scheme = url.scheme?.lowercased()
        if (scheme == "http" && port == 80) || (scheme == "https" && port == 443) { return host }
        return "\(host):\(port)"
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC: the ISO 8601 form Ferry writes, without its separators.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        let iso = ISO8601Milliseconds.format(milliseconds: milliseconds / 1000 * 1000)  // 2015-08-30T12:36:00.000Z
        return String(iso.prefix(19).filter { $0 != "-" && $0 != ":" }) + "Z"
    }
}
