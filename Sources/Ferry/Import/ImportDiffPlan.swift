/// What an import will do to one entity: the pure diff of incoming items against stored records.
///
/// The planner pairs items and records by id and decides, without touching a store:
/// - an item whose id is not stored is an **insert** (its `null` members left out);
/// - an item whose id is stored is merged into the record: a key the item lacks keeps the
///   stored value, a key set to `null` is **removed**, any other key takes the item's value. When
///   the merge changes the record it is an **update**, otherwise the record is **unchanged**
///   (`null` and an absent key are the same, so a stored `null` that the item also sends as `null`
///   is no change);
/// - a stored record that no item names is a **delete** (the stored records given are the ones in
///   scope, so records outside the scope are never deleted);
/// - an item without an id, or with a `null` id, is **skipped** with its index: never inserted,
///   never paired.
///
/// Changes that `operations` does not allow are listed in ``withheld`` instead.
///
/// Ids match by value across strings and integers: the item id `123` matches the stored id
/// `"123"`. Only strings and integers are ids; `12.0` read by the JSON parser is the integer `12`,
/// but `"12.0"` is a different id from `"12"`, and `12.5` is refused.
///
/// ```swift
/// let plan = try ImportDiffPlan(
///     stored: [(id: "1", document: ["id": 1, "name": "Ana"])],
///     incoming: [["id": 1, "name": "Ana María"], ["id": 2, "name": "Ben"]],
///     operations: .all)
/// plan.updates.map(\.id) // ["1"]; plan.inserts.map(\.id) // ["2"]
/// ```
public struct ImportDiffPlan: Sendable, Equatable {
    /// A new record to write.
    public struct Insert: Sendable, Equatable {
        /// The item's position in the input array.
        public var index: Int
        /// The record's id, from the item's primary key.
        public var id: RecordID
        /// The item without its `null` members.
        public var document: JSONValue
    }

    /// A stored record to replace with its merged document.
    public struct Update: Sendable, Equatable {
        /// The item's position in the input array.
        public var index: Int
        /// The record's id, from the item's primary key.
        public var id: RecordID
        /// The stored document with the item merged in.
        public var document: JSONValue
        /// The keys whose values differ from the stored ones, sorted.
        public var changedKeys: [String]
    }

    /// An item that was left out, and why.
    public struct Skip: Sendable, Equatable {
        /// Why an item was skipped.
        public enum Reason: Sendable, Equatable {
            /// The item has no primary key member.
            case missingID
            /// The item's primary key is `null`.
            case nullID
        }

        /// The item's position in the input array.
        public var index: Int
        /// Why it was skipped.
        public var reason: Reason
    }

    /// Changes found but not made because `--only` excluded their kind.
    public struct Withheld: Sendable, Equatable {
        /// Items that would have been inserted without `insert`.
        public var inserts: [RecordID] = []
        /// Records that would have been updated without `update`.
        public var updates: [RecordID] = []
        /// Records that would have been deleted without `delete`, sorted.
        public var deletes: [RecordID] = []

