/// The unwrapped keys of an encrypted hub: a random 32-byte data key per epoch (the newest
/// seals what is written; the older ones open what was written before a rotation), and how
/// objects are padded.
///
/// It travels sealed inside the hub's key entries (``HubKeyEntry``) and is kept by a store,
/// unwrapped, only in `.ferry/peers/<hub>/hub-keys.json` with mode 0600, written durably
/// before it is used: never in the hub, never in a log.
struct HubKeyring: Sendable, Equatable {
    static let cacheName = "hub-keys.json"

    /// The hub these keys belong to.
    var hub: ReplicaID
    /// The data key of each epoch.
    var keys: [UInt32: [UInt8]]
    /// The epoch new objects are sealed under.
    var current: UInt32
    var padding: HubPadding
    /// The key entry (`hub-keys/<n>.json`) these keys were read from or written as.
    var entry: Int = 0

    /// A new keyring of one random key (epoch 1).
    static func generate(hub: ReplicaID, padding: HubPadding) -> HubKeyring {
        HubKeyring(hub: hub, keys: [1: randomBytes(32)], current: 1, padding: padding)
    }

    /// This keyring with a new random key, the current one from now on.
    func rotated() -> HubKeyring {
        var next = self
        next.current = (keys.keys.max() ?? 0) + 1
        next.keys[next.current] = Self.randomBytes(32)
        return next
    }

    /// The key that makes objects' names opaque: from the first epoch's key, so that every
    /// epoch names an object alike.
    var nameKey: [UInt8] {
        let first = keys.keys.min().flatMap { keys[$0] } ?? []
        return HKDFSHA256.derive(secret: first, salt: [], info: Array("ferry hub object names".utf8))
    }

    var jsonValue: JSONValue {
        var object: [String: JSONValue] = [:]
        for (epoch, key) in keys { object[String(epoch)] = .string(HexText.string(key)) }
        return [
            "ferry-hub-keyring": 1, "hub": .string(hub.rawValue), "current": .integer(Int64(current)),
            "padding": .string(padding.rawValue), "keys": .object(object), "entry": .integer(Int64(entry)),
        ]
    }

    /// A keyring read back from ``jsonValue``; `nil` when it is not one.
    init?(_ value: JSONValue) {
        guard value["ferry-hub-keyring"]?.integerValue == 1, let hub = value["hub"]?.stringValue.flatMap({ ReplicaID($0) }),
            let current = value["current"]?.integerValue, let padding = value["padding"]?.stringValue.flatMap({ HubPadding(rawValue: $0) }),
            let object = value["keys"]?.objectValue
        else { return nil }
        var keys: [UInt32: [UInt8]] = [:]
        for (text, keyValue) in object {
            guard let epoch = UInt32(text), let key = keyValue.stringValue.flatMap({ HexText.bytes($0) }), key.count == 32 else { return nil }
            keys[epoch] = key
        }
        guard let epoch = UInt32(exactly: current), keys[epoch] != nil else { return nil }
        self.init(hub: hub, keys: keys, current: epoch, padding: padding, entry: Int(value["entry"]?.integerValue ?? 0))
    }

    init(hub: ReplicaID, keys: [UInt32: [UInt8]], current: UInt32, padding: HubPadding, entry: Int = 0) {
        self.hub = hub
        self.keys = keys
        self.current = current
        self.padding = padding
        self.entry = entry
    }

    /// The keyring a store keeps at `path`; `nil` when there is none.
    /// - Throws: ``HubError/locked(location:reason:)`` when it cannot be read, or others may read it.
    static func load(from path: String, location: String) throws(HubError) -> HubKeyring? {
        let permissions: UInt32?
        do { permissions = try FileSystem.permissions(of: path) } catch { throw .locked(location: location, reason: "\(path) cannot be read (\(error.message))") }
        guard let permissions else { return nil }
        guard permissions & 0o077 == 0 else {
            throw .locked(location: location, reason: "\(path) may be read by others (mode \(String(permissions & 0o777, radix: 8))); chmod 600 it")
        }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path, limit: 1 << 20) } catch { throw .locked(location: location, reason: "\(path) cannot be read (\(error.message))") }
        guard let value = try? JSONParser.parse(bytes), let keyring = HubKeyring(value) else {
            throw .locked(location: location, reason: "\(path) is not a hub keyring (delete it, and it is unwrapped again)")
        }
        return keyring
    }

    /// Writes the keyring at `path`, mode 0600, durably (before anything is sealed with it).
    func save(to path: String, location: String) throws(HubError) {
        do {
            _ = try FileSystem.createDirectories(FileSystem.parentPath(of: path))
            try FileSystem.writeFileAtomically(path, jsonValue.canonicalBytes(), durable: true, permissions: 0o600)
        } catch {
            throw .locked(location: location, reason: "the hub's keys could not be saved at \(path) (\(error.message)); nothing was written")
        }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
