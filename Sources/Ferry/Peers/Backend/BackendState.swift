/// What a store remembers of one backend, in `.ferry/peers/backend-<key>/backend/` (key: the
/// first 16 hex digits of the SHA-256 of the backend's location; see ``PeerMemory``):
///
/// - `state.json`: the replica that stands for the backend in this store's journal (changes
///   other clients made arrive as its changes), each collection's watermark (the `updated` of
///   the newest record pulled) and the backend's clock when that pull began, where the
///   stand-in replica's journal ends (``StandIn``), how many records of each collection
///   Ferry knows on the backend (to notice hard deletes by a count), and the kinds of the
///   collections' fields (to empty a field a document no longer has), and when each
///   collection's soft-deleted records were last purged;
/// - `bases/<collection>/`: for each record Ferry has seen on the backend, the revision it
///   holds there and the local version vector of that content: the base of the next
///   compare-and-set, and what a change another client makes descends from (a sorted table and
///   a log; see ``BackendBaseTable``).
///
/// `state.json` is written last, after the journal and the bases it covers are durable (by
/// ``BackendPeer`` once the store holds what was pulled), so a crash repeats work, never skips it.
struct BackendState: Sendable, Equatable {
    var location: String
    /// The replica that stands for the backend in this store's journal.
    var proxy: ReplicaID
    var watermarks: [String: String] = [:]
    /// Per collection, the `updated` of the newest record Ferry wrote there: a listing that
    /// starts before it and finds nothing as new is a backend that went back in time (or whose
    /// newest records were deleted outright), and is checked whole (``BackendPeer``'s restore check).
    var latestWritten: [String: String] = [:]
    /// The backend's clock when each collection's last pull began (from the answer's `Date`).
    var listedAt: [String: String] = [:]
    /// How far the local journal was pushed, and the records waiting, as the engine before
    /// ``BackendPeer`` kept them: read and written again as they are, no longer used (the
    /// stand-in's frontier and the store's checkpoint say what the backend holds).
    var pushedThrough: UInt64 = 0
    var deferred: Set<RecordKey> = []
    /// Records the backend holds at the store's version but with other values (a field that
    /// cannot hold the store's value as it is), with how they differ: every sync names them
    /// until a listing shows them agreeing.
    var differing: [RecordKey: String] = [:]
    var knownCounts: [String: Int] = [:]
    /// The backend's clock when each collection's soft-deleted records were last purged.
    var purgedAt: [String: String] = [:]
    var fieldKinds: [String: [String: PocketBaseFieldKind]] = [:]
    /// Where the stand-in replica's journal ends (see ``StandIn``).
    var standIn = StandIn()
    /// The collections whose bases all hold the record's `updated` and content digest. A
    /// collection of a state written before Ferry kept them is not one: its next pull lists it
    /// whole, so that every base learns them (and a record another client changed under the
    /// same revision is found).
    var updatedKnown: Set<String> = []

    /// The stand-in replica as a journal that holds what the backend has: every change Ferry
    /// pushed there and every change pulled from it, in the order they were saved. Only its
    /// position, the hash chain over the changes' digests, its frontier (for each origin, the
    /// latest change the backend holds, contiguously) and the hashes at recent positions are
    /// kept: the changes themselves are in the store's journal. A sync compares this position
    /// with its checkpoint, as with any peer (``BackendPeer``).
    ///
    /// In `state.json` as `standIn`: `{"sequence": 12, "hash": "<hex>", "frontier": {…},
    /// "marks": {"10": "<hex>"}, "latest": "<physical>.<logical>"}`; a state written before it
    /// has none, and starts at position 0.
    struct StandIn: Sendable, Equatable {
        var sequence: UInt64 = 0
        var hash: SHA256Digest = .zero
        var frontier = ReplicaFrontier(knowledge: VersionVector(), digests: [:])
        /// The hashes at the positions recent syncs ended at (a checkpoint names one of them).
        var marks: [UInt64: SHA256Digest] = [:]
        /// The latest stamp of the changes pulled.
        var latest: HybridTimestamp = .zero

        /// How many positions `marks` keeps.
        static let markLimit = 256

        /// The hash of the entry at `position` after `previous`: the chain over the changes' digests.
        static func hash(after previous: SHA256Digest, _ change: Change) -> SHA256Digest {
            SHA256.hash(previous.bytes + change.digest.bytes)
        }

        var jsonValue: JSONValue {
            var marksObject: [String: JSONValue] = [:]
            for (position, hash) in marks { marksObject[String(position)] = .string(hash.hex) }
            return .object([
                "sequence": .integer(Int64(clamping: sequence)), "hash": .string(hash.hex), "frontier": frontier.jsonValue,
                "marks": .object(marksObject), "latest": .string(latest.description),
            ])
        }

