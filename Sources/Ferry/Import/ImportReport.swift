/// What an import did (or, for a dry run, would do): counts per entity, the items skipped, the
/// links whose targets are missing, and what `--only` held back.
///
/// ```swift
/// let report = try store.importRecords(bytes, into: EntityName("User"))
/// print(report.counts)          // 4 inserted, 10 updated, 4 deleted, 26 unchanged, 0 skipped
/// report.jsonValue              // the `--json` form
/// ```
public struct ImportReport: Sendable, Equatable {
    /// How many records of one entity were inserted, updated, deleted, left unchanged or skipped.
    public struct Counts: Sendable, Equatable, CustomStringConvertible {
        /// New records.
        public var inserted = 0
        /// Records whose document changed.
        public var updated = 0
        /// Records deleted (by the diff, a delete rule or a nested array).
        public var deleted = 0
        /// Records the input named with the values they already had.
        public var unchanged = 0
        /// Items left out because they have no usable id.
        public var skipped = 0

        /// Makes counts; all zero by default.
        public init(inserted: Int = 0, updated: Int = 0, deleted: Int = 0, unchanged: Int = 0, skipped: Int = 0) {
            self.inserted = inserted
            self.updated = updated
            self.deleted = deleted
            self.unchanged = unchanged
            self.skipped = skipped
        }

        /// `4 inserted, 10 updated, 4 deleted, 26 unchanged, 0 skipped`.
        public var description: String {
            "\(inserted) inserted, \(updated) updated, \(deleted) deleted, \(unchanged) unchanged, \(skipped) skipped"
        }

        /// Adds `other`'s counts to these (a streamed import's parts).
        mutating func add(_ other: Counts) {
            inserted += other.inserted
            updated += other.updated
            deleted += other.deleted
            unchanged += other.unchanged
            skipped += other.skipped
        }

        var jsonValue: JSONValue {
            [
                "inserted": .integer(Int64(inserted)), "updated": .integer(Int64(updated)),
                "deleted": .integer(Int64(deleted)), "unchanged": .integer(Int64(unchanged)),
                "skipped": .integer(Int64(skipped)),
            ]
        }
    }

    /// An item (or nested object) left out, with where it is and why.
    public struct SkippedItem: Sendable, Equatable {
        /// The position of the item in the input array.
        public var index: Int
        /// The path of the skipped object inside the item (`notes[2]`); empty for the item itself.
        public var keyPath: String
        /// Why it was skipped: `no id`, `null id`.
        public var reason: String
    }

    /// A link to a record that is neither stored nor imported: it was not made.
    public struct MissingTarget: Sendable, Equatable {
        /// The position of the item in the input array.
        public var index: Int
        /// The path of the link inside the item (`company_id`, `notes_ids`).
        public var keyPath: String
        /// The record linked to.
        public var target: RecordKey
    }

    /// One record written (or, in a dry run, to be written).
    public struct Change: Sendable, Equatable {
        /// What happens to the record.
        public enum Kind: String, Sendable {
            /// A new record.
            case insert
            /// A stored record whose document changes.
            case update
            /// A stored record deleted.
            case delete
        }

        /// Insert, update or delete.
        public var kind: Kind
        /// The record.
        public var key: RecordKey
        /// For an update, the keys whose values change, sorted.
        public var changedKeys: [String]
    }

