/// The object that makes a location a hub: `hub.json`, written once by `ferry hub init` and
/// never changed. Its id is the hub's replica id as stores see it (checkpoints, logs).
public struct HubDescriptor: Sendable, Hashable {
    /// The hub format this Ferry writes and reads.
    public static let currentFormat: Int64 = 1
    /// The format of an encrypted hub (``SealedHubStorage``): a Ferry that reads only format 1
    /// refuses it in one line rather than misreading sealed objects or writing plain ones into it.
    public static let encryptedFormat: Int64 = 2
    /// The descriptor's key.
    public static let key = "hub.json"
    /// The most bytes a hub's description may hold; a larger one is not read.
    public static let maximumByteCount = 1 << 16

    /// The hub's identity.
    public var id: ReplicaID
    /// The hub's format number.
    public var format: Int64
    /// When it was created, milliseconds since 1970.
    public var created: UInt64
    /// Whether any replica that can write to the hub's location may write to the hub
    /// (`ferry hub init --open`): no replica founds a members list on its first write. By
    /// default the first replica to write records itself as the first member (see
    /// ``HubMembers``), and a member admits the others. A members list, once it exists, is in
    /// force either way.
    public var isOpenToAnyWriter: Bool
    /// The id the hub's members list and key entries are bound to: the id it was created
    /// with, kept when `ferry hub reidentify` gives a copy an id of its own, so the copy's
    /// members and keys (signed entries that cannot be signed again) still hold.
    public var membersHub: ReplicaID

    public init(
        id: ReplicaID = .generate(), format: Int64 = HubDescriptor.currentFormat, created: UInt64, isOpenToAnyWriter: Bool = false,
        membersHub: ReplicaID? = nil
    ) {
        self.id = id
        self.membersHub = membersHub ?? id
        self.format = format
        self.created = created
        self.isOpenToAnyWriter = isOpenToAnyWriter
    }

    /// Whether the hub's objects are sealed (see docs/FORMAT.md, "Encrypted hubs").
    public var isEncrypted: Bool { format == Self.encryptedFormat }

    /// The descriptor's bytes (pretty, so a user who opens it sees what it is).
    public var bytes: [UInt8] {
        var value: JSONValue = [
            "ferry-hub": .integer(format), "id": .string(id.rawValue),
            "created": .string(ISO8601Milliseconds.format(milliseconds: created)),
            "about": "A Ferry hub: replicas sync through the objects under heads/, segments/ and snapshots/. See docs/FORMAT.md.",
        ]
        if isOpenToAnyWriter {
            value["writers"] = "anyone"
        }
        if membersHub != id {
            value["membersOf"] = .string(membersHub.rawValue)
        }
        if isEncrypted {
            value["encryption"] = [
                "cipher": "xchacha20-poly1305", "keys": .string(HubKeyEntry.prefix),
                "about": "Every object but this one, hub-members/ and hub-keys/ is sealed; the data keys are wrapped for each member, the passphrase and the recovery key in hub-keys/.",
            ]
        }
        return value.prettyBytes() + [UInt8(ascii: "\n")]
    }

    /// Reads a descriptor.
    /// - Throws: ``HubError/unsupportedFormat(location:found:)`` for a newer format,
    ///   ``HubError/malformed(location:key:reason:)`` for anything that is not a descriptor.
    public init(bytes: [UInt8], location: String) throws(HubError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: .init(maximumDepth: 8, maximumByteCount: Self.maximumByteCount)) } catch {
            throw .malformed(location: location, key: Self.key, reason: error.description)
        }
        guard let format = value["ferry-hub"]?.integerValue else {
            throw .malformed(location: location, key: Self.key, reason: "no \"ferry-hub\" format number")
        }
        guard format == Self.currentFormat || format == Self.encryptedFormat else { throw .unsupportedFormat(location: location, found: format) }
        guard let idText = value["id"]?.stringValue, let id = ReplicaID(idText) else {
            throw .malformed(location: location, key: Self.key, reason: "no valid \"id\"")
        }
        let created = value["created"]?.stringValue.flatMap { ISO8601Milliseconds.parse($0) } ?? 0
        let membersHub = value["membersOf"]?.stringValue.flatMap { ReplicaID($0) }
        self.init(
            id: id, format: format, created: UInt64(max(0, created)), isOpenToAnyWriter: value["writers"]?.stringValue == "anyone", membersHub: membersHub)
    }
}
