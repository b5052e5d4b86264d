/// Which changes a client asks for: those after a journal position, at most `limit` of them,
/// leaving out those its knowledge says it has. Sent as the body of
/// `POST /v1/stores/<name>/changes`, or as `?after=&limit=` on `GET` (no knowledge).
///
/// ```json
/// {"after":120,"knowledge":{"6b1c…":17},"limit":5000}
/// ```
package struct ChangeQuery: Sendable, Equatable {
    /// The journal position to read after (0 for the start).
    package var after: UInt64
    /// The most changes to return (the server may return fewer; it reads on until it has
    /// this many or reaches its head).
    package var limit: Int
    /// For each replica, the counter of its latest change the client has; those are left out.
    package var knowledge: VersionVector
    /// The most bytes of changes one page may carry (the server also has its own bound); a page
    /// always carries at least one change, however large.
    package var maximumBytes: Int?

    /// The page size when none is asked for.
    package static let defaultLimit = 5_000

    /// Makes a query.
    package init(after: UInt64, limit: Int = ChangeQuery.defaultLimit, knowledge: VersionVector = VersionVector()) {
        self.after = after
        self.limit = limit
        self.knowledge = knowledge
    }

    /// The canonical JSON body.
    package func bodyBytes() -> [UInt8] {
        var members: [String: JSONValue] = [
            "after": .integer(Int64(after)), "limit": .integer(Int64(limit)), "knowledge": knowledge.jsonValue,
        ]
        if let maximumBytes { members["maxBytes"] = .integer(Int64(maximumBytes)) }
        return JSONValue.object(members).canonicalBytes()
    }

    /// Reads a query from a `POST` body.
    /// - Throws: ``RemoteMessageError`` naming the member at fault.
    package init(body: [UInt8]) throws(RemoteMessageError) {
        let members = try RemoteMessageError.object(body, what: "the changes query")
        try RemoteMessageError.rejectUnknown(members, known: ["after", "limit", "knowledge", "maxBytes"], in: "the changes query")
        let after = try RemoteMessageError.count(members, "after") ?? 0
        let limit = try RemoteMessageError.count(members, "limit") ?? UInt64(Self.defaultLimit)
        var knowledge = VersionVector()
        if let value = members["knowledge"] {
            guard let vector = VersionVector(json: value) else {
                throw RemoteMessageError("knowledge: must map replica UUIDs to positive counters")
            }
            knowledge = vector
        }
        try self.init(after: after, limit: limit, knowledge: knowledge)
        if let bytes = try RemoteMessageError.count(members, "maxBytes") {
            guard bytes >= 1 else { throw RemoteMessageError("maxBytes: must be at least 1") }
            maximumBytes = Int(clamping: bytes)
        }
    }

    /// Reads a query from `?after=N&limit=M`.
    /// - Throws: ``RemoteMessageError`` naming the parameter at fault.
    package init(query: [String: String]) throws(RemoteMessageError) {
        func number(_ name: String) throws(RemoteMessageError) -> UInt64? {
            guard let text = query[name] else { return nil }
            guard let value = UInt64(text) else { throw RemoteMessageError("\(name): must be a non-negative integer") }
            return value
        }
        try self.init(after: number("after") ?? 0, limit: number("limit") ?? UInt64(Self.defaultLimit), knowledge: VersionVector())
    }

    private init(after: UInt64, limit: UInt64, knowledge: VersionVector) throws(RemoteMessageError) {
        guard (1...UInt64(RemoteProtocol.maximumPageSize)).contains(limit) else {
            throw RemoteMessageError("limit: must be between 1 and \(RemoteProtocol.maximumPageSize)")
        }
        self.init(after: after, limit: Int(limit), knowledge: knowledge)
    }
}
