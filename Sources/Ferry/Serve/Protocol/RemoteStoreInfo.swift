/// What `GET /v1/stores/<name>` answers: the store's identity and where its journal ends.
///
/// ```json
/// {"format":1,"head":{"hash":"9f…","hlc":"1700000000123.0","seq":42},"name":"alice",
///  "protocol":1,"replica":"6b1c…","store":"alice"}
/// ```
package struct RemoteStoreInfo: Sendable, Hashable {
    /// The protocol version the server speaks.
    package var protocolVersion: Int
    /// The store's name on the server.
    package var store: String
    /// The store's replica id, format, manifest name and head, as a sync peer.
    package var peer: PeerInfo

    /// Makes the info for a store.
    package init(protocolVersion: Int = RemoteProtocol.version, store: String, peer: PeerInfo) {
        self.protocolVersion = protocolVersion
        self.store = store
        self.peer = peer
    }

    /// The JSON object.
    package var jsonValue: JSONValue {
        [
            "protocol": .integer(Int64(protocolVersion)),
            "store": .string(store),
            "replica": .string(peer.replica.rawValue),
            "name": peer.name.map(JSONValue.string) ?? .null,
            "format": .integer(peer.format),
            "head": [
                "seq": .integer(Int64(peer.head.sequence)), "hash": .string(peer.head.hash.hex),
                "hlc": .string(peer.head.latestModification.description),
            ],
        ]
    }

    /// Reads the info from a response body.
    /// - Throws: ``RemoteMessageError`` naming the member at fault.
    package init(body: [UInt8]) throws(RemoteMessageError) {
        let members = try RemoteMessageError.object(body, what: "the store info")
        guard let version = members["protocol"]?.integerValue else {
            throw RemoteMessageError("protocol: must be an integer")
        }
        guard version == Int64(RemoteProtocol.version) else {
            // Reported before anything else: the rest of the shape may differ in that version.
            throw RemoteMessageError("protocol: the server speaks version \(version)")
        }
        guard let store = members["store"]?.stringValue else { throw RemoteMessageError("store: must be a string") }
        guard let replicaText = members["replica"]?.stringValue, let replica = ReplicaID(replicaText) else {
            throw RemoteMessageError("replica: must be a replica UUID")
        }
        let name: String?
        switch members["name"] {
        case .string(let text): name = text
        case .null, nil: name = nil
        default: throw RemoteMessageError("name: must be a string or null")
        }
        guard let format = members["format"]?.integerValue else { throw RemoteMessageError("format: must be an integer") }
        guard let head = members["head"]?.objectValue else { throw RemoteMessageError("head: must be an object") }
        guard let sequence = head["seq"]?.integerValue, sequence >= 0 else {
            throw RemoteMessageError("head.seq: must be a non-negative integer")
        }
        guard let hashText = head["hash"]?.stringValue, let hash = SHA256Digest(hex: hashText) else {
            throw RemoteMessageError("head.hash: must be 64 hex digits")
        }
        guard let hlcText = head["hlc"]?.stringValue, let latest = HybridTimestamp(hlcText) else {
            throw RemoteMessageError("head.hlc: must be <milliseconds>.<logical>")
        }
        self.init(
            protocolVersion: Int(version), store: store,
            peer: PeerInfo(
                replica: replica, name: name, format: format,
                head: StoreHead(sequence: UInt64(sequence), hash: hash, latestModification: latest)))
    }
}
