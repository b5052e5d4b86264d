/// The replicas that may write to a hub, with their public keys: an append-only list of signed
/// entries, each its own object `hub-members/<4-digit n>.json`, written create-only (two members
/// adding at once meet on the same number, and the second writes the next one).
///
/// Each entry is a ``SignedObject`` (domain ``signatureDomain``) holding the hub's id, its
/// number, the SHA-256 of the entry before it (`prev`), and an `add` or a `remove` of one
/// replica and its key. The first entry is the first replica adding itself (signed by its own
/// key); every later one is signed by a member current at that point. A removal notes how many
/// of the replica's segments were its past work: those stay valid, later ones are refused.
///
/// Keys start with `h`, so the one listing a sync makes of heads shows the entries too.
///
/// ```swift
/// var members = HubMembers(hub: hubID)
/// try members.append(members.entry(.add, replica: store.replicaID, key: key.publicKey, by: key, at: now))
/// members.current[store.replicaID]?.key   // the key
/// ```
public struct HubMembers: Sendable, Equatable {
    /// The entries' key prefix.
    public static let prefix = "hub-members/"
    /// The entry format.
    public static let format: Int64 = 1
    /// What an entry's signature is made over: this domain, then the entry.
    public static let signatureDomain = "ferry-hub-members-v1:"
    /// The most bytes an entry may hold; a larger one is not read.
    public static let maximumEntryByteCount = 64 << 10

    /// What an entry does.
    public enum Action: String, Sendable {
        case add, remove
    }

    /// One entry, as signed.
    public struct Entry: Sendable, Equatable {
        public var number: Int
        public var action: Action
        public var replica: ReplicaID
        public var key: ReplicaPublicKey
        public var name: String?
        /// For a removal: how many of the replica's segments are its past work (kept valid).
        public var segments: UInt64?
        /// When it was written, milliseconds since 1970.
        public var at: UInt64
        /// The key that signed it.
        public var signer: ReplicaPublicKey
        /// Its bytes (canonical JSON and a newline); their SHA-256 is the next entry's `prev`.
        public var bytes: [UInt8]
        public var hash: SHA256Digest { SHA256.hash(bytes) }
    }

    /// A replica that is or was a member.
    public struct Member: Sendable, Equatable {
        public var replica: ReplicaID
        public var key: ReplicaPublicKey
        public var name: String?
        /// The entry that added it.
        public var added: Int
        /// The entry that removed it and how many of its segments stay valid; `nil` while a member.
        public var removed: (entry: Int, segments: UInt64)?

        public static func == (lhs: Member, rhs: Member) -> Bool {
            lhs.replica == rhs.replica && lhs.key == rhs.key && lhs.name == rhs.name && lhs.added == rhs.added
                && lhs.removed?.entry == rhs.removed?.entry && lhs.removed?.segments == rhs.removed?.segments
        }
    }

    /// The hub the list belongs to.
    public let hub: ReplicaID
    /// Every entry, in order.
    public private(set) var entries: [Entry] = []
    /// Every replica that is or was a member, by id.
    public private(set) var members: [ReplicaID: Member] = [:]

    /// An empty list (a hub with no members recorded yet).
    public init(hub: ReplicaID) { self.hub = hub }

    /// The members now (not removed).
    public var current: [ReplicaID: Member] { members.filter { $0.value.removed == nil } }

    /// The current member whose key is `key`, if any.
    public func member(withKey key: ReplicaPublicKey) -> Member? {
        current.values.first { $0.key == key }
    }

    /// Whether `segment` (its number, from 1) of `replica` is work of a member: written while
    /// it was one (a removed member's segments up to its removal stay valid).
    public func admits(segment number: UInt64, of replica: ReplicaID) -> Bool {
        guard let member = members[replica] else { return false }
        guard let removed = member.removed else { return true }
        return number <= removed.segments
    }

    /// `hub-members/<4-digit n>.json`.
    public static func key(of number: Int) -> String {
        let digits = String(number)
        return prefix + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + ".json"
    }

    /// The entry number a key names, `nil` for any other key.
    public static func number(ofKey key: String) -> Int? {
        guard key.hasPrefix(prefix), key.hasSuffix(".json") else { return nil }
        guard let number = Int(key.dropFirst(prefix.count).dropLast(".json".count)), number > 0, Self.key(of: number) == key else { return nil }
        return number
    }

    // MARK: Entries

    /// The next entry, signed by `signer`: an add or a removal of `replica` with `key`.
    package func entry(
        _ action: Action, replica: ReplicaID, key: ReplicaPublicKey, name: String? = nil, segments: UInt64? = nil, by signer: ReplicaSigningKey,
        at milliseconds: UInt64
    ) -> Entry {
        var members: [String: JSONValue] = [
            "ferry-hub-member": .integer(Self.format), "hub": .string(hub.rawValue), "n": .integer(Int64(entries.count + 1)),
            "prev": .string((entries.last?.hash ?? .zero).hex), "action": .string(action.rawValue), "replica": .string(replica.rawValue),
            "key": .string(key.hex), "at": .string(ISO8601Milliseconds.format(milliseconds: milliseconds)),
        ]
        if let name { members["name"] = .string(name) }
        if let segments { members["segments"] = .integer(Int64(clamping: segments)) }
        let signed = SignedObject.signing(members, domain: Self.signatureDomain, with: signer)
        let bytes = JSONValue.object(signed).canonicalBytes() + [UInt8(ascii: "\n")]
        return Entry(
            number: entries.count + 1, action: action, replica: replica, key: key, name: name, segments: segments, at: milliseconds,
            signer: signer.publicKey, bytes: bytes)
    }

