/// What one store last exchanged with one peer: the peer's mark (where it stood, in its own
/// terms: a store's journal position and hash, a hub's frontier), this store's journal position
/// with the hash of its entry there (so a re-created or restored journal is detected), and when.
///
/// Stored as `.ferry/peers/<peer replica id>/checkpoint.json` (see ``PeerMemory``), written only
/// after everything it covers is durable, so a sync killed at any point can simply run again.
public struct SyncCheckpoint: Sendable, Hashable {
    /// The peer's replica id.
    public var peer: ReplicaID
    /// Where the peer stood when this store had received everything it held; `nil` when this
    /// store never read the peer (a push-only exchange).
    public var peerMark: PeerMark?
    /// This store's journal position the peer has received everything through.
    public var localPosition: UInt64
    /// The hash of this store's entry at `localPosition`.
    public var localHash: SHA256Digest
    /// When the exchange finished, milliseconds since 1970.
    public var time: UInt64
    /// The peer's short name (`laptop`) when it has one, so `ferry log` can show it.
    /// Optional in the file: checkpoints written before it existed have none.
    public var peerName: String?

    public init(
        peer: ReplicaID, peerMark: PeerMark?, localPosition: UInt64, localHash: SHA256Digest, time: UInt64, peerName: String? = nil
    ) {
        self.peer = peer
        self.peerMark = peerMark
        self.localPosition = localPosition
        self.localHash = localHash
        self.time = time
        self.peerName = peerName
    }

    /// The peer's journal position and hash, when the peer is a store.
    public var peerStoreMark: StoreMark? { peerMark?.decode(StoreMark.self) }

    /// The JSON form of the checkpoint file. A store peer's mark is also written as
    /// `peerPosition` and `peerHash`, the fields of the checkpoint files and of the `ferry serve`
    /// protocol before marks.
    public var jsonValue: JSONValue {
        var value: JSONValue = [
            "peer": .string(peer.rawValue), "localPosition": .integer(Int64(localPosition)),
            "localHash": .string(localHash.hex), "time": .string(ISO8601Milliseconds.format(milliseconds: time)),
        ]
        value["peerMark"] = peerMark?.json ?? .null
        let storeMark = peerStoreMark ?? StoreMark(position: 0, hash: .zero)
        value["peerPosition"] = .integer(Int64(storeMark.position))
        value["peerHash"] = .string(storeMark.hash.hex)
        if let peerName { value["peerName"] = .string(peerName) }
        return value
    }

    /// Reads a checkpoint file; `nil` when malformed (the peer is then treated as never met).
    /// A file without `peerMark` (written before marks) has the store mark of its
    /// `peerPosition` and `peerHash`.
    public init?(json: JSONValue) {
        guard let peerText = json["peer"]?.stringValue, let peer = ReplicaID(peerText),
            let localPosition = json["localPosition"]?.integerValue, localPosition >= 0,
            let localHashText = json["localHash"]?.stringValue, let localHash = SHA256Digest(hex: localHashText),
            let timeText = json["time"]?.stringValue, let time = ISO8601Milliseconds.parse(timeText), time >= 0
        else { return nil }
        let mark: PeerMark?
        if let json = json["peerMark"] {
            mark = json == .null ? nil : PeerMark(json: json)
        } else {
            guard let position = json["peerPosition"]?.integerValue, position >= 0,
                let hashText = json["peerHash"]?.stringValue, let hash = SHA256Digest(hex: hashText)
            else { return nil }
            mark = PeerMark(StoreMark(position: UInt64(position), hash: hash))
        }
        self.init(
            peer: peer, peerMark: mark, localPosition: UInt64(localPosition), localHash: localHash, time: UInt64(time),
            peerName: json["peerName"]?.stringValue)
    }
}
