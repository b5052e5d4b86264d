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

    /// One origin in the file: `[counter, "digest"]`, as a base file writes a frontier.
    private struct Entry: Codable {
        var counter: UInt64
        var digest: String?

        init(counter: UInt64, digest: String?) {
            self.counter = counter
            self.digest = digest
        }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            counter = try container.decode(UInt64.self)
            digest = try container.decodeIfPresent(String.self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(counter)
            try container.encode(digest)
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let hubText = try container.decode(String.self, forKey: .hub)
        guard let hub = ReplicaID(hubText) else {
            throw DecodingError.dataCorruptedError(forKey: .hub, in: container, debugDescription: "not a hub id")
        }
        var counters: [ReplicaID: UInt64] = [:]
        var digests: [ReplicaID: SHA256Digest] = [:]
        for (originText, entry) in try container.decode([String: Entry].self, forKey: .frontier) {
            guard let origin = ReplicaID(originText), entry.counter > 0 else {
                throw DecodingError.dataCorruptedError(forKey: .frontier, in: container, debugDescription: "a bad entry for \(originText)")
            }
            counters[origin] = entry.counter
            if let text = entry.digest {
                guard let digest = SHA256Digest(hex: text) else {
                    throw DecodingError.dataCorruptedError(forKey: .frontier, in: container, debugDescription: "a bad digest for \(originText)")
                }
                digests[origin] = digest
            }
        }
        self.init(
            hub: hub, location: try container.decode(String.self, forKey: .location),
            frontier: ReplicaFrontier(knowledge: VersionVector(counters), digests: digests))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hub.rawValue, forKey: .hub)
        try container.encode(location, forKey: .location)
        var entries: [String: Entry] = [:]
        for (origin, counter) in frontier.knowledge.sortedCounters {
            entries[origin.rawValue] = Entry(counter: counter, digest: frontier.digests[origin]?.hex)
        }
        try container.encode(entries, forKey: .frontier)
    }
}
