/// What a store remembers of a hub between syncs, in
/// `.ferry/peers/hub-<location hash>/hub-cache.json` (see ``PeerMemory``): the tag and content
/// of every head it read, and the hashes of the heads it wrote itself.
///
/// It is a cache and nothing more: it saves requests (a head whose tag has not changed is not
/// read again, so a sync with nothing new makes one listing request) and lets a store tell its
/// own head from one a copy of it wrote. When it is missing or unreadable, the next sync reads
/// every head again and goes on. One part is relied on: the hash of a head this store is about
/// to write, saved durably first (see ``save(to:location:durable:)``).
struct HubCache: Sendable {
    static let format: Int64 = 1

    /// The hub's id, as its descriptor said.
    var hub: ReplicaID?
    /// The descriptor's tag when it was read.
    var descriptorTag: String?
    /// Whether the descriptor opened the hub to any writer (``HubDescriptor/isOpenToAnyWriter``).
    var openToAnyWriter = false
    /// The id its members and keys are bound to (``HubDescriptor/membersHub``), when not its id.
    var membersHub: ReplicaID?
    /// Every head read (or written), with its tag.
    var heads: [ReplicaID: (tag: String, head: HubHead)] = [:]
    /// SHA-256 of the last heads this store wrote (the newest last): a listing that shows
    /// another tag for its own head is still its own when the content is one of these.
    var ownHeadHashes: [SHA256Digest] = []
    /// Snapshot manifests read (they never change), by id.
    var snapshots: [SHA256Digest: HubSnapshot] = [:]
    /// Segments a head lists that were not in the hub, by key: when this store first found each
    /// absent (past a cloud drive's late arrival, it is missing, not late).
    var absentSince: [String: UInt64] = [:]
    /// The bytes of the file this cache was read from or last saved to: a plain save that would
    /// write them again is skipped. A no-op sync saves twice (when the hub is opened and when it
    /// is closed), and each rename over the old file costs a flush of the new one and, on a file
    /// system mounted with `discard`, a trim of the old one's blocks: a third of its time.
    var bytesOnDisk: [UInt8]?

    init() {}

    /// The folder, in the store at `layout`, that holds the cache of the hub at `location`.
    static func memory(for location: String, in layout: StoreLayout) -> PeerMemory {
        layout.peerMemory(for: .hub(location: location))
    }

    /// Reads a cache; `nil` when there is none or it cannot be read (it is rebuilt).
    static func load(from path: String, location: String) -> HubCache? {
        guard let bytes = try? FileSystem.readFile(path),
            let value = try? JSONParser.parse(bytes, options: .init(maximumDepth: 32, maximumByteCount: 256 << 20)),
            value["ferry-hub-cache"]?.integerValue == format, value["location"]?.stringValue == location
        else { return nil }
        var cache = HubCache()
        cache.bytesOnDisk = bytes
        cache.hub = value["hub"]?.stringValue.flatMap { ReplicaID($0) }
        cache.descriptorTag = value["descriptorTag"]?.stringValue
        cache.openToAnyWriter = value["openToAnyWriter"]?.boolValue ?? false
        cache.membersHub = value["membersHub"]?.stringValue.flatMap { ReplicaID($0) }
        for (replicaText, item) in value["heads"]?.objectValue ?? [:] {
            // Not decoded as a point (a square root, about 40 µs a head, every sync): the key was
            // decoded when its signature was checked, and checking any other signature with it
            // decodes it again.
            let checked = item["checked"]?.stringValue.flatMap { HexText.bytes($0) }
                .flatMap { $0.count == 32 ? ReplicaPublicKey(undecoded: $0) : nil }
            guard let replica = ReplicaID(replicaText), let tag = item["tag"]?.stringValue, let headValue = item["head"],
                let head = try? HubHead(
                    bytes: headValue.canonicalBytes(), key: HubHead.key(of: replica), expected: replica, location: location, checkedSigner: checked)
            else { continue }
            cache.heads[replica] = (tag, head)
        }
        for (idText, manifest) in value["snapshots"]?.objectValue ?? [:] {
            guard let id = SHA256Digest(hex: idText),
                let snapshot = try? HubSnapshot(manifest: manifest.canonicalBytes() + [UInt8(ascii: "\n")], id: id, location: location)
            else { continue }
            cache.snapshots[id] = snapshot
        }
        for (key, since) in value["absent"]?.objectValue ?? [:] {
            if let since = since.integerValue, since >= 0 { cache.absentSince[key] = UInt64(since) }
        }
        cache.ownHeadHashes = (value["own"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap { SHA256Digest(hex: $0) } }
        return cache
    }

    /// Writes the cache atomically; `durable` waits for the disk (before this store writes its
    /// own head, whose hash must not be forgotten). A plain save of the very bytes the file
    /// holds (``bytesOnDisk``) writes nothing.
    /// - Throws: the I/O error; the caller decides whether the sync can go on without it.
    mutating func save(to memory: PeerMemory, location: String, durable: Bool) throws(SystemError) {
        var heads: [String: JSONValue] = [:]
        for (replica, entry) in self.heads {
            var item: JSONValue = ["tag": .string(entry.tag), "head": entry.head.jsonValue]
            // The key whose signature was checked, so loading the cache need not check it again.
            if case .valid(let signer) = entry.head.signature { item["checked"] = .string(signer.hex) }
            heads[replica.rawValue] = item
        }
        var value: JSONValue = [
            "ferry-hub-cache": .integer(Self.format), "location": .string(location), "heads": .object(heads),
            "own": .array(ownHeadHashes.suffix(4).map { .string($0.hex) }),
        ]
        if !snapshots.isEmpty {
            value["snapshots"] = .object(Dictionary(uniqueKeysWithValues: snapshots.map { ($0.key.hex, $0.value.manifestJSON) }))
        }
        if !absentSince.isEmpty {
            value["absent"] = .object(Dictionary(uniqueKeysWithValues: absentSince.map { ($0.key, JSONValue.integer(Int64(clamping: $0.value))) }))
        }
        if let hub { value["hub"] = .string(hub.rawValue) }
        if let descriptorTag { value["descriptorTag"] = .string(descriptorTag) }
        if openToAnyWriter { value["openToAnyWriter"] = .bool(true) }
        if let membersHub, membersHub != hub { value["membersHub"] = .string(membersHub.rawValue) }
        let bytes = value.canonicalBytes()
        if !durable && bytes == bytesOnDisk { return }
        try memory.create(durable: durable)
        try FileSystem.writeFileAtomically(memory.hubCache, bytes, durable: durable)
        bytesOnDisk = bytes
    }
}
