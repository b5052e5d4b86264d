/// A snapshot of a hub's state, written by `ferry hub compact`: every record's current versions
/// (live and deleted) as of a frontier, so a new replica joins at the cost of the state and
/// segments the snapshot covers can be collected.
///
/// Two kinds of immutable object, both written create-only and never rewritten:
/// - parts, `snapshots/<id>/<4-digit n>-<sha256>.part`: a header line
///   `{"changes":k,"ferry-hub-snapshot-part":1,"n":n}`, then one version per line in the
///   journal's canonical JSON with its digest and parent (the change that made it), sorted by
///   record; at most ``partChangeLimit`` versions each, so a reader holds one part at a time;
/// - the manifest, `hub-snapshots/<id>.json`, written last: the hub it belongs to, how many
///   segments of each replica it covers, the frontier (each origin's counter and the digest of
///   that change), counts, and each part's number, hash and size. Its id is the SHA-256 of its
///   bytes, which hold no time, so two compactions of the same segments write the same object.
///
/// The manifest is the compacting replica's signed statement of the state (see
/// ``SignedObject``, domain ``signatureDomain``): `"state"`, the ``stateDigest(of:)`` of its
/// versions, `"signer"` and `"sig"`. A replica joins only from a snapshot whose versions give
/// that digest, signed by a key it trusts; one written before snapshots were signed joins with
/// a note that its state cannot be proven.
///
/// Manifest keys start with `h`, so the one listing a sync makes of heads shows them too.
public struct HubSnapshot: Sendable, Equatable {
    /// The snapshot format.
    public static let format: Int64 = 1
    /// Versions per part.
    public static let partChangeLimit = 10_000
    /// The most bytes a snapshot's manifest may hold; a larger one is not read.
    public static let maximumManifestByteCount = 64 << 20
    /// The most bytes a snapshot's part may hold (as a segment); a larger one is not read.
    public static let maximumPartByteCount = HubSegment.maximumByteCount
    /// The prefix of manifests.
    public static let manifestPrefix = "hub-snapshots/"

    /// One part: its number (from 1), hash, size and number of versions.
    public struct Part: Sendable, Hashable {
        public var number: Int
        public var hash: SHA256Digest
        public var byteCount: Int64
        public var changeCount: Int
    }

    /// The hub it belongs to.
    public var hub: ReplicaID
    /// For each replica, how many of its segments (the first ones) the snapshot covers.
    public var covers: [ReplicaID: UInt64]
    /// Each origin's latest change the snapshot reflects, and that change's digest.
    public var frontier: ReplicaFrontier
    /// Records (live and deleted), live records, and versions.
    public var recordCount: Int
    public var liveCount: Int
    public var changeCount: Int
    public var parts: [Part]
    /// The digest of every version the parts hold, in their order (``stateDigest(of:)``);
    /// `nil` in a snapshot written before snapshots were signed.
    public var stateDigest: SHA256Digest?
    /// The signing key and the signature (``SignedObject``), when the manifest is signed.
    private var signerText: String?
    private var signatureText: String?

    /// The key that signed the manifest, when it names one (whether the signature checks is
    /// ``signatureVerdict``).
    public var signer: ReplicaPublicKey? { signerText.flatMap { ReplicaPublicKey(hex: $0) } }

    /// What signatures of manifests are made over: `ferry-hub-snapshot-v1:` and the manifest.
    public static let signatureDomain = "ferry-hub-snapshot-v1:"

    /// What the manifest's signature says: unsigned, signed by a key, or not a valid signature.
    public var signatureVerdict: SignedObject.Verdict {
        SignedObject.verdict(on: manifestJSON.objectValue ?? [:], domain: Self.signatureDomain)
    }

    /// The snapshot with its manifest signed by `key` (its id changes with the signature).
    package func signed(with key: ReplicaSigningKey) -> HubSnapshot {
        var copy = self
        copy.signerText = nil
        copy.signatureText = nil
        let members = SignedObject.signing(copy.manifestJSON.objectValue ?? [:], domain: Self.signatureDomain, with: key)
        copy.signerText = key.publicKey.hex
        copy.signatureText = members["sig"]?.stringValue
        return copy
    }

    /// The state digest of versions in snapshot order: SHA-256 of their change digests, one
    /// after another (32 bytes each). A change's digest covers its record, origin, counter,
    /// stamp, content and parent, so the list of digests names the state exactly.
    public static func stateDigest(of changes: some Sequence<Change>) -> SHA256Digest {
        var hasher = SHA256()
        for change in changes { hasher.update(change.digest.bytes) }
        return hasher.finalize()
    }