    /// The entity imported into.
    public var entity: EntityName
    /// The counts of every entity touched, the imported one included.
    public var countsByEntity: [EntityName: Counts]
    /// Items and nested objects left out, in input order.
    public var skipped: [SkippedItem]
    /// Links not made because their target does not exist.
    public var missingTargets: [MissingTarget]
    /// The records written, in the order of the batch. A dry run lists every one; a real
    /// import lists the first ``ImportOptions/maximumListedChanges`` and counts the rest in
    /// ``unlistedChanges``, so that importing millions of items does not hold a list of them.
    public var changes: [Change]
    /// Changes found but not made because ``ImportOptions/operations`` excluded them.
    public var withheld: ImportDiffPlan.Withheld
    /// Whether nothing was written because this was a dry run.
    public var isDryRun: Bool
    /// The journal entries the import appended (0 for a dry run or when nothing changed).
    public var journalEntries: Int
    /// What the import would refuse to do (a dry run reports these; a real import throws).
    public var refusals: [String] = []
    /// The changes made beyond those listed in ``changes``.
    public var unlistedChanges = 0
    /// Record files the import found edited by hand in its way, relative to the store: their
    /// content was journaled before the import wrote over them (a dry run lists what it would
    /// journal), so it stays in the records' history.
    public var handEdits: [String] = []
    /// The most bytes of the input held at once, when it was read as a stream (0 otherwise).
    var inputHighWaterBytes = 0

    /// The counts of the imported entity.
    public var counts: Counts { countsByEntity[entity] ?? Counts() }

    /// Whether the import changes the store (or would, for a dry run).
    public var hasChanges: Bool { !changes.isEmpty || unlistedChanges > 0 }

    /// The report as `ferry import --json` prints it; `changes` (the plan, record by record) is
    /// there for a dry run only, since a real import of many items would print them all:
    ///
    /// ```json
    /// {"entity": "User", "dryRun": false, "inserted": 4, "updated": 10, "deleted": 4,
    ///  "unchanged": 26, "skipped": 1, "skippedItems": [{"index": 3, "keyPath": "", "reason": "no id"}],
    ///  "entities": {"Note": {...}, "User": {...}}, "missingTargets": [], "withheld": {...},
    ///  "handEdits": ["records/User/7.json"], "journalEntries": 18}
    /// ```
    public var jsonValue: JSONValue {
        var object = counts.jsonValue.objectValue ?? [:]
        object["entity"] = .string(entity.rawValue)
        object["dryRun"] = .bool(isDryRun)
        object["journalEntries"] = .integer(Int64(journalEntries))
        object["refusals"] = .array(refusals.map { .string($0) })
        object["handEdits"] = .array(handEdits.map { .string($0) })
        object["skippedItems"] = .array(
            skipped.map { ["index": .integer(Int64($0.index)), "keyPath": .string($0.keyPath), "reason": .string($0.reason)] })
        object["missingTargets"] = .array(
            missingTargets.map {
                [
                    "index": .integer(Int64($0.index)), "keyPath": .string($0.keyPath),
                    "entity": .string($0.target.entity.rawValue), "id": .string($0.target.id.rawValue),
                ]
            })
        var entities: [String: JSONValue] = [:]
        for (name, counts) in countsByEntity { entities[name.rawValue] = counts.jsonValue }
        object["entities"] = .object(entities)
        object["withheld"] = [
            "inserts": .array(withheld.inserts.map { .string($0.rawValue) }),
            "updates": .array(withheld.updates.map { .string($0.rawValue) }),
            "deletes": .array(withheld.deletes.map { .string($0.rawValue) }),
        ]
        guard isDryRun else { return .object(object) }
        object["changes"] = .array(
            changes.map { change in
                var member: JSONValue = [
                    "op": .string(change.kind.rawValue), "entity": .string(change.key.entity.rawValue),
                    "id": .string(change.key.id.rawValue),
                ]
                if change.kind == .update { member["changedKeys"] = .array(change.changedKeys.map { .string($0) }) }
                return member
            })
        return .object(object)
    }

    /// The summary lines a person reads, imported entity first:
    ///
    /// ```
    /// User: 4 inserted, 10 updated, 4 deleted, 26 unchanged, 0 skipped
    /// Note: 1 inserted, 0 updated, 9 deleted, 40 unchanged, 0 skipped
    /// ```
    public var summaryLines: [String] {
        let others = countsByEntity.keys.filter { $0 != entity }.sorted()
        return ([entity] + others).map { "\($0.rawValue): \(countsByEntity[$0] ?? Counts())" }
    }
}
