/// Filling the fields a setup adds to a collection from the store they were read from: a record
/// pushed before its collection had a field for one of its members is held without that value
/// (PocketBase dropped it, and a new number field reads 0), so the setup that adds the field
/// writes the store's value into it, and the backend and the store hold the same record.
extension PocketBaseSetup {
    /// A record of the store as the mapping writes it to its collection.
    public struct StoreRecord: Sendable {
        public var ferryID: String
        /// The revision the store's current version is written with (`ferry_rev`).
        public var revision: String
        public var fields: [String: JSONValue]
    }

    /// The live records of `entry`'s entity in `store`, as the mapping writes them; a record
    /// the mapping cannot write is left out (a sync names it).
    public static func storeRecords(of entry: BackendMapping.Entry, in store: Store) throws -> [StoreRecord] {
        var records: [StoreRecord] = []
        for (id, document) in try store.records(of: entry.entity) {
            guard let state = try store.state(of: RecordKey(entity: entry.entity, id: id)), state.isLive,
                let fields = try? entry.fields(of: document.objectValue ?? [:], record: "\(entry.collection)/\(id.rawValue)")
            else { continue }
            records.append(StoreRecord(ferryID: id.rawValue, revision: BackendPeer.revision(of: state.winner.identity), fields: fields))
        }
        return records
    }

    /// Writes the store's values of the `added` fields into the records `collection` holds at
    /// the store's current revision (a record another client changed since keeps its own).
    /// - Returns: a line saying what was filled; `nil` when nothing was.
    func fill(_ collection: Collection, added: [String], with client: PocketBaseClient) async throws(BackendError) -> String? {
        let byID = Dictionary(collection.storeRecords.map { ($0.ferryID, $0) }, uniquingKeysWith: { first, _ in first })
        var filled = 0
        var page = 1
        while true {
            let listed = try await client.records(
                in: collection.name, page: page, perPage: 500, fields: "id,\(Self.idField),\(Self.revisionField)")
            for item in listed.items {
                guard let backendID = item["id"]?.stringValue else { continue }
                let ferryID = PocketBaseRecordID.ferryID(backendID: backendID, ferryIDField: item[Self.idField]?.stringValue)
                guard let record = byID[ferryID], item[Self.revisionField]?.stringValue == record.revision else { continue }
                var values: [String: JSONValue] = [:]
                for field in added { if let value = record.fields[field] { values[field] = value } }
                guard !values.isEmpty else { continue }
                _ = try await client.update(in: collection.name, id: backendID, fields: values)
                filled += 1
            }
            if listed.items.count < listed.perPage { break }
            page += 1
        }
        guard filled > 0 else { return nil }
        return "\(collection.name): filled \(added.sorted().joined(separator: ", ")) in \(filled) record\(filled == 1 ? "" : "s") from the store"
    }
}
