/// The public keys a store holds for replicas whose ids are not derived from their keys
/// (replicas made before changes were signed): `.ferry/keys.json`,
/// `{"ferry-keys":1,"keys":{"<replica>":"<64 hex digits>",…}}`.
///
/// Such a replica's key is learned from its first signed change this store receives, and held
/// from then on: every later change of that replica must carry a signature by the same key, and
/// one that does not is refused. (A replica whose id is derived from its key needs no entry:
/// its id names its key.)
public struct ReplicaKeyBook: Sendable, Hashable {
    /// The format this Ferry writes.
    static let currentFormat: Int64 = 1

    /// The key held for each replica.
    public private(set) var keys: [ReplicaID: ReplicaPublicKey]

    public init(keys: [ReplicaID: ReplicaPublicKey] = [:]) { self.keys = keys }

    /// The key held for `replica`, if any.
    public subscript(replica: ReplicaID) -> ReplicaPublicKey? { keys[replica] }

    /// Holds `key` for `replica` (its first signed change was just checked).
    public mutating func hold(_ key: ReplicaPublicKey, for replica: ReplicaID) { keys[replica] = key }

    /// The file's JSON.
    var jsonValue: JSONValue {
        var entries: [String: JSONValue] = [:]
        for (replica, key) in keys { entries[replica.rawValue] = .string(key.hex) }
        return ["ferry-keys": .integer(Self.currentFormat), "keys": .object(entries)]
    }

    /// Reads the file's bytes.
    init(bytes: [UInt8], path: String) throws(StoreError) {
        func bad(_ reason: String) -> StoreError { .signingKeyUnreadable(path: path, reason: reason) }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: .init(maximumDepth: 4, maximumByteCount: 64 << 20)) } catch {
            throw bad("not JSON: \(error)")
        }
        guard value["ferry-keys"]?.integerValue == Self.currentFormat, let entries = value["keys"]?.objectValue else {
            throw bad("not a Ferry key book (format \(Self.currentFormat))")
        }
        var keys: [ReplicaID: ReplicaPublicKey] = [:]
        for (text, keyValue) in entries {
            guard let replica = ReplicaID(text), let hex = keyValue.stringValue, let key = ReplicaPublicKey(hex: hex) else {
                throw bad("the entry for \(text) is not a replica id and a key")
            }
            keys[replica] = key
        }
        self.keys = keys
    }

    /// Reads the key book at `path`: empty when there is none.
    static func read(at path: String) throws(StoreError) -> ReplicaKeyBook {
        guard FileSystem.exists(path) else { return ReplicaKeyBook() }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path, limit: 64 << 20) } catch { throw .io(error) }
        return try ReplicaKeyBook(bytes: bytes, path: path)
    }

    /// Writes it durably at `path`.
    func write(to path: String) throws(StoreError) {
        do { try FileSystem.writeFileAtomically(path, jsonValue.prettyBytes(), durable: true) } catch { throw .io(error) }
    }
}
