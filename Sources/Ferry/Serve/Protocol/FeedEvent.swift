/// One event of a served store's change feed (`GET /v1/stores/<name>/feed`, server-sent
/// events; see `docs/PROTOCOL.md`): the journal grew past a position, or the subscriber must
/// pull because the feed cannot say exactly what it missed.
///
/// ```
/// event: changes
/// id: 42-3fa9c2d1e0b4a7f6
/// data: {"after":40,"count":2,"hash":"3fa9c2d1…","seq":42}
/// ```
///
/// Events cover journal positions: a `changes` event covers `after + 1 … seq`, and the next
/// event starts where it ended, so the events a subscriber receives, across reconnections with
/// `Last-Event-ID`, cover every position once. A `pull` covers `after + 1 … seq` too, as one
/// block the subscriber did not hear of event by event.
package struct FeedEvent: Sendable, Equatable {
    /// What an event says.
    package enum Kind: String, Sendable {
        /// The journal grew.
        case changes
        /// Pull now: the subscriber fell behind (``Reason/behind``) or named a position this
        /// store does not hold (``Reason/unknownPosition``); the server closes the feed after a
        /// `behind` pull.
        case pull
    }

    /// Why a `pull` was sent.
    package enum Reason: String, Sendable {
        /// The subscriber read too slowly: the events it had not read were dropped.
        case behind
        /// `Last-Event-ID` or `?after=` named a position this store's journal does not hold
        /// (another store, or one restored from an older copy).
        case unknownPosition = "unknown-position"
    }

    package var kind: Kind
    /// The position the event starts after (the previous event's `seq`).
    package var after: UInt64
    /// The journal's position when the event was made: its head.
    package var position: FeedPosition
    /// Why a `pull` was sent; `nil` for `changes`.
    package var reason: Reason?

    package init(kind: Kind = .changes, after: UInt64, position: FeedPosition, reason: Reason? = nil) {
        self.kind = kind
        self.after = after
        self.position = position
        self.reason = reason
    }

    /// How many journal positions it covers.
    package var count: UInt64 { position.sequence > after ? position.sequence - after : 0 }

    /// The event as it goes on the wire, ending with the blank line that dispatches it.
    package var frame: [UInt8] {
        var data: [String: JSONValue] = [
            "after": .integer(Int64(clamping: after)), "seq": .integer(Int64(clamping: position.sequence)),
            "hash": .string(position.hash.hex), "count": .integer(Int64(clamping: count)),
        ]
        if let reason { data["reason"] = .string(reason.rawValue) }
        return Array("event: \(kind.rawValue)\nid: \(position.eventID)\ndata: ".utf8)
            + JSONValue.object(data).canonicalBytes() + Array("\n\n".utf8)
    }

    /// Reads an event the client received; `nil` for another kind of event or a malformed one.
    package init?(event: String, data: String) {
        guard let kind = Kind(rawValue: event), let value = try? JSONParser.parse(Array(data.utf8)),
            let after = value["after"]?.integerValue, after >= 0, let sequence = value["seq"]?.integerValue, sequence >= 0,
            let hashText = value["hash"]?.stringValue, let hash = SHA256Digest(hex: hashText)
        else { return nil }
        self.kind = kind
        self.after = UInt64(after)
        self.position = FeedPosition(sequence: UInt64(sequence), hash: hash)
        self.reason = value["reason"]?.stringValue.flatMap(Reason.init(rawValue:))
    }

    /// A comment that keeps the connection alive through proxies; clients ignore it.
    package static let keepalive = Array(": keepalive\n\n".utf8)
}

/// A journal position as a feed names it: the sequence and the hash of the entry there, so a
/// position of another store (or of an older copy of this one) is told apart.
///
/// ```swift
/// FeedPosition(eventID: "42-3fa9c2d1e0b4a7f6")   // sequence 42, hash beginning 3fa9c2d1e0b4a7f6
/// ```
package struct FeedPosition: Sendable, Hashable {
    /// The journal sequence (0: before the first entry).
    package var sequence: UInt64
    /// The hash of the entry at ``sequence`` (zero for 0); only its first 16 hex digits travel
    /// in an event id.
    package var hash: SHA256Digest

    package init(sequence: UInt64, hash: SHA256Digest) {
        self.sequence = sequence
        self.hash = hash
    }

    /// The SSE event id: `<seq>-<first 16 hex digits of the hash>`.
    package var eventID: String { "\(sequence)-\(hash.hex.prefix(Self.hashDigits))" }

    /// The hex digits of the hash an event id carries.
    static let hashDigits = 16

    /// Reads an event id (`Last-Event-ID`); a bare number means "after this sequence, whatever
    /// its hash" (`?after=` as a person types it).
    /// - Returns: the sequence and the hash's prefix (`nil` for a bare number), or `nil` when malformed.
    package static func parse(eventID text: String) -> (sequence: UInt64, hashPrefix: String?)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count <= 2, let sequence = UInt64(parts[0]) else { return nil }
        guard parts.count == 2 else { return (sequence, nil) }
        let prefix = String(parts[1]).lowercased()
        guard prefix.count == hashDigits, prefix.allSatisfy(\.isHexDigit) else { return nil }
        return (sequence, prefix)
    }

    /// Whether this position is the one `hashPrefix` names.
    package func matches(hashPrefix: String?) -> Bool {
        guard let hashPrefix else { return true }
        return hash.hex.hasPrefix(hashPrefix)
    }
}
