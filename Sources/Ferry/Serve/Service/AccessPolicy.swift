/// Who may do what on a `ferry serve` server: bearer tokens, each opening some stores for
/// reading or for reading and writing, as a tokens file lists them:
///
/// ```json
/// {"tokens": [{"token": "s3cret", "stores": ["alice", "shared"], "access": "read-write"},
///             {"token": "b4ckup", "stores": ["*"], "access": "read"}]}
/// ```
///
/// ```swift
/// let policy = try AccessPolicy(tokensFile: bytes)
/// switch policy.authorize(request.headers["Authorization"], store: "alice", writing: true) { … }
/// ```
package struct AccessPolicy: Sendable {
    /// What a token allows.
    package enum Access: String, Sendable {
        /// Info, knowledge and changes.
        case read
        /// Also push (which may create the store) and checkpoints.
        case readWrite = "read-write"
    }

    /// One token and what it opens.
    package struct Grant: Sendable {
        /// The secret, as sent after `Bearer `.
        package var token: String
        /// Store names it opens; `*` opens every store.
        package var stores: Set<String>
        /// Read, or read and write.
        package var access: Access

        /// Makes a grant.
        package init(token: String, stores: Set<String>, access: Access) {
            self.token = token
            self.stores = stores
            self.access = access
        }

        /// Whether it opens `store`.
        package func covers(_ store: StoreName) -> Bool { stores.contains("*") || stores.contains(store.rawValue) }
    }

    /// The outcome of checking a request.
    package enum Decision: Sendable, Equatable {
        /// Go ahead.
        case allowed
        /// No token, or one the server does not know: `401`.
        case unauthenticated(String)
        /// A known token that does not allow this: `403`.
        case forbidden(String)
    }

    /// The grants; empty with ``isOpen``.
    package let grants: [Grant]
    /// Whether authentication is off (`--no-auth`): everyone may read and write every store.
    package let isOpen: Bool

    /// A policy of these grants.
    package init(grants: [Grant]) {
        self.grants = grants
        isOpen = false
    }

    private init(open: Bool) {
        grants = []
        isOpen = open
    }

    /// No authentication at all, for `--no-auth` on loopback.
    package static let open = AccessPolicy(open: true)

    /// One read-write token for every store, as `ferry serve` makes without `--tokens`.
    package static func single(token: String) -> AccessPolicy {
        AccessPolicy(grants: [Grant(token: token, stores: ["*"], access: .readWrite)])
    }

    /// Reads a tokens file.
    /// - Throws: ``AccessPolicyError`` naming the entry and member at fault.
    package init(tokensFile bytes: [UInt8]) throws(AccessPolicyError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch { throw AccessPolicyError("the tokens file is not JSON: \(error)") }
        guard let list = value["tokens"]?.arrayValue else {
            throw AccessPolicyError("the tokens file must be an object with a \"tokens\" array")
        }
        var grants: [Grant] = []
        var seen = Set<String>()
        for (index, entry) in list.enumerated() {
            let place = "tokens[\(index)]"
            guard let token = entry["token"]?.stringValue, token.utf8.count >= 8,
                token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else {
                throw AccessPolicyError("\(place).token: must be a string of at least 8 printable characters without spaces")
            }
            guard seen.insert(token).inserted else { throw AccessPolicyError("\(place).token: listed twice") }
            guard let names = entry["stores"]?.arrayValue, !names.isEmpty else {
                throw AccessPolicyError("\(place).stores: must be a non-empty array of store names or \"*\"")
            }
            var stores = Set<String>()
            for name in names {
                guard let text = name.stringValue, text == "*" || (try? StoreName(text)) != nil else {
                    throw AccessPolicyError("\(place).stores: \(name) is neither a valid store name nor \"*\"")
                }
                stores.insert(text)
            }
            guard let accessText = entry["access"]?.stringValue, let access = Access(rawValue: accessText) else {
                throw AccessPolicyError("\(place).access: must be \"read\" or \"read-write\"")
            }
            grants.append(Grant(token: token, stores: stores, access: access))
        }
        self.init(grants: grants)
    }

    /// The grant of the token an `Authorization` header carries, if the server knows it.
    /// Tokens are compared in time independent of where they differ.
    package func grant(forAuthorization header: String?) -> Grant? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        let presented = Array(header.dropFirst(7).trimmingCharacters(in: .whitespaces).utf8)
        var found: Grant?
        for grant in grants where Self.constantTimeEquals(Array(grant.token.utf8), presented) { found = grant }
        return found
    }

    /// Decides whether the bearer of `header` may read (or, `writing`, change) `store`.
    package func authorize(_ header: String?, store: StoreName, writing: Bool) -> Decision {
        if isOpen { return .allowed }
        guard header != nil else {
            return .unauthenticated("this server needs a token: send 'Authorization: Bearer <token>'")
        }
        guard let grant = grant(forAuthorization: header) else { return .unauthenticated("unknown token") }
        guard grant.covers(store) else { return .forbidden("this token does not open store \(quoted(store.rawValue))") }
        if writing && grant.access != .readWrite {
            return .forbidden("this token may only read store \(quoted(store.rawValue))")
        }
        return .allowed
    }

    /// Compares in time that depends only on the longer length, never on where the bytes
    /// differ; lengths that differ by any amount (256 included) never compare equal.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt(bitPattern: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= UInt(x ^ y)
        }
        return difference == 0
    }
}

/// A tokens file that cannot be used: not JSON, or an entry that breaks the rules.
package struct AccessPolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the entry.
    package var reason: String
    /// Makes an error.
    package init(_ reason: String) { self.reason = reason }
    /// The reason.
    package var description: String { reason }
}
