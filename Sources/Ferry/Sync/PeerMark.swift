/// Where a peer stood at the end of an exchange, in the peer's own terms: a store's journal
/// position and the hash of its entry there (``StoreMark``), a hub's position in each of its
/// heads (`HubMark`), a backend's watermarks.
///
/// The engine keeps a mark in the checkpoint and compares two for equality ("nothing changed
/// at the peer since"); only the peer that made a mark reads inside it (``decode(_:)``), and
/// says whether it still holds (``SyncTransport/resume(from:)``). Each kind of peer defines its
/// own `Codable` mark; this wrapper keeps `any SyncTransport` an ordinary existential.
///
/// ```swift
/// let mark = PeerMark(StoreMark(position: 42, hash: head.hash))
/// let position = mark.decode(StoreMark.self)?.position
/// ```
public struct PeerMark: Sendable, Hashable, CustomStringConvertible {
    /// The mark as JSON, as the checkpoint file keeps it.
    public let json: JSONValue

    /// A peer's mark. A mark that cannot be written as JSON (a non-finite number) is kept as
    /// `null`, which no peer reads as its own: the next exchange starts from the beginning.
    public init<Mark: Encodable>(_ mark: Mark) {
        // A store's mark, made on every sync, is written directly (Foundation's encoder costs
        // more than the rest of a no-op sync's reading of the checkpoint); the same JSON.
        if let direct = mark as? any DirectPeerMark, let json = direct.json {
            self.json = json
            return
        }
        self.json = (try? JSONValue(encoding: mark)) ?? .null
    }

    /// A mark read back from a checkpoint file.
    public init(json: JSONValue) {
        self.json = json
    }

    /// The peer's own mark; `nil` when this mark is another kind's (or damaged).
    public func decode<Mark: Decodable>(_ type: Mark.Type) -> Mark? {
        if let direct = type as? any DirectPeerMark.Type { return direct.init(json: json) as? Mark }
        return try? json.decode(type)
    }

    public var description: String { json.canonicalText }
}

/// A store's mark: a position in its journal and the hash of the entry there, so a journal
/// that was re-created or restored from a backup does not pass for the one the mark was made in.
public struct StoreMark: Sendable, Hashable, Codable {
    /// The journal position (0 before the first entry).
    public var position: UInt64
    /// The hash of the entry at `position` (zeros at 0).
    public var hash: SHA256Digest

    public init(position: UInt64, hash: SHA256Digest) {
        self.position = position
        self.hash = hash
    }

    /// The mark of a store's head.
    public init(_ head: StoreHead) {
        self.init(position: head.sequence, hash: head.hash)
    }

    enum CodingKeys: String, CodingKey {
        case position, hash
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .hash)
        guard let hash = SHA256Digest(hex: text) else {
            throw DecodingError.dataCorruptedError(forKey: .hash, in: container, debugDescription: "must be 64 hex digits")
        }
        self.init(position: try container.decode(UInt64.self, forKey: .position), hash: hash)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(position, forKey: .position)
        try container.encode(hash.hex, forKey: .hash)
    }
}

/// A mark that writes and reads its JSON directly, as its `Codable` form does, without
/// Foundation's coders (a mark is made and read on every sync).
protocol DirectPeerMark {
    /// The JSON the `Codable` form writes; `nil` to leave it to the encoder.
    var json: JSONValue? { get }
    /// A mark read as the `Codable` form reads it; `nil` for another kind's.
    init?(json: JSONValue)
}

extension StoreMark: DirectPeerMark {
    /// `nil` for a position past `Int64.max`, which only the encoder writes.
    var json: JSONValue? {
        guard position <= UInt64(Int64.max) else { return nil }
        return .object(["position": .integer(Int64(position)), "hash": .string(hash.hex)])
    }

    /// A mark read as its `Codable` form reads it, without Foundation's decoder.
    init?(json: JSONValue) {
        guard case .object(let members) = json, case .string(let text)? = members["hash"],
            let hash = SHA256Digest(hex: text)
        else { return nil }
        switch members["position"] {
        case .integer(let position)? where position >= 0: self.init(position: UInt64(position), hash: hash)
        case .double(let position)? where position >= 0 && position < 0x1p64 && position.rounded() == position:
            self.init(position: UInt64(position), hash: hash)
        default: return nil
        }
    }

    /// Where a store whose journal ends at `head` reads on from `mark`: the mark's position,
    /// when `mark` is a store's and the store's entry there still has the mark's hash; `nil`
    /// past the head (a journal restored from an older backup, or truncated) or for another
    /// hash (a journal re-created).
    /// - Parameter entryHash: the hash of the store's entry at a position before its head.
    public static func resume(
        from mark: PeerMark, head: StoreHead, entryHash: (UInt64) async throws(SyncError) -> SHA256Digest?
    ) async throws(SyncError) -> UInt64? {
        guard let own = mark.decode(StoreMark.self), own.position <= head.sequence else { return nil }
        let hash = own.position == head.sequence ? head.hash : try await entryHash(own.position)
        return hash == own.hash ? own.position : nil
    }
}
