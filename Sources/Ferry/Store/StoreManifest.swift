/// `ferry.json`: what makes a directory a Ferry store.
///
/// ```json
/// {"format": 1, "replica": "5b2c…", "name": "laptop", "created": "2026-11-21T20:00:00.000Z"}
/// ```
public struct StoreManifest: Sendable, Equatable {
    /// The on-disk format this build reads and writes.
    public static let currentFormat: Int64 = 1

    /// The store's format version.
    public var format: Int64
    /// This replica's identity, made once by `init`.
    public var replica: ReplicaID
    /// A short human name for the replica (`laptop`), shown by `log`.
    public var name: String?
    /// When the store was created, ISO 8601.
    public var created: String

    public init(format: Int64 = StoreManifest.currentFormat, replica: ReplicaID, name: String?, created: String) {
        self.format = format
        self.replica = replica
        self.name = name
        self.created = created
    }

    /// The manifest as JSON.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "format": .integer(format), "replica": .string(replica.rawValue), "created": .string(created),
        ]
        if let name { members["name"] = .string(name) }
        return .object(members)
    }

    /// Reads a manifest; the error text says which field is wrong.
    public init(json: JSONValue) throws(StoreManifestProblem) {
        guard case .object(let fields) = json else { throw StoreManifestProblem("it is not a JSON object") }
        guard let format = fields["format"]?.integerValue else {
            throw StoreManifestProblem("\"format\" is missing or not an integer")
        }
        guard let text = fields["replica"]?.stringValue, let replica = ReplicaID(text) else {
            throw StoreManifestProblem("\"replica\" is missing or not a UUID")
        }
        self.format = format
        self.replica = replica
        name = fields["name"]?.stringValue
        created = fields["created"]?.stringValue ?? ""
    }
}

/// Why a manifest could not be read.
public struct StoreManifestProblem: Error, Sendable {
    public let reason: String
    init(_ reason: String) { self.reason = reason }
}
