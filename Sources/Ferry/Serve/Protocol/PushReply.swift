/// What `POST /v1/stores/<name>/push` answers: what applying the batch did, and the journal
/// head before and after (so the client can tell whether anyone else wrote in between).
///
/// ```json
/// {"alreadyKnown":0,"applied":2,"conflicts":["Note/n1"],"created":false,
///  "hashAfter":"3c…","headAfter":44,"headBefore":42}
/// ```
package struct PushReply: Sendable {
    /// What the store did with the batch.
    package var result: ReceiveResult
    /// Whether this push created the store.
    package var created: Bool

    /// Makes a reply.
    package init(result: ReceiveResult, created: Bool) {
        self.result = result
        self.created = created
    }

    /// The JSON object.
    package var jsonValue: JSONValue {
        [
            "applied": .integer(Int64(result.applied)), "alreadyKnown": .integer(Int64(result.alreadyKnown)),
            "conflicts": .array(result.newConflicts.map { .string($0.description) }),
            "headBefore": .integer(Int64(result.headBefore)), "headAfter": .integer(Int64(result.headAfter)),
            "hashAfter": .string(result.hashAfter.hex), "created": .bool(created),
        ]
    }

    /// Reads a reply from a response body.
    /// - Throws: ``RemoteMessageError`` naming the member at fault.
    package init(body: [UInt8]) throws(RemoteMessageError) {
        let members = try RemoteMessageError.object(body, what: "the push reply")
        var result = ReceiveResult()
        func number(_ name: String) throws(RemoteMessageError) -> UInt64 {
            guard let value = try RemoteMessageError.count(members, name) else {
                throw RemoteMessageError("\(name): must be a non-negative integer")
            }
            return value
        }
        result.applied = Int(clamping: try number("applied"))
        result.alreadyKnown = Int(clamping: try number("alreadyKnown"))
        result.headBefore = try number("headBefore")
        result.headAfter = try number("headAfter")
        guard let hashText = members["hashAfter"]?.stringValue, let hash = SHA256Digest(hex: hashText) else {
            throw RemoteMessageError("hashAfter: must be 64 hex digits")
        }
        result.hashAfter = hash
        guard let conflicts = members["conflicts"]?.arrayValue else { throw RemoteMessageError("conflicts: must be an array") }
        for value in conflicts {
            guard let text = value.stringValue, let slash = text.firstIndex(of: "/"),
                let entity = try? EntityName(String(text[..<slash])),
                let id = try? RecordID(String(text[text.index(after: slash)...]))
            else { throw RemoteMessageError("conflicts: must hold \"Entity/id\" strings") }
            result.newConflicts.append(RecordKey(entity: entity, id: id))
        }
        self.result = result
        created = members["created"]?.boolValue ?? false
    }
}
