/// The messages of a join from a served store's state: the client asks with what it knows
/// (`POST /v1/stores/<name>/state`), the server answers with the ``SnapshotOffer`` it would
/// make (or `null`), then serves its versions by page (`GET /v1/stores/<name>/state/<id>`).
///
/// ```json
/// {"knowledge":{"6b1c…":17},"pending":"6b1c…"}
/// {"offer":{"changes":40,"digests":{"6b1c…":"…"},"holdsHistory":true,"id":"…","knowledge":{"6b1c…":208},
///  "position":208,"reason":"join","records":40,"statement":{"ferry-store-state":1,…,"sig":"…"}}}
/// ```
package enum StateOffer {
    /// The request body.
    package static func requestBody(knowledge: VersionVector, pending: ReplicaID?) -> [UInt8] {
        var members: [String: JSONValue] = ["knowledge": knowledge.jsonValue]
        if let pending { members["pending"] = .string(pending.rawValue) }
        return JSONValue.object(members).canonicalBytes()
    }

    /// Reads a request body: the client's knowledge, and the replica its pending join is from.
    package static func request(body: [UInt8]) throws(RemoteMessageError) -> (knowledge: VersionVector, pending: ReplicaID?) {
        let members = try RemoteMessageError.object(body, what: "the state request")
        try RemoteMessageError.rejectUnknown(members, known: ["knowledge", "pending"], in: "the state request")
        guard let value = members["knowledge"], let knowledge = VersionVector(json: value) else {
            throw RemoteMessageError("knowledge: must map replica UUIDs to positive counters")
        }
        var pending: ReplicaID?
        if let value = members["pending"], value != .null {
            guard let text = value.stringValue, let replica = ReplicaID(text) else { throw RemoteMessageError("pending: must be a replica UUID") }
            pending = replica
        }
        return (knowledge, pending)
    }

    /// The response body.
    package static func responseBody(_ offer: SnapshotOffer?) -> [UInt8] {
        guard let offer else { return JSONValue.object(["offer": .null]).canonicalBytes() }
        var digests: [String: JSONValue] = [:]
        for (replica, digest) in offer.frontier.digests { digests[replica.rawValue] = .string(digest.hex) }
        let reason: String
        switch offer.reason {
        case .join: reason = "join"
        case .resume: reason = "resume"
        case .historyNotHeld: reason = "history-not-held"
        case .collected: reason = "collected"
        }
        var members: [String: JSONValue] = [
            "id": .string(offer.id.hex), "knowledge": offer.frontier.knowledge.jsonValue, "digests": .object(digests),
            "records": .integer(Int64(offer.recordCount)), "changes": .integer(Int64(offer.changeCount)), "reason": .string(reason),
            "position": offer.position.map { .integer(Int64(clamping: $0)) } ?? .null, "holdsHistory": .bool(offer.holdsHistory),
        ]
        // The store's signed statement of the state (``StateStatement``); a server from before
        // states sent none, and its client says the state is the server's word.
        if let statement = offer.statement { members["statement"] = statement }
        return JSONValue.object(["offer": .object(members)]).canonicalBytes()
    }

    /// Reads a response body.
    package static func offer(body: [UInt8]) throws(RemoteMessageError) -> SnapshotOffer? {
        let members = try RemoteMessageError.object(body, what: "the state offer")
        guard let value = members["offer"] else { throw RemoteMessageError("the state answer needs \"offer\"") }
        guard case .object(let offer) = value else {
            guard value == .null else { throw RemoteMessageError("offer: must be an object or null") }
            return nil
        }
        guard let idText = offer["id"]?.stringValue, let id = SHA256Digest(hex: idText) else { throw RemoteMessageError("offer.id: must be a SHA-256") }
        guard let knowledgeValue = offer["knowledge"], let knowledge = VersionVector(json: knowledgeValue) else {
            throw RemoteMessageError("offer.knowledge: must map replica UUIDs to positive counters")
        }
        var digests: [ReplicaID: SHA256Digest] = [:]
        if case .object(let entries)? = offer["digests"] {
            for (key, member) in entries {
                guard let replica = ReplicaID(key), let text = member.stringValue, let digest = SHA256Digest(hex: text) else {
                    throw RemoteMessageError("offer.digests: must map replica UUIDs to digests")
                }
                digests[replica] = digest
            }
        }
        guard let records = try RemoteMessageError.count(offer, "records"), let changes = try RemoteMessageError.count(offer, "changes") else {
            throw RemoteMessageError("the offer needs \"records\" and \"changes\"")
        }
        let reason: SnapshotOffer.Reason
        switch offer["reason"]?.stringValue {
        case "join": reason = .join
        case "resume": reason = .resume
        case "history-not-held": reason = .historyNotHeld
        default: throw RemoteMessageError("offer.reason: must be join, resume or history-not-held")
        }
        let position = try RemoteMessageError.count(offer, "position")
        var statement: JSONValue?
        if let value = offer["statement"], value != .null {
            guard value.objectValue != nil else { throw RemoteMessageError("offer.statement: must be an object or null") }
            statement = value
        }
        return SnapshotOffer(
            id: id, frontier: ReplicaFrontier(knowledge: knowledge, digests: digests), recordCount: Int(clamping: records),
            changeCount: Int(clamping: changes), reason: reason, position: position, holdsHistory: offer["holdsHistory"] == .bool(true),
            statement: statement)
    }
}