        /// Whether nothing was withheld.
        public var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty }
    }

    /// New records, in input order.
    public private(set) var inserts: [Insert] = []
    /// Changed records, in input order.
    public private(set) var updates: [Update] = []
    /// Stored records to delete, sorted by id.
    public private(set) var deletes: [RecordID] = []
    /// Records the input names with the values they already have, in input order.
    public private(set) var unchanged: [RecordID] = []
    /// Items without a usable id, in input order.
    public private(set) var skipped: [Skip] = []
    /// Changes that `operations` did not allow.
    public private(set) var withheld = Withheld()

    /// Whether applying the plan would change the store.
    public var hasChanges: Bool { !inserts.isEmpty || !updates.isEmpty || !deletes.isEmpty }

    /// Plans the import of `incoming` items over `stored` records of one entity.
    ///
    /// - Parameters:
    ///   - stored: the entity's records in scope, with their ids.
    ///   - incoming: the items, already converted to storage form (keys, types, links).
    ///   - primaryKey: the member of an item that holds its id; `"id"` by default.
    ///   - operations: the kinds of change allowed; the others go to ``withheld``.
    /// - Throws: ``ImportError/itemNotAnObject(index:kind:)``, ``ImportError/invalidItemID(index:reason:)``
    ///   for an id that is neither a non-empty string nor an integer,
    ///   ``ImportError/duplicateItemID(_:firstIndex:secondIndex:)`` naming both items, and
    ///   ``ImportError/invalidStoredID(_:reason:)`` for a stored record that is unusable.
    public init(
        stored: [(id: String, document: JSONValue)], incoming: [JSONValue], primaryKey: String = "id",
        operations: ImportOperations
    ) throws(ImportError) {
        var storedByID: [RecordID: [String: JSONValue]] = [:]
        for record in stored {
            let id: RecordID
            do {
                id = try RecordID(record.id)
            } catch {
                throw .invalidStoredID(record.id, reason: error.description)
            }
            guard case .object(let members) = record.document else {
                throw .invalidStoredID(record.id, reason: "its document is not a JSON object")
            }
            guard storedByID.updateValue(members, forKey: id) == nil else {
                throw .invalidStoredID(record.id, reason: "it is given twice")
            }
        }

        var seen: [RecordID: Int] = [:]
        for (index, item) in incoming.enumerated() {
            guard case .object(let members) = item else { throw .itemNotAnObject(index: index, kind: item.kindName) }
            guard let idValue = members[primaryKey] else {
                skipped.append(Skip(index: index, reason: .missingID))
                continue
            }
            guard let id = try Self.recordID(idValue, index: index) else {
                skipped.append(Skip(index: index, reason: .nullID))
                continue
            }
            if let first = seen.updateValue(index, forKey: id) {
                throw .duplicateItemID(id.rawValue, firstIndex: first, secondIndex: index)
            }
            guard let current = storedByID[id] else {
                let document = JSONValue.object(ImportDocuments.withoutNulls(members))
                if operations.contains(.insert) {
                    inserts.append(Insert(index: index, id: id, document: document))
                } else {
                    withheld.inserts.append(id)
                }
                continue
            }
            let (merged, changedKeys) = Self.merge(members, into: current, record: id, primaryKey: primaryKey)
            if changedKeys.isEmpty {
                unchanged.append(id)
            } else if operations.contains(.update) {
                updates.append(Update(index: index, id: id, document: .object(merged), changedKeys: changedKeys))
            } else {
                withheld.updates.append(id)
            }
        }

        let gone = storedByID.keys.filter { seen[$0] == nil }.sorted()
        if operations.contains(.delete) {
            deletes = gone
        } else {
            withheld.deletes = gone
        }
    }

    /// The id an item names, `nil` for `null`.
    static func recordID(_ value: JSONValue, index: Int) throws(ImportError) -> RecordID? {
        let text: String
        switch value {
        case .null: return nil
        case .string(let string): text = string
        case .integer(let integer): text = String(integer)
        case .double(let double):
            throw .invalidItemID(index: index, reason: "\(double) is not an integer; ids are strings or integers")
        default:
            throw .invalidItemID(index: index, reason: "ids are strings or integers, not \(value.kindName == "array" || value.kindName == "object" ? "an" : "a") \(value.kindName)")
        }
        do {
            return try RecordID(text)
        } catch {
            throw .invalidItemID(index: index, reason: error.description)
        }
    }

    /// ``merge(_:into:)`` for an item matched to the stored record `record`: when the record
    /// does not hold its primary key member (it was made by `put` or by hand) and the item's
    /// names the record's own id, that member is left out, as the id is implied by the record's
    /// key; so an export of such a record imports back as no change.
    static func merge(
        _ item: [String: JSONValue], into stored: [String: JSONValue], record: RecordID, primaryKey: String
    ) -> (merged: [String: JSONValue], changedKeys: [String]) {
        guard stored[primaryKey] == nil, let value = item[primaryKey], ImportBatch.linkID(value) == record else {
            return merge(item, into: stored)
        }
        var item = item
        item.removeValue(forKey: primaryKey)
        return merge(item, into: stored)
    }

    /// The stored members with the item's members merged in (`null` removes), and the keys whose
    /// values changed, sorted. A stored `null` is treated as absent.
    static func merge(
        _ item: [String: JSONValue], into stored: [String: JSONValue]
    ) -> (merged: [String: JSONValue], changedKeys: [String]) {
        var merged = stored
        var changed: [String] = []
        for (key, value) in item {
            if value.isNull {
                // `null` and an absent key mean the same: removing a stored `null` is no change.
                if let old = merged.removeValue(forKey: key), !old.isNull { changed.append(key) }
            } else if merged[key] != value {
                merged[key] = value
                changed.append(key)
            }
        }
        return (merged, changed.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }
}
