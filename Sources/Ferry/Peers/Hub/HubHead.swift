/// A replica's head object, `heads/<replica>.json`: the only object of the hub that is ever
/// rewritten, and only by its own replica. It lists the replica's segments (with, for each,
/// the range of changes of every origin it carries, so a reader knows which segments it needs
/// without opening any), what the replica has read of the others, and when it last synced.
public struct HubHead: Sendable, Hashable {
    /// The head format this Ferry writes.
    public static let currentFormat: Int64 = 1
    /// The most bytes a head may hold; a larger one is not read.
    public static let maximumByteCount = 64 << 20

    /// The range of one origin's changes in a segment.
    public struct OriginRange: Sendable, Hashable {
        public var first: UInt64
        public var last: UInt64
        /// The digest of the change numbered `last`.
        public var lastDigest: SHA256Digest

        public init(first: UInt64, last: UInt64, lastDigest: SHA256Digest) {
            self.first = first
            self.last = last
            self.lastDigest = lastDigest
        }
    }

    /// One immutable segment of the replica's.
    public struct Segment: Sendable, Hashable {
        /// 1, 2, 3… in the order the replica wrote them.
        public var number: UInt64
        /// SHA-256 of the segment's bytes (also in its key).
        public var hash: SHA256Digest
        public var byteCount: Int64
        public var changeCount: Int
        /// The changes it carries, per origin.
        public var origins: [ReplicaID: OriginRange]

        public init(number: UInt64, hash: SHA256Digest, byteCount: Int64, changeCount: Int, origins: [ReplicaID: OriginRange]) {
            self.number = number
            self.hash = hash
            self.byteCount = byteCount
            self.changeCount = changeCount
            self.origins = origins
        }

        /// Whether the segment carries a change that `knowledge` lacks.
        public func hasChanges(beyond knowledge: VersionVector) -> Bool {
            origins.contains { $0.value.last > knowledge[$0.key] }
        }
    }

    public var replica: ReplicaID
    /// The replica's short name (`laptop`), when its store has one.
    public var name: String?
    /// When the replica last wrote its head, milliseconds since 1970.
    public var updated: UInt64
    /// The replica's number of live records when it last synced.
    public var recordCount: Int
    /// The highest clock stamp among its segments' changes.
    public var latestModification: HybridTimestamp
    public var segments: [Segment]
    /// The names of other replicas this one knows (heard from its other peers), so that names
    /// travel through the hub (`names` in the head; heads written before it have none).
    public var names: [ReplicaID: String] = [:]
    /// For every other replica, how many of its segments this one has read (all of their
    /// changes are in its store): what `hub compact` may collect.
    public var read: [ReplicaID: UInt64]

    public init(replica: ReplicaID, name: String?, updated: UInt64) {
        self.replica = replica
        self.name = name
        self.updated = updated
        self.recordCount = 0
        self.latestModification = .zero
        self.segments = []
        self.read = [:]
    }

    /// The head's key.
    public static func key(of replica: ReplicaID) -> String { "heads/\(replica.rawValue).json" }

    /// The key of one of its segments.
    public func key(of segment: Segment) -> String { Self.segmentKey(replica: replica, number: segment.number, hash: segment.hash) }

    /// `segments/<replica>/<number, 8 digits>-<hash>.seg`.
    public static func segmentKey(replica: ReplicaID, number: UInt64, hash: SHA256Digest) -> String {
        let digits = String(number)
        return "segments/\(replica.rawValue)/\(String(repeating: "0", count: max(0, 8 - digits.count)))\(digits)-\(hash.hex).seg"
    }

