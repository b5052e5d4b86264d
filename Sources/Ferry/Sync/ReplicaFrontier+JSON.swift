extension ReplicaFrontier {
    /// A frontier entry that cannot be read, with its origin as written.
    struct JSONProblem: Error, Sendable {
        let reason: String
    }

    /// The frontier as a base file (`.ferry/base.json`) and a journal start (`journal/start.json`)
    /// write it: `{"<origin>": [<counter>, "<digest hex>" or null]}`.
    var jsonValue: JSONValue {
        var members: [String: JSONValue] = [:]
        for (origin, counter) in knowledge.sortedCounters {
            members[origin.rawValue] = [.integer(Int64(counter)), digests[origin].map { .string($0.hex) } ?? .null]
        }
        return .object(members)
    }

    /// Reads ``jsonValue``'s form.
    /// - Throws: the first entry that is not a replica, a positive counter and a digest or null.
    init(json members: [String: JSONValue]) throws(JSONProblem) {
        var counters: [ReplicaID: UInt64] = [:]
        var digests: [ReplicaID: SHA256Digest] = [:]
        for (originText, item) in members {
            guard let origin = ReplicaID(originText), let pair = item.arrayValue, pair.count == 2, let counter = pair[0].integerValue,
                counter > 0
            else { throw JSONProblem(reason: "a bad frontier entry for \(originText)") }
            counters[origin] = UInt64(counter)
            if let hex = pair[1].stringValue {
                guard let digest = SHA256Digest(hex: hex) else { throw JSONProblem(reason: "a bad digest for \(originText)") }
                digests[origin] = digest
            }
        }
        self.init(knowledge: VersionVector(counters), digests: digests)
    }
}
