/// What `GET /v1/stores/<name>` answers: the store's identity and where its journal ends.
///
/// ```json
/// {"format":1,"head":{"hash":"9f…","hlc":"1700000000123.0","seq":42},"name":"alice",
///  "names":{"f3a3…":"phone"},"protocol":1,"replica":"6b1c…","store":"alice"}
/// ```
package struct RemoteStoreInfo: Sendable, Hashable {
    /// The protocol version the server speaks.
    package var protocolVersion: Int
    /// The store's name on the server.
    package var store: String
    /// The store's replica id.
    package var replica: ReplicaID
    /// The store's name in its manifest.
    package var name: String?
    /// The store's format.
    package var format: Int64
    /// Where the store's journal ends.
    package var head: StoreHead
    /// The names of other replicas the store heard of (`names`; absent from older servers).
    package var names: [ReplicaID: String] = [:]

    /// Makes the info for a store.
    package init(protocolVersion: Int = RemoteProtocol.version, store: String, replica: ReplicaID, name: String?, format: Int64, head: StoreHead) {
        self.protocolVersion = protocolVersion
        self.store = store
        self.replica = replica
        self.name = name
        self.format = format
        self.head = head
    }

    /// The store as a sync peer.
    package var peer: PeerInfo { PeerInfo(replica: replica, name: name, format: format, head: head, names: names) }

    /// The JSON object.
    package var jsonValue: JSONValue {
        var value: JSONValue = [
            "protocol": .integer(Int64(protocolVersion)),
            "store": .string(store),
            "replica": .string(replica.rawValue),
            "name": name.map(JSONValue.string) ?? .null,
            "format": .integer(format),
            "head": [
                "seq": .integer(Int64(head.sequence)), "hash": .string(head.hash.hex),
                "hlc": .string(head.latestModification.description),
            ],
        ]
        if !names.isEmpty { value["names"] = ReplicaNameBook.json(names) }
        return value
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
            protocolVersion: Int(version), store: store, replica: replica, name: name, format: format,
            head: StoreHead(sequence: UInt64(sequence), hash: hash, latestModification: latest))
        names = ReplicaNameBook.names(in: members["names"])
    }
}