        init() {}

        /// Reads ``jsonValue``'s form; `nil` when it is not that.
        init?(json: JSONValue) {
            guard let object = json.objectValue, let sequence = object["sequence"]?.integerValue, sequence >= 0,
                let hash = object["hash"]?.stringValue.flatMap(SHA256Digest.init(hex:)),
                let frontierObject = object["frontier"]?.objectValue, let frontier = try? ReplicaFrontier(json: frontierObject)
            else { return nil }
            self.sequence = UInt64(sequence)
            self.hash = hash
            self.frontier = frontier
            for (position, mark) in object["marks"]?.objectValue ?? [:] {
                guard let position = UInt64(position), let digest = mark.stringValue.flatMap(SHA256Digest.init(hex:)) else { return nil }
                marks[position] = digest
            }
            latest = object["latest"]?.stringValue.flatMap(HybridTimestamp.init) ?? .zero
        }
    }

    /// One record's base: what Ferry last saw or wrote of it on the backend.
    struct Base: Sendable, Equatable {
        /// The record's Ferry id.
        var ferryID: String
        var revision: String
        var version: VersionVector
        var isDeleted: Bool
        /// The record's `updated` as Ferry last saw it: every write moves it, whoever makes it
        /// (a superuser's too), so a push is conditional on it. `nil` in a base written before
        /// Ferry kept it (unknown: the content decides, see ``BackendPeer``'s pull).
        var updated: String? = nil
        /// The digest of the record's content as Ferry last saw it (``BackendRecord/contentDigest``);
        /// `nil` when unknown, as `updated`.
        var content: SHA256Digest? = nil
        /// Whether Ferry wrote this version and the backend's answer held exactly the values it
        /// sent, with no difference outstanding for the record: listed again unchanged, it needs
        /// no check against the store (``BackendPeer``'s pull). Only a live record's base has it.
        var valuesChecked = false

        /// Whether `record` is the very write Ferry last saw: the same revision, `updated` and
        /// content (what is unknown is not compared).
        func isSame(as record: BackendRecord) -> Bool {
            revision == record.revision && updated.map { $0 == record.updated } ?? true
                && content.map { $0 == record.contentDigest } ?? true
        }
    }

    /// The folder of the backend at `location` in `store`.
    static func folder(of location: String, in store: Store) -> String {
        store.layout.peerMemory(for: .backend(location: location)).backend
    }

    /// Reads the state, or makes a new one (with a new stand-in replica) when there is none.
    static func load(from folder: String, location: String) throws(BackendError) -> BackendState {
        try loadSaved(from: folder, location: location) ?? BackendState(location: location, proxy: .generate())
    }

