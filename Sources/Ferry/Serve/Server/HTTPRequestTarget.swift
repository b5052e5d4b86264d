/// A request target split into its percent-decoded path and query, as the parser validates it.
///
/// ```swift
/// let target = try HTTPRequestTarget(parsing: "/v1/pull?after=12&entity=User%20Profile")
/// target.path    // "/v1/pull"
/// target.query   // ["after": "12", "entity": "User Profile"]
/// ```
struct HTTPRequestTarget: Sendable, Hashable {
    /// The percent-decoded path, always starting with `/` (or `*` for `OPTIONS *`).
    var path: String
    /// The percent-decoded query parameters. `+` stays a plus sign (URLComponents does not
    /// escape it); a key without `=` maps to `""`; when a key repeats, the last value wins.
    var query: [String: String]

    /// Parses an origin-form (`/a/b?c=d`), asterisk-form (`*`) or absolute-form
    /// (`http://host/a/b?c=d`) target.
    /// - Throws: ``HTTPRequestError/invalidTarget`` or ``HTTPRequestError/invalidPercentEncoding``.
    init(parsing target: String) throws(HTTPRequestError) {
        var rest = Substring(target)
        if rest == "*" {
            path = "*"
            query = [:]
            return
        }
        if !rest.hasPrefix("/") {
            // Absolute form: scheme "://" authority path-abempty [ "?" query ]
            guard let schemeEnd = rest.range(of: "://"),
                  ["http", "https"].contains(rest[..<schemeEnd.lowerBound].lowercased())
            else { throw .invalidTarget }
            let afterAuthority = rest[schemeEnd.upperBound...]
            guard let slash = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }) else {
                path = "/"
                query = [:]
                return
            }
            rest = afterAuthority[slash...]
            if rest.hasPrefix("?") { rest = "/" + rest }
        }
        rest = rest.prefix { $0 != "#" }
        let rawPath: Substring
        let rawQuery: Substring?
        if let question = rest.firstIndex(of: "?") {
            rawPath = rest[..<question]
            rawQuery = rest[rest.index(after: question)...]
        } else {
            rawPath = rest
            rawQuery = nil
        }
        guard let decodedPath = Self.percentDecoded(rawPath) else { throw .invalidPercentEncoding }
        path = decodedPath
        query = [:]
        guard let rawQuery, !rawQuery.isEmpty else { return }
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let key: Substring, value: Substring
            if let equals = pair.firstIndex(of: "=") {
                key = pair[..<equals]
                value = pair[pair.index(after: equals)...]
            } else {
                key = pair
                value = ""
            }
            guard let decodedKey = Self.percentDecoded(key), let decodedValue = Self.percentDecoded(value) else {
                throw .invalidPercentEncoding
            }
            query[decodedKey] = decodedValue
        }
    }

    /// Decodes `%xx` escapes; `nil` when an escape is broken or the result is not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard decoded.utf8.elementsEqual(bytes) else { return nil }  // invalid UTF-8 was repaired
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
