/// A hub's mark: which hub, where it was, and the frontier it held (for each origin, its latest
/// change's counter and digest, over every head). A hub has no single journal, so this is where
/// it stands: it moves exactly when the hub gains a change, and a hub that holds less than a
/// mark (a hub folder restored from a backup, a copy of the hub that missed a change) no longer
/// holds it. The location tells the two apart: the same place went back in time, another place
/// with the same id is a copy.
struct HubMark: Sendable, Hashable, Codable {
    /// The hub's id (its descriptor's).
    var hub: ReplicaID
    /// Where the hub was (a folder path, `s3://bucket/prefix`).
    var location: String
    /// What the hub held.
    var frontier: ReplicaFrontier

    init(hub: ReplicaID, location: String, frontier: ReplicaFrontier) {
        self.hub = hub
        self.location = location
        self.frontier = frontier
    }

    /// How many changes of this mark a hub that holds `current` lacks (none when it holds them all;
    /// an origin whose latest change differs counts that change).
    func changesLacking(in current: ReplicaFrontier) -> UInt64 {
        var lacking: UInt64 = 0
        for (origin, counter) in frontier.knowledge.sortedCounters {
            let now = current.knowledge[origin]
            if now < counter {
                lacking += counter - now
            } else if now == counter, let digest = frontier.digests[origin], let held = current.digests[origin], digest != held {
                lacking += 1
            }
        }
        return lacking
    }

    /// Whether a hub of this id that now holds `current` still holds everything of this mark:
    /// every origin's counter at least the mark's, with the same digest where it is the same.
    func isHeld(by current: ReplicaFrontier, hub id: ReplicaID) -> Bool {
        guard id == hub else { return false }
        for (origin, counter) in frontier.knowledge.sortedCounters {
            let now = current.knowledge[origin]
            if now < counter { return false }
            if now == counter, let digest = frontier.digests[origin], let held = current.digests[origin], digest != held { return false }
        }
        return true
    }

    private enum CodingKeys: String, CodingKey {
        case hub, location, frontier
    }

    /// The frontier is written as a base file writes one (``ReplicaFrontier/jsonValue``):
    /// `{"<origin>": [<counter>, "<digest>"]}`.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let hub = ReplicaID(try container.decode(String.self, forKey: .hub)) else {
            throw DecodingError.dataCorruptedError(forKey: .hub, in: container, debugDescription: "not a hub id")
        }
        guard let members = try container.decode(JSONValue.self, forKey: .frontier).objectValue else {
            throw DecodingError.dataCorruptedError(forKey: .frontier, in: container, debugDescription: "not an object")
        }
        let frontier: ReplicaFrontier
        do { frontier = try ReplicaFrontier(json: members) } catch {
            throw DecodingError.dataCorruptedError(forKey: .frontier, in: container, debugDescription: error.reason)
        }
        self.init(hub: hub, location: try container.decode(String.self, forKey: .location), frontier: frontier)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hub.rawValue, forKey: .hub)
        try container.encode(location, forKey: .location)
        try container.encode(frontier.jsonValue, forKey: .frontier)
    }
}

extension HubMark: DirectPeerMark {
    var json: JSONValue? {
        .object(["hub": .string(hub.rawValue), "location": .string(location), "frontier": frontier.jsonValue])
    }

    init?(json: JSONValue) {
        guard case .string(let id)? = json.objectValue?["hub"], let hub = ReplicaID(id),
            case .string(let location)? = json.objectValue?["location"],
            let members = json.objectValue?["frontier"]?.objectValue,
            let frontier = try? ReplicaFrontier(json: members)
        else { return nil }
        self.init(hub: hub, location: location, frontier: frontier)
    }
}
