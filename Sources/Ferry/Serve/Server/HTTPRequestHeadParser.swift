/// Parses and validates a complete request head (request line and header fields, up to and
/// including the empty line) into an ``HTTPRequestHead``. Pure: no state beyond the limits.
///
/// The rules, strictest reasonable reading of RFC 9112:
/// - request line `METHOD SP target SP HTTP/d.d`, single spaces; versions other than 1.0 and
///   1.1 get `505` (this covers the HTTP/2 preface `PRI * HTTP/2.0`);
/// - a method that is a valid token but not in ``HTTPMethod/supported`` gets `501`;
/// - lines end in CRLF or a bare LF; a bare CR, a NUL or another control character is `400`;
/// - header lines need a colon and a token name with no space before the colon; a line that
///   starts with whitespace (obsolete folding) is `400`;
/// - HTTP/1.1 needs exactly one `Host`;
/// - body framing: `Content-Length` once, digits only; or `Transfer-Encoding: chunked` alone;
///   both together is `400`; another coding is `501`; POST, PUT and PATCH with neither get `411`.
struct HTTPRequestHeadParser {
    let limits: HTTPRequestParser.Limits

    func parse(_ bytes: ArraySlice<UInt8>) throws(HTTPRequestError) -> HTTPRequestHead {
        if bytes.contains(0) { throw .nulByte }
        var lines: [ArraySlice<UInt8>] = []
        for var line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty { break }  // the empty line that ends the head
            lines.append(line)
        }
        guard let requestLine = lines.first else { throw .malformedRequestLine }
        let (method, target, version) = try parseRequestLine(requestLine)
        guard lines.count - 1 <= limits.maximumHeaderCount else {
            throw .headersTooLarge(limit: limits.maximumHeaderBytes)
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            let (name, value) = try parseField(line)
            headers.add(name, value)
        }
        if version == .http11 && headers.values(for: "Host").count != 1 { throw .invalidHost }
        if version == .http10 && headers.values(for: "Host").count > 1 { throw .invalidHost }

        let parsedTarget = try HTTPRequestTarget(parsing: target)
        if parsedTarget.path == "*" && method != .options { throw .invalidTarget }
        let framing = try bodyFraming(method: method, version: version, headers: headers)
        let connection = Set(
            headers.values(for: "Connection")
                .flatMap { $0.split(separator: ",") }
                .map { $0.trimmingSpaces().lowercased() })
        let keepAlive = version == .http11 ? !connection.contains("close") : connection.contains("keep-alive")
        let expectsContinue = version == .http11
            && headers["Expect"].map { $0.trimmingSpaces().lowercased() == "100-continue" } == true
        return HTTPRequestHead(
            method: method, target: target, path: parsedTarget.path, query: parsedTarget.query,
            version: version, headers: headers, framing: framing, keepAlive: keepAlive,
            expectsContinue: expectsContinue)
    }

    private func parseRequestLine(
        _ line: ArraySlice<UInt8>
    ) throws(HTTPRequestError) -> (HTTPMethod, String, HTTPVersion) {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { throw .malformedRequestLine }
        // The version first: an HTTP/2 preface ("PRI * HTTP/2.0") must get 505, not 501.
        let version = try parseVersion(parts[2])
        guard parts[0].allSatisfy(Self.isTokenByte) else { throw .invalidMethod }
        let method = HTTPMethod(rawValue: String(decoding: parts[0], as: UTF8.self))
        guard HTTPMethod.supported.contains(method) else { throw .methodNotImplemented(method) }
        guard parts[1].allSatisfy({ (0x21...0x7E).contains($0) }) else { throw .invalidTarget }
        return (method, String(decoding: parts[1], as: UTF8.self), version)
    }

    private func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPRequestError) -> HTTPVersion {
        let text = Array(bytes)
        guard text.count == 8, text.starts(with: Array("HTTP/".utf8)), text[6] == UInt8(ascii: "."),
              let major = Self.digit(text[5]), let minor = Self.digit(text[7])
        else { throw .malformedRequestLine }
        let version = HTTPVersion(major: major, minor: minor)
        guard version == .http11 || version == .http10 else {
            throw .unsupportedVersion(version.description)
        }
        return version
    }

    private func parseField(_ line: ArraySlice<UInt8>) throws(HTTPRequestError) -> (String, String) {
        guard let first = line.first else { throw .headerWithoutColon }
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { throw .obsoleteLineFolding }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .headerWithoutColon }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else { throw .invalidHeaderName }
        var value = line[line.index(after: colon)...]
        while let byte = value.first, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
            value = value.dropFirst()
        }
        while let byte = value.last, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
            value = value.dropLast()
        }
        for byte in value where (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F {
            throw .invalidHeaderValue
        }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    private func bodyFraming(
        method: HTTPMethod, version: HTTPVersion, headers: HTTPHeaders
    ) throws(HTTPRequestError) -> HTTPRequestHead.BodyFraming {
        let lengths = headers.values(for: "Content-Length")
        let encodings = headers.values(for: "Transfer-Encoding")
        if !encodings.isEmpty {
            guard lengths.isEmpty else { throw .conflictingFraming }
            let codings = encodings.flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces().lowercased() }
            guard codings == ["chunked"], version == .http11 else { throw .unsupportedTransferEncoding }
            return .chunked
        }
        if lengths.count > 1 { throw .duplicateContentLength }
        if let text = lengths.first {
            if text.contains(",") { throw .duplicateContentLength }
            guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ Self.digit($0) != nil }),
                  let length = Int(text)
            else { throw .invalidContentLength }
            return length == 0 ? .none : .length(length)
        }
        if method.requiresBodyLength { throw .lengthRequired }
        return .none
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    /// `tchar` of RFC 9110: letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return tokenSymbols.contains(byte)
        }
    }
    private static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)
}

extension StringProtocol {
    /// Drops leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let trimmed = self.drop { $0 == " " || $0 == "\t" }
        var end = trimmed.endIndex
        while end > trimmed.startIndex, [" ", "\t"].contains(trimmed[trimmed.index(before: end)]) {
            end = trimmed.index(before: end)
        }
        return String(trimmed[..<end])
    }
}
