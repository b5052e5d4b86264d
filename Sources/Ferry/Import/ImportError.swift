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
public enum ImportError: Error, Sendable, Equatable, CustomStringConvertible {
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
        }
    }
}

/// Shortens user data for an error message: at most 60 characters, then `…`.
func preview(_ text: String, limit: Int = 60) -> String {
    text.count <= limit ? text : String(text.prefix(limit)) + "…"
}
