/// A replica's head object, `heads/<replica>.json`: the only object of the hub that is ever
/// rewritten, and only by its own replica. It lists the replica's segments (with, for each,
/// the range of changes of every origin it carries, so a reader knows which segments it needs
/// without opening any), what the replica has read of the others, and when it last synced.
///
/// A replica signs its head with its store's key (`"signer"` and `"sig"`, see ``SignedObject``),
/// and the head lists each segment's hash, so the signature covers the segments too. Readers
/// take a head only from its replica's key (``SignedObject/standing(of:for:held:)``).
public struct HubHead: Sendable, Hashable {
    /// The head format this Ferry writes.
    public static let currentFormat: Int64 = 1
    /// The most bytes a head may hold; a larger one is not read.
    public static let maximumByteCount = 64 << 20
    /// What a head's signature is made over, before its canonical bytes.
    public static let signingDomain = "ferry-hub-head-v1:"

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
        /// The number of an earlier segment of the same replica whose changes this one carries
        /// again: that one was reported missing from the hub, and readers skip it.
        public var republishes: UInt64?

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
    /// Segments of other replicas that their heads list and this replica found missing from the
    /// hub (deleted by someone), by replica: their owners republish them.
    public var missing: [ReplicaID: [UInt64]] = [:]
    /// The signature the head was read with (``SignedObject/Signature/unsigned`` for one made
    /// here and not yet written).
    public private(set) var signature: SignedObject.Signature = .unsigned
    /// The signature members as read, written again when the head is (a cached copy keeps them).
    private var signatureMembers: [String: JSONValue]?

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

    /// The segments whose changes a later segment carries again (see ``Segment/republishes``).
    public var republished: Set<UInt64> { Set(segments.compactMap(\.republishes)) }

    /// The head as JSON, with its signature as read.
    public var jsonValue: JSONValue {
        var value = unsignedJSON
        for (name, member) in signatureMembers ?? [:] { value[name] = member }
        return value
    }

    /// The head as JSON without signature members: what its writer signs.
    public var unsignedJSON: JSONValue {
        var value: JSONValue = [
            "ferry-hub-head": .integer(Self.currentFormat), "replica": .string(replica.rawValue),
            "updated": .string(ISO8601Milliseconds.format(milliseconds: updated)), "records": .integer(Int64(recordCount)),
            "latest": .string(latestModification.description),
            "segments": .array(segments.map { segment in
                var origins: [String: JSONValue] = [:]
                for (origin, range) in segment.origins {
                    origins[origin.rawValue] = [.integer(Int64(range.first)), .integer(Int64(range.last)), .string(range.lastDigest.hex)]
                }
                var item: JSONValue = [
                    "n": .integer(Int64(segment.number)), "hash": .string(segment.hash.hex),
                    "bytes": .integer(segment.byteCount), "changes": .integer(Int64(segment.changeCount)),
                    "origins": .object(origins),
                ]
                if let republishes = segment.republishes { item["republishes"] = .integer(Int64(republishes)) }
                return item
            }),
            "read": .object(Dictionary(uniqueKeysWithValues: read.map { ($0.key.rawValue, JSONValue.integer(Int64($0.value))) })),
        ]
        if let name { value["name"] = .string(name) }
        if !names.isEmpty { value["names"] = ReplicaNameBook.json(names) }
        if !missing.isEmpty {
            value["missing"] = .object(Dictionary(uniqueKeysWithValues: missing.map { replica, numbers in
                (replica.rawValue, JSONValue.array(numbers.sorted().map { .integer(Int64($0)) }))
            }))
        }
        return value
    }

    /// The head signed with `key`, as it is written; ``signature`` is then that signature.
    package func signed(with key: ReplicaSigningKey) -> HubHead {
        var head = self
        let value = SignedObject.signed(unsignedJSON, domain: Self.signingDomain, with: key)
        if let signer = value["signer"], let sig = value["sig"] { head.signatureMembers = ["signer": signer, "sig": sig] }
        head.signature = .valid(key.publicKey)
        return head
    }

    /// The head without a signature (to be written by a replica that has no key).
    public var unsigned: HubHead {
        var head = self
        head.signatureMembers = nil
        head.signature = .unsigned
        return head
    }

    /// The head's bytes.
    public var bytes: [UInt8] { jsonValue.canonicalBytes() + [UInt8(ascii: "\n")] }

    /// Reads a head.
    /// - Parameters:
    ///   - expected: the replica its key names: a head claiming another is malformed.
    ///   - checkedSigner: the key whose signature on these very bytes was checked before (a
    ///     head kept in this store's hub cache): a head signed by it is taken as validly signed
    ///     without checking again (about 120 µs a head, on every sync).
    public init(bytes: [UInt8], key: String, expected: ReplicaID, location: String, checkedSigner: ReplicaPublicKey? = nil) throws(HubError) {
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
            var segment = Segment(number: UInt64(number), hash: hash, byteCount: byteCount, changeCount: Int(changeCount), origins: origins)
            if let republishes = item["republishes"]?.integerValue {
                guard republishes > 0, republishes < number else { throw bad("segment \(expectedNumber) republishes a segment that is not before it") }
                segment.republishes = UInt64(republishes)
            }
            segments.append(segment)
            expectedNumber += 1
        }
        names = ReplicaNameBook.names(in: value["names"])
        for (replicaText, countValue) in value["read"]?.objectValue ?? [:] {
            guard let other = ReplicaID(replicaText), let count = countValue.integerValue, count >= 0 else { throw bad("bad \"read\" entry") }
            read[other] = UInt64(count)
        }
        for (replicaText, numbersValue) in value["missing"]?.objectValue ?? [:] {
            guard let other = ReplicaID(replicaText), let numbers = numbersValue.arrayValue?.compactMap(\.integerValue), numbers.allSatisfy({ $0 > 0 })
            else { throw bad("bad \"missing\" entry") }
            missing[other] = numbers.map { UInt64($0) }
        }
        if let checkedSigner, value["sig"] != nil, value["signer"]?.stringValue == checkedSigner.hex {
            signature = .valid(checkedSigner)
        } else {
            signature = SignedObject.signature(of: value, domain: Self.signingDomain)
        }
        if let sig = value["sig"] { signatureMembers = ["signer": value["signer"] ?? .null, "sig": sig] }
    }
}