    /// Reads an entry's bytes (found at `key`).
    /// - Throws: ``HubError/malformed(location:key:reason:)`` when it is not a signed entry.
    public static func entry(bytes: [UInt8], key: String, location: String) throws(HubError) -> Entry {
        func bad(_ reason: String) -> HubError { .malformed(location: location, key: key, reason: reason) }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes, options: .init(maximumDepth: 4, maximumByteCount: maximumEntryByteCount)) } catch {
            throw bad(error.description)
        }
        guard let object = value.objectValue, object["ferry-hub-member"]?.integerValue == format else {
            throw bad("not a Ferry hub member entry (format \(format))")
        }
        guard case .signed(let signer) = SignedObject.verdict(on: object, domain: signatureDomain) else {
            if case .invalid(let reason) = SignedObject.verdict(on: object, domain: signatureDomain) { throw bad(reason) }
            throw bad("it is not signed")
        }
        guard let number = object["n"]?.integerValue, number > 0, let actionText = object["action"]?.stringValue,
            let action = Action(rawValue: actionText), let replicaText = object["replica"]?.stringValue, let replica = ReplicaID(replicaText),
            let keyText = object["key"]?.stringValue, let publicKey = ReplicaPublicKey(hex: keyText),
            let atText = object["at"]?.stringValue, let at = ISO8601Milliseconds.parse(atText), at >= 0
        else { throw bad("its number, action, replica, key or time is missing") }
        var segments: UInt64?
        if let value = object["segments"] {
            guard let count = value.integerValue, count >= 0 else { throw bad("its \"segments\" is not a count") }
            segments = UInt64(count)
        }
        return Entry(
            number: Int(number), action: action, replica: replica, key: publicKey, name: object["name"]?.stringValue, segments: segments,
            at: UInt64(at), signer: signer, bytes: bytes)
    }

    /// Appends `entry` after checking it follows the list: its number and `prev`, its hub, and
    /// its signer (the replica itself for the first entry, else a current member).
    /// - Throws: a one-line reason (`HubError.malformed` naming the entry's key).
    public mutating func append(_ entry: Entry, location: String = "") throws(HubError) {
        let key = Self.key(of: entry.number)
        func bad(_ reason: String) -> HubError { .malformed(location: location, key: key, reason: reason) }
        guard entry.number == entries.count + 1 else { throw bad("it is entry \(entry.number), where entry \(entries.count + 1) was due") }
        let object = (try? JSONParser.parse(entry.bytes, options: .init(maximumDepth: 4, maximumByteCount: Self.maximumEntryByteCount)))?.objectValue
        guard object?["hub"]?.stringValue == hub.rawValue else { throw bad("it belongs to another hub") }
        guard object?["prev"]?.stringValue == (entries.last?.hash ?? .zero).hex else {
            throw bad("it does not follow entry \(entries.count) (the list was rewritten)")
        }
        if entry.replica.isKeyDerived && !entry.replica.isDerived(from: entry.key) {
            throw bad("replica \(entry.replica.short) is not the replica of key \(entry.key.short)…")
        }
        if entries.isEmpty {
            guard entry.action == .add, entry.signer == entry.key else { throw bad("the first entry must be a replica adding itself") }
        } else if member(withKey: entry.signer) == nil {
            throw bad("it is signed by key \(entry.signer.short)…, which is not a member's")
        }
        switch entry.action {
        case .add:
            members[entry.replica] = Member(replica: entry.replica, key: entry.key, name: entry.name, added: entry.number)
        case .remove:
            guard var member = current[entry.replica] else { throw bad("it removes replica \(entry.replica.short), which is not a member") }
            guard current.count > 1 else { throw bad("it removes the last member") }
            member.removed = (entry.number, entry.segments ?? 0)
            members[entry.replica] = member
        }
        entries.append(entry)
    }

    // MARK: Storage

    /// Reads every entry in `storage`, in order, checking each as it is appended; `nil` when
    /// the hub has none (a hub from before members, or one no replica has used yet).
    /// - Parameter keys: the entry keys a listing showed (read again when `nil`).
    public static func read(from storage: any HubStorage, hub: ReplicaID, keys: [String]? = nil) async throws(HubError) -> HubMembers? {
        var listed = keys ?? []
        if keys == nil { listed = try await storage.list(prefix: prefix).map(\.key) }
        let numbered = listed.compactMap { key in number(ofKey: key).map { ($0, key) } }.sorted { $0.0 < $1.0 }
        guard !numbered.isEmpty else { return nil }
        var members = HubMembers(hub: hub)
        for (_, key) in numbered {
            guard let fetched = try await storage.get(key, limit: maximumEntryByteCount) else { continue }
            try members.append(try entry(bytes: fetched.bytes, key: key, location: storage.location), location: storage.location)
        }
        return members
    }

    /// Writes `entry` create-only.
    /// - Throws: ``HubError/alreadyExists(location:)``-like storage errors when another member
    ///   wrote that number first (read the list again and retry).
    /// - Returns: the object's tag, as a listing shows it.
    @discardableResult
    public static func write(_ entry: Entry, to storage: any HubStorage) async throws(HubError) -> String {
        try await storage.put(key(of: entry.number), entry.bytes, createOnly: true)
    }
}
