/// The snapshots a store joined from, and what it knows without holding the changes: the
/// frontier it took from a snapshot (a hub's, or a store's state)
/// when it joined (or re-joined) at the cost of the state, in `.ferry/base.json`.
///
/// A store that joins from a snapshot journals the snapshot's record versions (each change
/// with its origin, counter, stamp and digest), not the history before them, so its journal
/// alone shows gaps in each origin's counters. The base says which changes the store holds
/// anyway: every change up to the snapshot's frontier, bound to the digest of each origin's
/// latest change there. Opening the store raises its knowledge to the base; `ferry verify`
/// says that history before the base is not held here.
///
/// ```json
/// {"ferry-base":1,"frontier":{"<origin>":[57,"<digest>"]},
///  "joins":[{"hub":"…","location":"s3://team/notes","snapshot":"…","at":"2026-…","sequence":1200,"records":1000}],
///  "pending":null}
/// ```
/// A join in progress is `pending` (written before the first record is journaled): until it
/// finishes, the store syncs only with that hub, which completes it.
public struct SnapshotJoins: Sendable, Hashable {
    /// The base format this Ferry writes.
    public static let format: Int64 = 1

    /// One join from a snapshot.
    public struct Join: Sendable, Hashable {
        /// The id of the hub or store the snapshot came from (in the file: `hub`, for every
        /// source); its location is ``location``.
        public var source: ReplicaID
        public var location: String
        /// The snapshot's id: the SHA-256 of a hub snapshot's manifest, or, from a store, the
        /// hash of the store's journal entry at ``position``.
        public var snapshot: SHA256Digest
        /// From a store: the position in its journal that the snapshot stands for.
        public var position: UInt64?
        /// When the join started, milliseconds since 1970.
        public var started: UInt64
        /// The journal's last sequence when the join finished (0 while pending).
        public var sequence: UInt64
        /// Records the snapshot held.
        public var records: Int
        /// The writer's signed statement of the state joined (a hub snapshot's signed manifest,
        /// see ``HubSnapshot``), proven when the join started; `nil` for an unsigned snapshot, a
        /// store's state, or a join made before snapshots were signed.
        public var statement: JSONValue?

        public init(
            source: ReplicaID, location: String, snapshot: SHA256Digest, started: UInt64, sequence: UInt64 = 0, records: Int = 0,
            position: UInt64? = nil, statement: JSONValue? = nil
        ) {
            self.statement = statement
            self.position = position
            self.source = source
            self.location = location
            self.snapshot = snapshot
            self.started = started
            self.sequence = sequence
            self.records = records
        }
    }

    /// Every change up to this frontier is held (its effect is in the records), whether or
    /// not the journal shows it.
    public var frontier: ReplicaFrontier
    /// Finished joins, oldest first.
    public var joins: [Join]
    /// A join that started and has not finished.
    public var pending: Join?

    public init(frontier: ReplicaFrontier = ReplicaFrontier(knowledge: VersionVector(), digests: [:]), joins: [Join] = [], pending: Join? = nil) {
        self.frontier = frontier
        self.joins = joins
        self.pending = pending
    }

    /// The frontier raised to `other`'s counters where they are higher (with their digests).
    public static func raise(_ frontier: ReplicaFrontier, to other: ReplicaFrontier) -> ReplicaFrontier {
        var counters = frontier.knowledge.counters
        var digests = frontier.digests
        for (origin, counter) in other.knowledge.sortedCounters where counter > counters[origin] ?? 0 {
            counters[origin] = counter
            digests[origin] = other.digests[origin]
        }
        return ReplicaFrontier(knowledge: VersionVector(counters), digests: digests)
    }

    // MARK: JSON

    public var jsonValue: JSONValue {
        func value(_ join: Join) -> JSONValue {
            var members: [String: JSONValue] = [
                "hub": .string(join.source.rawValue), "location": .string(join.location), "snapshot": .string(join.snapshot.hex),
                "at": .string(ISO8601Milliseconds.format(milliseconds: join.started)), "sequence": .integer(Int64(join.sequence)),
                "records": .integer(Int64(join.records)),
            ]
            if let position = join.position { members["position"] = .integer(Int64(clamping: position)) }
            if let statement = join.statement { members["statement"] = statement }
            return .object(members)
        }
        return [
            "ferry-base": .integer(Self.format), "frontier": frontier.jsonValue, "joins": .array(joins.map(value)),
            "pending": pending.map(value) ?? .null,
        ]
    }

    /// Reads a base file's content.
    /// - Throws: a one-line reason when it is not a base this Ferry reads.
    public init(json value: JSONValue) throws(StoreError) {
        func bad(_ reason: String) -> StoreError { .damagedBase(reason: reason) }
        guard let format = value["ferry-base"]?.integerValue else { throw bad("no \"ferry-base\" format number") }
        guard format == Self.format else { throw bad("format \(format); this ferry reads format \(Self.format)") }
        guard let frontierValue = value["frontier"]?.objectValue else { throw bad("no \"frontier\"") }
        let frontier: ReplicaFrontier
        do { frontier = try ReplicaFrontier(json: frontierValue) } catch { throw bad(error.reason) }
        func join(_ item: JSONValue) throws(StoreError) -> Join {
            guard let hubText = item["hub"]?.stringValue, let hub = ReplicaID(hubText), let location = item["location"]?.stringValue,
                let snapshotText = item["snapshot"]?.stringValue, let snapshot = SHA256Digest(hex: snapshotText),
                let atText = item["at"]?.stringValue, let at = ISO8601Milliseconds.parse(atText), at >= 0,
                let sequence = item["sequence"]?.integerValue, sequence >= 0, let records = item["records"]?.integerValue, records >= 0
            else { throw bad("a join is not described correctly") }
            var position: UInt64?
            if let item = item["position"] {
                guard let value = item.integerValue, value >= 0 else { throw bad("a join's position is not a journal position") }
                position = UInt64(value)
            }
            var statement: JSONValue?
            if let value = item["statement"], value != .null {
                guard value.objectValue != nil else { throw bad("a join's statement is not an object") }
                statement = value
            }
            return Join(
                source: hub, location: location, snapshot: snapshot, started: UInt64(at), sequence: UInt64(sequence), records: Int(records),
                position: position, statement: statement)
        }
        var joins: [Join] = []
        for item in value["joins"]?.arrayValue ?? [] { joins.append(try join(item)) }
        var pending: Join?
        if let item = value["pending"], item != .null { pending = try join(item) }
        self.init(frontier: frontier, joins: joins, pending: pending)
    }
}
