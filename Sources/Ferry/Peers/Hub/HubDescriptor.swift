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

    public init(id: ReplicaID = .generate(), format: Int64 = HubDescriptor.currentFormat, created: UInt64) {
        self.id = id
        self.format = format
        self.created = created
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
        self.init(id: id, format: format, created: UInt64(max(0, created)))
    }
}
