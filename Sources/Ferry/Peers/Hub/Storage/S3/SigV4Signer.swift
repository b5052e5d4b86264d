import Foundation

/// Signs requests with AWS Signature Version 4, as S3 and every S3-compatible service expect;
/// tested against the AWS SigV4 test suite and the S3 documentation's examples.
///
/// ```swift
/// let signer = SigV4Signer(credentials: credentials, region: "us-east-1")
/// let payloadHash = SigV4Signer.payloadHash(body)
/// request.headers += signer.sign(method: "PUT", url: url, headers: request.headers, payloadHash: payloadHash, date: Date())
/// ```
///
/// For S3 (`service == "s3"`) the canonical URI is the path exactly as the URL spells it, each
/// segment encoded once, with `.`, `..` and empty segments kept (they are part of object keys).
/// For any other service the path is normalized first (`.`, `..` and empty segments removed), as
/// the generic AWS test suite expects.
package struct SigV4Signer: Sendable {
    /// The key that signs.
    package let credentials: AWSCredentials
    /// The region of the credential scope, such as `us-east-1`.
    package let region: String
    /// The service of the credential scope: `s3`, or another AWS service name.
    package let service: String

    /// Makes a signer for one region and service.
    ///
    /// - Parameters:
    ///   - credentials: The access key (and session token) that signs.
    ///   - region: The region of the credential scope (`auto` for Cloudflare R2).
    ///   - service: The service of the credential scope; `s3` adds `X-Amz-Content-Sha256` and
    ///     signs paths without normalizing them.
    package init(credentials: AWSCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The hex SHA-256 of a payload, for `X-Amz-Content-Sha256` and the canonical request.
    ///
    /// - Parameter body: The request's body (empty for none).
    /// - Returns: 64 lowercase hexadecimal digits.
    package static func payloadHash(_ body: [UInt8]) -> String { SHA256.hash(body).hex }

    /// The payload hash of a payload that is not signed (S3 over TLS accepts it).
    package static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// Signs a request.
    ///
    /// - Parameters:
    ///   - method: The HTTP method, such as `GET`.
    ///   - url: The request's URL; its percent-encoded path and query are signed.
    ///   - headers: The request's other headers, all of them signed. When there is no `Host`, it
    ///     is derived from the URL: the host, plus `:port` when the port is not the scheme's
    ///     default. They must not include the headers this returns.
    ///   - payloadHash: ``payloadHash(_:)`` of the body, or ``unsignedPayload``.
    ///   - date: The time of the request (the service rejects one more than 15 minutes off).
    /// - Returns: The headers to add to the request: `X-Amz-Date`, `X-Amz-Content-Sha256` (only
    ///   when the service is `s3`), `X-Amz-Security-Token` (when there is a session token) and
    ///   `Authorization`, in that order. A derived `Host` is not among them: HTTP clients send it.
    package func sign(
        method: String, url: URL, headers: [(name: String, value: String)], payloadHash: String, date: Date
    ) -> [(name: String, value: String)] {
        let stamp = Self.timestamp(date)
        let day = String(stamp.prefix(8))
        var added: [(name: String, value: String)] = [("X-Amz-Date", stamp)]
        if service == "s3" { added.append(("X-Amz-Content-Sha256", payloadHash)) }
        if let token = credentials.sessionToken { added.append(("X-Amz-Security-Token", token)) }
        var signed = headers + added
        if !signed.contains(where: { Self.canonicalName($0.name) == "host" }) { signed.append(("Host", Self.hostHeader(url))) }
        let canonical = canonicalRequest(method: method, url: url, headers: signed, payloadHash: payloadHash)
        let scope = credentialScope(day: day)
        let toSign = stringToSign(timestamp: stamp, scope: scope, canonicalRequest: canonical.text)
        let signature = HMACSHA256.authenticate(Array(toSign.utf8), key: signingKey(day: day)).hex
        added.append(
            ("Authorization",
             "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"))
        return added
    }

    /// The canonical request, and the signed header names (`host;x-amz-date`).
    ///
    /// - Parameter headers: Every header to sign, `Host` and the `X-Amz-…` ones included.
    func canonicalRequest(
        method: String, url: URL, headers: [(name: String, value: String)], payloadHash: String
    ) -> (text: String, signedHeaders: String) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = canonicalURI(components?.percentEncodedPath ?? url.path)
        let query = Self.canonicalQuery(components?.percentEncodedQuery)
        var grouped: [String: [String]] = [:]
        for header in headers {
            grouped[Self.canonicalName(header.name), default: []].append(Self.trimmed(header.value))
        }
        let sorted = grouped.sorted { $0.key < $1.key }
        let headerLines = sorted.map { "\($0.key):\($0.value.joined(separator: ","))\n" }.joined()
        let signedHeaders = sorted.map(\.key).joined(separator: ";")
        return ([method, path, query, headerLines, signedHeaders, payloadHash].joined(separator: "\n"), signedHeaders)
    }

    /// The string to sign for a canonical request.
    ///
    /// - Parameters:
    ///   - timestamp: The request's `X-Amz-Date`.
    ///   - scope: The credential scope, `20150830/us-east-1/service/aws4_request`.
    func stringToSign(timestamp: String, scope: String, canonicalRequest: String) -> String {
        ["AWS4-HMAC-SHA256", timestamp, scope, SHA256.hash(Array(canonicalRequest.utf8)).hex].joined(separator: "\n")
    }

    /// The credential scope of a day (`yyyyMMdd`): `20150830/us-east-1/service/aws4_request`.
    func credentialScope(day: String) -> String { "\(day)/\(region)/\(service)/aws4_request" }

    /// The signing key of a day (`yyyyMMdd`), this region and this service.
    func signingKey(day: String) -> [UInt8] {
        var key = HMACSHA256.authenticate(Array(day.utf8), key: Array(("AWS4" + credentials.secretAccessKey).utf8)).bytes
        for part in [region, service, "aws4_request"] { key = HMACSHA256.authenticate(Array(part.utf8), key: key).bytes }
        return key
    }

    /// The canonical URI of a percent-encoded path: each segment decoded, then encoded the
    /// SigV4 way (so `%2F` inside a segment stays `%2F`, and `a b`, `a%20b` and `a+b` become
    /// `a%20b`, `a%20b` and `a%2Bb`).
    ///
    /// S3 signs the segments as they are. Other services have `.`, `..` and empty segments
    /// removed first, a trailing slash kept. Their test suite's requests carry raw paths
    /// (`GET /ሴ`), which a URL holds percent-encoded once: decoding first makes the result the
    /// suite's `/%E1%88%B4` (its "double encoding" applied to the raw path).
    func canonicalURI(_ encodedPath: String) -> String {
        let path = encodedPath.isEmpty ? "/" : encodedPath
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { PercentEncoding.decodeLeniently($0) }
        if service == "s3" {
            return segments.map { PercentEncoding.encode(bytes: $0, keepingSlashes: false) }.joined(separator: "/")
        }
        var kept: [[UInt8]] = []
        for segment in segments {
            switch segment {
            case [], [UInt8(ascii: ".")]: continue
            case [UInt8(ascii: "."), UInt8(ascii: ".")]: _ = kept.popLast()
            default: kept.append(segment)
            }
        }
        var normalized = "/" + kept.map { PercentEncoding.encode(bytes: $0, keepingSlashes: false) }.joined(separator: "/")
        if path.hasSuffix("/") && !kept.isEmpty { normalized += "/" }
        return normalized
    }

    /// The canonical query string: each name and value decoded, then encoded the SigV4 way
    /// (space as `%20`, `+` as `%2B`), sorted by name then value, `name=value` joined by `&`.
    static func canonicalQuery(_ encodedQuery: String?) -> String {
        guard let encodedQuery, !encodedQuery.isEmpty else { return "" }
        var pairs: [(name: String, value: String)] = []
        for item in encodedQuery.utf8.split(separator: UInt8(ascii: "&")) {
            let parts = item.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts.first else { continue }
            let value = parts.count > 1 ? PercentEncoding.encode(bytes: PercentEncoding.decodeLeniently(parts[1]), keepingSlashes: false) : ""
            pairs.append((PercentEncoding.encode(bytes: PercentEncoding.decodeLeniently(name), keepingSlashes: false), value))
        }
        // Encoded names and values are ASCII, so this is the byte order SigV4 asks for.
        pairs.sort { $0.name != $1.name ? $0.name < $1.name : $0.value < $1.value }
        return pairs.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// URI encoding as SigV4 defines it (``PercentEncoding``): `A-Z a-z 0-9 - _ . ~` kept,
    /// `/` kept when asked, every other byte of the UTF-8 as `%XX` in upper case.
    static func encode(_ text: String, keepingSlashes: Bool) -> String { PercentEncoding.encode(text, keepingSlashes: keepingSlashes) }

    /// A header name as it is signed: lower case, without surrounding white space.
    static func canonicalName(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// A header value with its ends trimmed and inner runs of white space (folded lines
    /// included) made one space.
    static func trimmed(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).joined(separator: " ")
    }

    /// `Host` as a client sends it: the host (an IPv6 address in brackets), plus `:port` only
    /// when the port is not the scheme's default.
    static func hostHeader(_ url: URL) -> String {
        var host = url.host ?? ""
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        guard let port = url.port else { return host }
        let scheme = url.scheme?.lowercased()
        if (scheme == "http" && port == 80) || (scheme == "https" && port == 443) { return host }
        return "\(host):\(port)"
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC, by calendar arithmetic (no DateFormatter, no locale);
    /// dates outside the years 1–9999 are clamped to them.
    static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let clamped = seconds.isNaN ? 0 : min(max(seconds.rounded(.down), -62_135_596_800), 253_402_300_799)
        let iso = ISO8601Milliseconds.format(signedMilliseconds: Int64(clamped) * 1000)  // 2015-08-30T12:36:00.000Z
        return String(iso.prefix(19).filter { $0 != "-" && $0 != ":" }) + "Z"
    }
}
