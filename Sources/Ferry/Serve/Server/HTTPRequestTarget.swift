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
        guard let decodedPath = PercentEncoding.decode(rawPath) else { throw .invalidPercentEncoding }
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
            guard let decodedKey = PercentEncoding.decode(key), let decodedValue = PercentEncoding.decode(value) else {
                throw .invalidPercentEncoding
            }
            query[decodedKey] = decodedValue
        }
    }
}