    /// The id: SHA-256 of the manifest's bytes.
    public var id: SHA256Digest { SHA256.hash(manifestBytes) }

    /// `hub-snapshots/<id>.json`.
    public static func manifestKey(_ id: SHA256Digest) -> String { manifestPrefix + id.hex + ".json" }

    /// `snapshots/<id>/<n>-<hash>.part`.
    public static func partKey(snapshot id: SHA256Digest, part: Part) -> String {
        let digits = String(part.number)
        return "snapshots/\(id.hex)/\(String(repeating: "0", count: max(0, 4 - digits.count)))\(digits)-\(part.hash.hex).part"
    }

    /// The snapshot id a manifest key names, `nil` for any other key.
    public static func id(ofManifestKey key: String) -> SHA256Digest? {
        guard key.hasPrefix(manifestPrefix), key.hasSuffix(".json") else { return nil }
        let hex = key.dropFirst(manifestPrefix.count).dropLast(".json".count)
        guard hex.count == 64, let id = SHA256Digest(hex: String(hex)), key == manifestKey(id) else { return nil }
        return id
    }

    /// How many segments it covers, all replicas together (the newer of two snapshots covers more).
    public var coveredSegments: UInt64 { covers.values.reduce(0, +) }

    /// Whether it covers at least what `other` covers, for every replica.
    public func covers(atLeast other: HubSnapshot) -> Bool {
        other.covers.allSatisfy { covers[$0.key, default: 0] >= $0.value }
    }

    // MARK: Manifest

    public var manifestJSON: JSONValue {
        var frontierMembers: [String: JSONValue] = [:]
        for (origin, counter) in frontier.knowledge.sortedCounters {
            frontierMembers[origin.rawValue] = [.integer(Int64(counter)), .string((frontier.digests[origin] ?? .zero).hex)]
        }
        var members: [String: JSONValue] = [
            "ferry-hub-snapshot": .integer(Self.format), "hub": .string(hub.rawValue),
            "covers": .object(Dictionary(uniqueKeysWithValues: covers.filter { $0.value > 0 }.map { ($0.key.rawValue, JSONValue.integer(Int64($0.value))) })),
            "frontier": .object(frontierMembers), "records": .integer(Int64(recordCount)), "live": .integer(Int64(liveCount)),
            "changes": .integer(Int64(changeCount)),
            "parts": .array(parts.map { part in
                [
                    "n": .integer(Int64(part.number)), "hash": .string(part.hash.hex), "bytes": .integer(part.byteCount),
                    "changes": .integer(Int64(part.changeCount)),
                ]
            }),
        ]
        if let stateDigest { members["state"] = .string(stateDigest.hex) }
        if let signerText { members["signer"] = .string(signerText) }
        if let signatureText { members["sig"] = .string(signatureText) }
        return .object(members)
    }

    public var manifestBytes: [UInt8] { manifestJSON.canonicalBytes() + [UInt8(ascii: "\n")] }

    init(
        hub: ReplicaID, covers: [ReplicaID: UInt64], frontier: ReplicaFrontier, recordCount: Int, liveCount: Int, changeCount: Int, parts: [Part],
        stateDigest: SHA256Digest? = nil
    ) {
        self.stateDigest = stateDigest
        self.hub = hub
        self.covers = covers
        self.frontier = frontier
        self.recordCount = recordCount
        self.liveCount = liveCount
        self.changeCount = changeCount
        self.parts = parts
    }

