/// Why an import (or its schema, scope or plan) was refused.
///
/// Every case carries the context a person needs to find the problem: the JSON path in
/// `schema.json`, the column of a scope expression, the index of an item in the input array.
/// Values from the data are shortened before they are shown.
///
/// ```swift
/// do { _ = try ImportDate(parsing: "2024-02-30") }
/// catch { print(error) } // not a date: "2024-02-30": day 30 is not in February 2024
/// ```
public indirect enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A text or number that should be a date is not one.
    case invalidDate(String, reason: String)
    /// `schema.json` breaks a rule; `path` is the JSON path of the offending value
    /// (`entities.User.attributes.age.type`).
    case invalidSchema(path: String, message: String)
    /// A value cannot be stored as its declared attribute type.
    case cannotCoerce(value: String, kind: String, to: Schema.AttributeType, reason: String)
    /// A `--scope` expression is malformed; `column` is 1-based, in characters.
    case invalidScope(expression: String, column: Int, message: String)
    /// An item of the input array is not a JSON object.
    case itemNotAnObject(index: Int, kind: String)
    /// An item's id is neither a non-empty string nor an integer.
    case invalidItemID(index: Int, reason: String)
    /// Two items of one input share an id (`123` and `"123"` are the same id).
    case duplicateItemID(String, firstIndex: Int, secondIndex: Int)
    /// A stored record handed to the planner has an unusable or repeated id, or is not an object.
    case invalidStoredID(String, reason: String)
    /// `--only` names something other than `insert`, `update` and `delete`.
    case unknownOperation(String)
    /// The input is not JSON; `line` and `column` are 1-based (column in Unicode scalars).
    case invalidJSON(line: Int, column: Int, reason: String)
    /// The input's top level is neither an array of items nor a single item object.
    case topLevelNotAnArray(kind: String)
    /// A problem inside one item: `index` is its position in the input array and `keyPath`
    /// the path to the offending value inside it (`company.website_url`, `notes[1].created_at`;
    /// empty for the item itself).
    case item(index: Int, keyPath: String, ImportError)
    /// A value where a relationship expects a nested object, an id, or an array of them.
    case invalidLink(reason: String)
    /// A converted record breaks the store's rules (size, depth).
    case invalidDocument(reason: String)
    /// The entity's schema names no key that can identify its records.
    case unusableKey(entity: String, reason: String)
    /// Deleting `record` is refused: its `relationship` has the delete rule `deny` and still
    /// links to `dependents` (the first few ids shown).
    case deleteDenied(record: String, relationship: String, dependents: [String])
    /// `--parent` does not name a usable parent record or relationship.
    case invalidParent(String, reason: String)
    /// An item has no usable primary key (`member` is missing or `null`); `candidates` are
    /// members that look like ids, for the hint.
    case missingPrimaryKey(member: String, isNull: Bool, candidates: [String])
    /// The input is an object that wraps the array of items under `paths` (`data`, `results`).
    case wrappedArray(paths: [String], count: Int)
    /// `--path` names nothing, or not an array or object.
    case invalidPath(String, reason: String)
    /// The import would delete more than the allowed share of an entity's records.
    case massDeletion(entity: EntityName, deleting: Int, of: Int, limitPercent: Int)
    /// A large import written in several batches failed after `written` of its `planned`
    /// changes were durably written (a disk that filled up, say); the store holds those, and
    /// importing the same input again writes the rest.
    case partiallyWritten(written: Int, planned: Int, StoreError)
    /// Reading or writing the store failed.
    case store(StoreError)

    /// The message for people, naming the item, key path, column or schema path:
    /// `item [2] created_at: cannot store "soon" (a string) as date: …`.
    public var description: String {
        switch self {
        case .invalidDate(let text, let reason):
            return "not a date: \(quoted(preview(text))): \(reason)"
        case .invalidSchema(let path, let message):
            return path.isEmpty ? "schema: \(message)" : "schema: \(path): \(message)"
        case .cannotCoerce(let value, let kind, let type, let reason):
            return "cannot store \(value) (\(kind)) as \(type.rawValue): \(reason)"
        case .invalidScope(let expression, let column, let message):
            return "scope: \(message) at column \(column)\n  \(expression)\n  "
                + String(repeating: " ", count: max(column - 1, 0)) + "^"
        case .itemNotAnObject(let index, let kind):
            return "item [\(index)]: an item must be a JSON object, not \(kind == "array" || kind == "object" ? "an" : "a") \(kind)"
        case .invalidItemID(let index, let reason):
            return "item [\(index)]: invalid id: \(reason)"
        case .duplicateItemID(let id, let first, let second):
            return "items [\(first)] and [\(second)] have the same id \(quoted(preview(id)))"
        case .invalidStoredID(let id, let reason):
            return "stored record \(quoted(preview(id))): \(reason)"
        case .unknownOperation(let name):
            return "unknown operation \(quoted(preview(name))); use insert, update or delete, separated by commas"
        case .invalidJSON(let line, let column, let reason):
            return "invalid JSON at line \(line), column \(column): \(reason)"
        case .topLevelNotAnArray(let kind):
            return "the input must be a JSON array of items (or one item object), not \(kind == "array" || kind == "object" ? "an" : "a") \(kind)"
        case .item(let index, let keyPath, let error):
            if case .item = error { return error.description }
            return keyPath.isEmpty ? "item [\(index)]: \(error)" : "item [\(index)] \(keyPath): \(error)"
        case .invalidLink(let reason):
            return reason
        case .invalidDocument(let reason):
            return reason
        case .unusableKey(let entity, let reason):
            return "entity \(entity) has no usable primary key: \(reason)"
        case .deleteDenied(let record, let relationship, let dependents):
            let shown = dependents.prefix(5).map { quoted(preview($0)) }.joined(separator: ", ")
            let more = dependents.count > 5 ? " and \(dependents.count - 5) more" : ""
            return "cannot delete \(record): its relationship \(quoted(relationship)) has the delete rule deny "
                + "and still links to \(shown)\(more)"
        case .invalidParent(let text, let reason):
            return "--parent \(quoted(preview(text))): \(reason)"
        case .missingPrimaryKey(let member, let isNull, let candidates):
            let hint = candidates.isEmpty
                ? "every item needs its primary key; name it in schema.json (entities.<Entity>.primaryKey)"
                : "is the id in \(candidates.map(quoted).joined(separator: " or "))? name it in schema.json (entities.<Entity>.primaryKey)"
            return isNull ? "its primary key \(quoted(member)) is null; \(hint)" : "no primary key \(quoted(member)); \(hint)"
        case .wrappedArray(let paths, let count):
            let path = paths.first ?? ""
            return "the input is an object, not an array of items: \(quoted(path)) holds an array of \(count) object\(count == 1 ? "" : "s"); "
                + "pass --path \(path) to import those"
                + (paths.count > 1 ? " (or one of \(paths.dropFirst().map(quoted).joined(separator: ", ")))" : "")
        case .invalidPath(let path, let reason):
            return "--path \(quoted(preview(path))): \(reason)"
        case .massDeletion(let entity, let deleting, let total, let limit):
            return "this import would delete \(deleting) of \(total) \(entity.rawValue) records (more than \(limit)%): is the input one page "
                + "of a larger list? Nothing was written; to go ahead, pass --force, limit the comparison with --scope, "
                + "or import with --only insert,update"
        case .partiallyWritten(let written, let planned, let error):
            return "the import stopped after writing \(written) of \(planned) changes: \(error); the store is consistent, "
                + "and importing the same input again finishes the work"
        case .store(let error):
            return error.description
        }
    }
}

/// Shortens user data for an error message: at most 60 characters, then `…`.
func preview(_ text: String, limit: Int = 60) -> String {
    text.count <= limit ? text : String(text.prefix(limit)) + "…"
}
