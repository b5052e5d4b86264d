/// What one store last exchanged with one peer: the journal positions on both sides (with the
/// hash of the entry at each, so a re-created or restored journal is detected), and when.
///
/// Stored as `.ferry/peers/<peer replica id>/checkpoint.json` (see ``PeerMemory``), written only
/// after everything it covers is durable, so a sync killed at any point can simply run again.
public struct SyncCheckpoint: Sendable, Hashable {
    /// The peer's replica id.
    public var peer: ReplicaID
    /// The peer's journal position this store has received everything through.
    public var peerPosition: UInt64
    /// The hash of the peer's entry at `peerPosition` (zeros at 0).
    public var peerHash: SHA256Digest
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
        peer: ReplicaID, peerPosition: UInt64, peerHash: SHA256Digest, localPosition: UInt64,
        localHash: SHA256Digest, time: UInt64, peerName: String? = nil
    ) {
        self.peer = peer
        self.peerPosition = peerPosition
        self.peerHash = peerHash
        self.localPosition = localPosition
        self.localHash = localHash
        self.time = time
        self.peerName = peerName
    }

    /// The same exchange seen from the peer's side.
    /// - Parameter localName: this store's short name, which becomes the peer name there.
    public func reversed(localReplica: ReplicaID, localName: String? = nil) -> SyncCheckpoint {
        SyncCheckpoint(
            peer: localReplica, peerPosition: localPosition, peerHash: localHash, localPosition: peerPosition,
            localHash: peerHash, time: time, peerName: localName)
    }

    /// The JSON form of the checkpoint file.
    public var jsonValue: JSONValue {
        var value: JSONValue = [
            "peer": .string(peer.rawValue), "peerPosition": .integer(Int64(peerPosition)),
            "peerHash": .string(peerHash.hex), "localPosition": .integer(Int64(localPosition)),
            "localHash": .string(localHash.hex), "time": .string(ISO8601Milliseconds.format(milliseconds: time)),
        ]
        if let peerName { value["peerName"] = .string(peerName) }
        return value
    }

    /// Reads a checkpoint file; `nil` when malformed (the peer is then treated as never met).
    public init?(json: JSONValue) {
        guard let peerText = json["peer"]?.stringValue, let peer = ReplicaID(peerText),
            let peerPosition = json["peerPosition"]?.integerValue, peerPosition >= 0,
            let peerHashText = json["peerHash"]?.stringValue, let peerHash = SHA256Digest(hex: peerHashText),
            let localPosition = json["localPosition"]?.integerValue, localPosition >= 0,
            let localHashText = json["localHash"]?.stringValue, let localHash = SHA256Digest(hex: localHashText),
            let timeText = json["time"]?.stringValue, let time = ISO8601Milliseconds.parse(timeText), time >= 0
        else { return nil }
        self.init(
            peer: peer, peerPosition: UInt64(peerPosition), peerHash: peerHash, localPosition: UInt64(localPosition),
            localHash: localHash, time: UInt64(time), peerName: json["peerName"]?.stringValue)
    }
}