    /// Reads the state; `nil` when none was saved.
    static func loadSaved(from folder: String, location: String) throws(BackendError) -> BackendState? {
        let path = folder + "/state.json"
        guard FileSystem.exists(path) else { return nil }
        let bytes: [UInt8]
        do { bytes = try FileSystem.readFile(path, limit: 64 << 20) } catch {
            throw BackendError(.local, "\(path): \(error)")
        }
        guard let value = try? JSONParser.parse(bytes, options: JSONParser.Options(maximumDepth: 16, maximumByteCount: 64 << 20)),
              let object = value.objectValue, let proxyText = object["proxy"]?.stringValue, let proxy = ReplicaID(proxyText)
        else {
            throw BackendError(.local, "\(path): damaged (not the JSON Ferry writes); move it away to start over with this backend")
        }
        var state = BackendState(location: location, proxy: proxy)
        for (collection, mark) in object["watermarks"]?.objectValue ?? [:] { state.watermarks[collection] = mark.stringValue }
        for (collection, mark) in object["listedAt"]?.objectValue ?? [:] { state.listedAt[collection] = mark.stringValue }
        for (collection, mark) in object["latestWritten"]?.objectValue ?? [:] { state.latestWritten[collection] = mark.stringValue }
        for (collection, mark) in object["purgedAt"]?.objectValue ?? [:] { state.purgedAt[collection] = mark.stringValue }
        state.pushedThrough = UInt64(object["pushedThrough"]?.integerValue ?? 0)
        state.updatedKnown = Set(object["updatedKnown"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        for item in object["deferred"]?.arrayValue ?? [] {
            guard let pair = item.arrayValue, pair.count == 2, let entity = pair[0].stringValue.flatMap({ try? EntityName($0) }),
                  let id = pair[1].stringValue.flatMap({ try? RecordID($0) })
            else { continue }
            state.deferred.insert(RecordKey(entity: entity, id: id))
        }
        for item in object["differing"]?.arrayValue ?? [] {
            guard let triple = item.arrayValue, triple.count == 3, let entity = triple[0].stringValue.flatMap({ try? EntityName($0) }),
                  let id = triple[1].stringValue.flatMap({ try? RecordID($0) }), let how = triple[2].stringValue
            else { continue }
            state.differing[RecordKey(entity: entity, id: id)] = how
        }
        for (collection, count) in object["knownCounts"]?.objectValue ?? [:] { state.knownCounts[collection] = count.integerValue.map(Int.init) }
        for (collection, kinds) in object["fieldKinds"]?.objectValue ?? [:] {
            var fields: [String: PocketBaseFieldKind] = [:]
            for (name, kind) in kinds.objectValue ?? [:] { fields[name] = kind.stringValue.flatMap(PocketBaseFieldKind.init(rawValue:)) }
            state.fieldKinds[collection] = fields
        }
        if let standIn = object["standIn"] {
            guard let read = StandIn(json: standIn) else {
                throw BackendError(.local, "\(path): damaged stand-in (not the JSON Ferry writes); move it away to start over with this backend")
            }
            state.standIn = read
        }
        return state
    }

    /// Where the next listing of `collection` starts: the watermark less the overlap window, or,
    /// when the last listing began longer than the window after the watermark, the watermark
    /// itself (every record written before then had committed by then, and was seen); `nil`,
    /// the whole collection, before its first listing or while its bases lack `updated`.
    func listingStart(of collection: String, overlapMilliseconds: Int64) -> String? {
        watermarks[collection].flatMap { watermark -> String? in
            guard updatedKnown.contains(collection) else { return nil }
            guard let listed = listedAt[collection] else { return BackendPeer.earlier(watermark, by: overlapMilliseconds) }
            return min(watermark, BackendPeer.earlier(listed, by: overlapMilliseconds))
        }
    }

    /// Whether saving this state over `saved` would change nothing a later sync reads: they
    /// differ at most in when each collection was last listed (``listedAt``), and the next
    /// listing of each starts at the same place either way (``listingStart(of:overlapMilliseconds:)``).
    /// A sync that found nothing new leaves such a state, and need not write it (nor wait for
    /// the disk): a crash that loses it repeats no work.
    func isEquivalent(to saved: BackendState, overlapMilliseconds: Int64) -> Bool {
        var unlisted = self
        unlisted.listedAt = saved.listedAt
        guard unlisted == saved else { return false }
        return Set(listedAt.keys).union(saved.listedAt.keys).allSatisfy { collection in
            listingStart(of: collection, overlapMilliseconds: overlapMilliseconds)
                == saved.listingStart(of: collection, overlapMilliseconds: overlapMilliseconds)
        }
    }

    /// Writes the state durably (atomic rename, fsync).
    func save(to folder: String) throws(BackendError) {
        var object: [String: JSONValue] = [
            "location": .string(location), "proxy": .string(proxy.rawValue), "pushedThrough": .integer(Int64(pushedThrough)),
        ]
        object["watermarks"] = .object(watermarks.mapValues { .string($0) })
        object["listedAt"] = .object(listedAt.mapValues { .string($0) })
        object["latestWritten"] = .object(latestWritten.mapValues { .string($0) })
        object["purgedAt"] = .object(purgedAt.mapValues { .string($0) })
        object["deferred"] = .array(deferred.sorted().map { [.string($0.entity.rawValue), .string($0.id.rawValue)] })
        object["differing"] = .array(differing.keys.sorted().map { key in
            [.string(key.entity.rawValue), .string(key.id.rawValue), .string(differing[key] ?? "")]
        })
        object["knownCounts"] = .object(knownCounts.mapValues { .integer(Int64($0)) })
        object["fieldKinds"] = .object(fieldKinds.mapValues { .object($0.mapValues { .string($0.rawValue) }) })
        object["standIn"] = standIn.jsonValue
        object["updatedKnown"] = .array(updatedKnown.sorted().map { .string($0) })
        do {
            _ = try FileSystem.createDirectories(folder)
            _ = try FileSystem.writeFileAtomically(folder + "/state.json", JSONValue.object(object).prettyBytes(), durable: true)
        } catch {
            throw BackendError(.local, "\(folder)/state.json: \(error)")
        }
    }

    /// The bases of `collection`'s records.
    static func bases(in folder: String, collection: String) throws(BackendError) -> BackendBaseTable {
        try BackendBaseTable(folder: folder + "/bases/" + collection)
    }
}
