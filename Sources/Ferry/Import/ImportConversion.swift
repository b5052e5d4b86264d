/// An input array in storage form, as ``RecordConverter`` makes it: the imported entity's items,
/// the records split off from nested objects, and the links to make. Nothing here has looked at
/// the store yet.
struct ImportConversion: Sendable {
    /// One top-level item with a usable id.
    struct Item: Sendable {
        /// The position in the input array.
        var index: Int
        var id: RecordID
        /// The storage members; a `null` member removes the stored key.
        var members: [String: JSONValue]
    }

    /// A record of another entity (or the same) found as a nested object, possibly several times:
    /// the members of every occurrence merged, later ones winning.
    struct NestedRecord: Sendable {
        var key: RecordKey
        var members: [String: JSONValue]
        /// Where it was first met, for error messages.
        var origin: ImportOrigin
        /// The indexes of every item it was met under.
        var indexes: Set<Int>
    }

    /// The complete list of targets one record links to through one relationship, as the input
    /// states it (`"notes": [...]`, `"company_id": 7`, `"company": null`).
    struct LinkSet: Sendable {
        var source: RecordKey
        /// The entity that declares ``relationship``.
        var sourceEntity: Schema.Entity
        var relationship: Schema.Relationship
        /// The targets in input order, without repeats.
        var targets: [RecordID]
        /// Whether the targets came as nested objects (or an empty array or `null` at the
        /// relationship's key): children of a to-many that are no longer listed are then deleted
        /// rather than unlinked.
        var isNested: Bool
        /// Ids given only by reference; they must exist (stored or imported).
        var referencedOnly: Set<RecordID>
        var origin: ImportOrigin
    }

    var entity: EntityName
    var items: [Item] = []
    var skipped: [ImportReport.SkippedItem] = []
    var nested: [RecordKey: NestedRecord] = [:]
    /// The keys of ``nested`` in the order they were first met.
    var nestedOrder: [RecordKey] = []
    var linkSets: [LinkSet] = []
    /// Whether the input was a single object rather than an array (never deletes).
    var isSingleItem = false
}

/// Where a value came from: the item's index in the input and the key path inside it.
struct ImportOrigin: Sendable, Hashable {
    var index: Int
    var keyPath: String

    /// Wraps `error` with this origin.
    func error(_ error: ImportError) -> ImportError {
        if case .item = error { return error }
        return .item(index: index, keyPath: keyPath, error)
    }

    /// The origin of a member: `company` + `name` → `company.name`.
    func appending(_ key: String) -> ImportOrigin {
        ImportOrigin(index: index, keyPath: keyPath.isEmpty ? key : keyPath + "." + key)
    }

    /// The origin of an array element: `notes` + 1 → `notes[1]`.
    func appending(index element: Int) -> ImportOrigin {
        ImportOrigin(index: index, keyPath: keyPath + "[\(element)]")
    }
}