    /// Reads a manifest, checking that its bytes are the id its key names.
    public init(manifest bytes: [UInt8], id: SHA256Digest, location: String) throws(HubError) {
        let key = Self.manifestKey(id)
        func bad(_ reason: String) -> HubError { .malformed(location: location, key: key, reason: reason) }
        guard SHA256.hash(bytes) == id else { throw bad("its content does not match its name (incomplete or altered)") }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: .init(maximumDepth: 8, maximumByteCount: Self.maximumManifestByteCount)) } catch {
            throw bad(error.description)
        }
        guard let format = value["ferry-hub-snapshot"]?.integerValue else { throw bad("no \"ferry-hub-snapshot\" format number") }
        guard format == Self.format else { throw .unsupportedFormat(location: location, found: format) }
        guard let hubText = value["hub"]?.stringValue, let hub = ReplicaID(hubText) else { throw bad("no hub id") }
        var covers: [ReplicaID: UInt64] = [:]
        for (text, item) in value["covers"]?.objectValue ?? [:] {
            guard let replica = ReplicaID(text), let count = item.integerValue, count > 0 else { throw bad("a bad \"covers\" entry") }
            covers[replica] = UInt64(count)
        }
        var counters: [ReplicaID: UInt64] = [:]
        var digests: [ReplicaID: SHA256Digest] = [:]
        for (text, item) in value["frontier"]?.objectValue ?? [:] {
            guard let origin = ReplicaID(text), let pair = item.arrayValue, pair.count == 2, let counter = pair[0].integerValue, counter > 0,
                let hex = pair[1].stringValue, let digest = SHA256Digest(hex: hex)
            else { throw bad("a bad \"frontier\" entry") }
            counters[origin] = UInt64(counter)
            digests[origin] = digest
        }
        guard let records = value["records"]?.integerValue, records >= 0, let live = value["live"]?.integerValue, live >= 0,
            let changes = value["changes"]?.integerValue, changes >= 0, let partValues = value["parts"]?.arrayValue
        else { throw bad("its counts or parts are missing") }
        var parts: [Part] = []
        for (index, item) in partValues.enumerated() {
            guard item["n"]?.integerValue == Int64(index + 1), let hex = item["hash"]?.stringValue, let hash = SHA256Digest(hex: hex),
                let byteCount = item["bytes"]?.integerValue, byteCount > 0, let count = item["changes"]?.integerValue, count >= 0
            else { throw bad("part \(index + 1) is not described correctly") }
            parts.append(Part(number: index + 1, hash: hash, byteCount: byteCount, changeCount: Int(count)))
        }
        guard parts.reduce(0, { $0 + $1.changeCount }) == Int(changes) else { throw bad("its parts do not add up to its changes") }
        var stateDigest: SHA256Digest?
        if let item = value["state"] {
            guard let hex = item.stringValue, let digest = SHA256Digest(hex: hex) else { throw bad("its \"state\" is not a digest") }
            stateDigest = digest
        }
        self.init(
            hub: hub, covers: covers, frontier: ReplicaFrontier(knowledge: VersionVector(counters), digests: digests),
            recordCount: Int(records), liveCount: Int(live), changeCount: Int(changes), parts: parts, stateDigest: stateDigest)
        // Kept as written, so the manifest's bytes (its id) stay the same; checked by whoever joins.
        if value["signer"] != nil || value["sig"] != nil {
            guard let signer = value["signer"]?.stringValue, let signature = value["sig"]?.stringValue else {
                throw bad("its \"signer\" and \"sig\" are not text")
            }
            signerText = signer
            signatureText = signature
        }
    }

    // MARK: Parts

    /// The number of parts `count` versions make.
    static func partCount(of count: Int, limit: Int = partChangeLimit) -> Int { (count + limit - 1) / limit }

    /// Encodes part `number` (from 1) of record versions already in snapshot order.
    static func encodePart(_ number: Int, of changes: [Change], limit: Int = partChangeLimit) -> (part: Part, bytes: [UInt8]) {
        let slice = changes[(number - 1) * limit..<min(number * limit, changes.count)]
        let header: JSONValue = [
            "ferry-hub-snapshot-part": .integer(format), "n": .integer(Int64(number)), "changes": .integer(Int64(slice.count)),
        ]
        var bytes = header.canonicalBytes()
        bytes.append(UInt8(ascii: "\n"))
        for change in slice {
            change.writeCanonicalJSON(to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        return (Part(number: number, hash: SHA256.hash(bytes), byteCount: Int64(bytes.count), changeCount: slice.count), bytes)
    }

    /// Decodes a part, checking it against the manifest's description.
    public static func decodePart(_ bytes: [UInt8], expected part: Part, key: String, location: String) throws(HubError) -> [Change] {
        try HubChangeLines.decode(bytes, hash: part.hash, count: part.changeCount, key: key, location: location) { header throws(HubError) in
            guard header["ferry-hub-snapshot-part"]?.integerValue == format, header["n"]?.integerValue == Int64(part.number),
                header["changes"]?.integerValue == Int64(part.changeCount)
            else { throw .malformed(location: location, key: key, reason: "its header does not match its manifest") }
        }
    }
}
