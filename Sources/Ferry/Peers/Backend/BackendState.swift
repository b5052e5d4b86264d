/// What a store remembers of one backend, in `.ferry/peers/backend-<key>/backend/` (key: the
/// first 16 hex digits of the SHA-256 of the backend's location; see ``PeerMemory``):
///
/// - `state.json`: the replica that stands for the backend in this store's journal (changes
///   other clients made arrive as its changes), each collection's watermark (the `updated` of
///   the newest record pulled) and the backend's clock when that pull began, how far the local journal has been pushed, records whose push
///   met a newer version and waits for the next pull, how many records of each collection
///   Ferry knows on the backend (to notice hard deletes by a count), and the kinds of the
///   collections' fields (to empty a field a document no longer has), and when each
///   collection's soft-deleted records were last purged;
/// - `bases/<collection>/`: for each record Ferry has seen on the backend, the revision it
///   holds there and the local version vector of that content: the base of the next
///   compare-and-set, and what a change another client makes descends from (a sorted table and
///   a log; see ``BackendBaseTable``).
///
/// `state.json` is written last, after the journal and the bases it covers are durable, so a
/// crash repeats work, never skips it.
struct BackendState: Sendable {
    var location: String
    /// The replica that stands for the backend in this store's journal.
    var proxy: ReplicaID
    var watermarks: [String: String] = [:]
    /// The backend's clock when each collection's last pull began (from the answer's `Date`).
    var listedAt: [String: String] = [:]
    var pushedThrough: UInt64 = 0
    var deferred: Set<RecordKey> = []
    var knownCounts: [String: Int] = [:]
    /// The backend's clock when each collection's soft-deleted records were last purged.
    var purgedAt: [String: String] = [:]
    var fieldKinds: [String: [String: PocketBaseFieldKind]] = [:]

    /// One record's base.
    struct Base: Sendable, Equatable {
        /// The record's Ferry id.
        var ferryID: String
        var revision: String
        var version: VersionVector
        var isDeleted: Bool
    }

    /// The folder of the backend at `location` in `store`.
    static func folder(of location: String, in store: Store) -> String {
        store.layout.peerMemory(for: .backend(location: location)).backend
    }

    /// Reads the state, or makes a new one (with a new stand-in replica) when there is none.
    static func load(from folder: String, location: String) throws(BackendError) -> BackendState {
        let path = folder + "/state.json"
        guard FileSystem.exists(path) else { return BackendState(location: location, proxy: .generate()) }
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
        for (collection, mark) in object["purgedAt"]?.objectValue ?? [:] { state.purgedAt[collection] = mark.stringValue }
        state.pushedThrough = UInt64(object["pushedThrough"]?.integerValue ?? 0)
        for item in object["deferred"]?.arrayValue ?? [] {
            guard let pair = item.arrayValue, pair.count == 2, let entity = pair[0].stringValue.flatMap({ try? EntityName($0) }),
                  let id = pair[1].stringValue.flatMap({ try? RecordID($0) })
            else { continue }
            state.deferred.insert(RecordKey(entity: entity, id: id))
        }
        for (collection, count) in object["knownCounts"]?.objectValue ?? [:] { state.knownCounts[collection] = count.integerValue.map(Int.init) }
        for (collection, kinds) in object["fieldKinds"]?.objectValue ?? [:] {
            var fields: [String: PocketBaseFieldKind] = [:]
            for (name, kind) in kinds.objectValue ?? [:] { fields[name] = kind.stringValue.flatMap(PocketBaseFieldKind.init(rawValue:)) }
            state.fieldKinds[collection] = fields
        }
        return state
    }

    /// Writes the state durably (atomic rename, fsync).
    func save(to folder: String) throws(BackendError) {
        var object: [String: JSONValue] = [
            "location": .string(location), "proxy": .string(proxy.rawValue), "pushedThrough": .integer(Int64(pushedThrough)),
        ]
        object["watermarks"] = .object(watermarks.mapValues { .string($0) })
        object["listedAt"] = .object(listedAt.mapValues { .string($0) })
        object["purgedAt"] = .object(purgedAt.mapValues { .string($0) })
        object["deferred"] = .array(deferred.sorted().map { [.string($0.entity.rawValue), .string($0.id.rawValue)] })
        object["knownCounts"] = .object(knownCounts.mapValues { .integer(Int64($0)) })
        object["fieldKinds"] = .object(fieldKinds.mapValues { .object($0.mapValues { .string($0.rawValue) }) })
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