    /// The head as JSON.
    public var jsonValue: JSONValue {
        var value: JSONValue = [
            "ferry-hub-head": .integer(Self.currentFormat), "replica": .string(replica.rawValue),
            "updated": .string(ISO8601Milliseconds.format(milliseconds: updated)), "records": .integer(Int64(recordCount)),
            "latest": .string(latestModification.description),
            "segments": .array(segments.map { segment in
                var origins: [String: JSONValue] = [:]
                for (origin, range) in segment.origins {
                    origins[origin.rawValue] = [.integer(Int64(range.first)), .integer(Int64(range.last)), .string(range.lastDigest.hex)]
                }
                return [
                    "n": .integer(Int64(segment.number)), "hash": .string(segment.hash.hex),
                    "bytes": .integer(segment.byteCount), "changes": .integer(Int64(segment.changeCount)),
                    "origins": .object(origins),
                ]
            }),
            "read": .object(Dictionary(uniqueKeysWithValues: read.map { ($0.key.rawValue, JSONValue.integer(Int64($0.value))) })),
        ]
        if let name { value["name"] = .string(name) }
        if !names.isEmpty { value["names"] = ReplicaNameBook.json(names) }
        return value
    }

    /// The head's bytes.
    public var bytes: [UInt8] { jsonValue.canonicalBytes() + [UInt8(ascii: "\n")] }

    /// Reads a head.
    /// - Parameter expected: the replica its key names: a head claiming another is malformed.
    public init(bytes: [UInt8], key: String, expected: ReplicaID, location: String) throws(HubError) {
        func bad(_ reason: String) -> HubError { .malformed(location: location, key: key, reason: reason) }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: .init(maximumDepth: 16, maximumByteCount: Self.maximumByteCount)) } catch {
            throw bad(error.description)
        }
        guard let format = value["ferry-hub-head"]?.integerValue else { throw bad("no \"ferry-hub-head\" format number") }
        guard format == Self.currentFormat else { throw .unsupportedFormat(location: location, found: format) }
        guard let replicaText = value["replica"]?.stringValue, let replica = ReplicaID(replicaText), replica == expected else {
            throw bad("it does not name replica \(expected)")
        }
        guard let updatedText = value["updated"]?.stringValue, let updated = ISO8601Milliseconds.parse(updatedText), updated >= 0 else {
            throw bad("no valid \"updated\" time")
        }
        self.init(replica: replica, name: value["name"]?.stringValue, updated: UInt64(updated))
        recordCount = Int(max(0, value["records"]?.integerValue ?? 0))
        latestModification = value["latest"]?.stringValue.flatMap { HybridTimestamp($0) } ?? .zero
        guard let segmentValues = value["segments"]?.arrayValue else { throw bad("no \"segments\" list") }
        var expectedNumber: UInt64 = 1
        for item in segmentValues {
            guard let number = item["n"]?.integerValue, number > 0, UInt64(number) == expectedNumber,
                let hashText = item["hash"]?.stringValue, let hash = SHA256Digest(hex: hashText),
                let byteCount = item["bytes"]?.integerValue, byteCount > 0,
                let changeCount = item["changes"]?.integerValue, changeCount >= 0,
                let originValues = item["origins"]?.objectValue
            else { throw bad("segment \(expectedNumber) is not described correctly") }
            var origins: [ReplicaID: OriginRange] = [:]
            for (originText, rangeValue) in originValues {
                guard let origin = ReplicaID(originText), let parts = rangeValue.arrayValue, parts.count == 3,
                    let first = parts[0].integerValue, let last = parts[1].integerValue, first > 0, last >= first,
                    let digestText = parts[2].stringValue, let digest = SHA256Digest(hex: digestText)
                else { throw bad("segment \(expectedNumber) has a bad range for \(originText)") }
                origins[origin] = OriginRange(first: UInt64(first), last: UInt64(last), lastDigest: digest)
            }
            segments.append(Segment(number: UInt64(number), hash: hash, byteCount: byteCount, changeCount: Int(changeCount), origins: origins))
            expectedNumber += 1
        }
        names = ReplicaNameBook.names(in: value["names"])
        for (replicaText, countValue) in value["read"]?.objectValue ?? [:] {
            guard let other = ReplicaID(replicaText), let count = countValue.integerValue, count >= 0 else { throw bad("bad \"read\" entry") }
            read[other] = UInt64(count)
        }
    }
}
