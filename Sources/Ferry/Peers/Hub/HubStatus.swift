/// What `ferry hub status` shows.
public struct HubStatus: Sendable {
    /// One replica as its head describes it.
    public struct Replica: Sendable {
        public var replica: ReplicaID
        public var name: String?
        /// When it last wrote its head, milliseconds since 1970.
        public var lastSeen: UInt64
        /// Milliseconds between its last sync and the newest replica's.
        public var behindNewest: UInt64
        public var segments: Int
        /// Segments its head lists that the hub does not hold (not arrived yet, or lost).
        public var missingSegments: Int
        /// Its segments deleted by `hub compact` (a snapshot covers them).
        public var collectedSegments: Int
        public var changes: Int
        public var segmentBytes: Int64
        public var records: Int
        /// Changes in other replicas' segments it has not read.
        public var unreadChanges: Int
        /// Whether its head is signed (by its key: a head signed by another is in
        /// ``HubStatus/rewritten``); an unsigned one comes from a replica made before heads were signed.
        public var isSigned: Bool
    }

    /// One snapshot written by `hub compact`.
    public struct Snapshot: Sendable {
        public var id: SHA256Digest
        public var records: Int
        public var liveRecords: Int
        public var versions: Int
        public var coveredSegments: UInt64
        public var bytes: Int64
    }

    public var descriptor: HubDescriptor
    public var snapshots: [Snapshot] = []
    public var location: String
    public var replicas: [Replica] = []
    public var segmentCount = 0
    public var snapshotCount = 0
    /// Bytes of every object under the hub.
    public var byteCount: Int64 = 0
    /// Files under `heads/` that Ferry did not write (conflicted copies, placeholders).
    public var ignored: [String] = []
    public var unreadable: [String] = []
    /// Heads rewritten by someone without their replica's key, one line each: ignored.
    public var rewritten: [String] = []
    public var requests = 0

    init(descriptor: HubDescriptor, location: String) {
        self.descriptor = descriptor
        self.location = location
    }

    /// The status as JSON, for scripts.
    public var jsonValue: JSONValue {
        [
            "location": .string(location), "hub": .string(descriptor.id.rawValue), "format": .integer(descriptor.format),
            "created": .string(ISO8601Milliseconds.format(milliseconds: descriptor.created)),
            "writers": descriptor.isOpenToAnyWriter ? "anyone" : "members",
            "segments": .integer(Int64(segmentCount)), "snapshots": .integer(Int64(snapshotCount)), "bytes": .integer(byteCount),
            "snapshotDetails": .array(snapshots.map { snapshot in
                [
                    "id": .string(snapshot.id.hex), "records": .integer(Int64(snapshot.records)),
                    "liveRecords": .integer(Int64(snapshot.liveRecords)), "versions": .integer(Int64(snapshot.versions)),
                    "coveredSegments": .integer(Int64(snapshot.coveredSegments)), "bytes": .integer(snapshot.bytes),
                ]
            }),
            "ignored": .array(ignored.map { .string($0) }), "unreadable": .array(unreadable.map { .string($0) }),
            "rewritten": .array(rewritten.map { .string($0) }),
            "replicas": .array(replicas.map { replica in
                var value: JSONValue = [
                    "replica": .string(replica.replica.rawValue),
                    "lastSeen": .string(ISO8601Milliseconds.format(milliseconds: replica.lastSeen)),
                    "behindNewestSeconds": .number(Double(replica.behindNewest) / 1000), "segments": .integer(Int64(replica.segments)),
                    "missingSegments": .integer(Int64(replica.missingSegments)),
                    "collectedSegments": .integer(Int64(replica.collectedSegments)), "changes": .integer(Int64(replica.changes)),
                    "segmentBytes": .integer(replica.segmentBytes), "records": .integer(Int64(replica.records)),
                    "unreadChanges": .integer(Int64(replica.unreadChanges)), "signed": .bool(replica.isSigned),
                ]
                if let name = replica.name { value["name"] = .string(name) }
                return value
            }),
        ]
    }
}
