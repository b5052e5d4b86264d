/// One field-level difference between two versions of a document: a field added, removed or
/// changed, found by path.
///
/// Nested objects are compared member by member, so a changed city reads as
/// `address.city: "Lyon" → "Paris"`; arrays are compared whole (a changed element shows the
/// whole old and new array), because array positions are not stable identities.
///
/// ```swift
/// let changes = FieldChange.changes(from: ["price": 12, "tags": ["a"]], to: ["price": 14])
/// // [~ price: 12 → 14, - tags: ["a"]]
/// ```
public struct FieldChange: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the field.
    public enum Kind: String, Sendable, Hashable {
        /// The field is new; ``FieldChange/new`` holds its value.
        case added
        /// The field is gone; ``FieldChange/old`` holds its last value.
        case removed
        /// The field holds another value; both ``FieldChange/old`` and ``FieldChange/new`` are set.
        case changed
    }

    /// The keys from the document's root to the field (`["address", "city"]`).
    public var path: [String]
    /// Added, removed or changed.
    public var kind: Kind
    /// The value before (`nil` when added).
    public var old: JSONValue?
    /// The value after (`nil` when removed).
    public var new: JSONValue?

    /// Makes a change; ``changes(from:to:)`` is how changes are usually found.
    public init(path: [String], kind: Kind, old: JSONValue?, new: JSONValue?) {
        self.path = path
        self.kind = kind
        self.old = old
        self.new = new
    }

    /// The path as people read it: keys joined by `.`, a key that is not a plain word written as
    /// `["key"]` (`address.city`, `meta["content-type"]`, `["a.b"]`).
    public var pathText: String {
        var text = ""
        for key in path {
            if Self.isPlainKey(key) {
                if !text.isEmpty { text += "." }
                text += key
            } else {
                text += "[" + JSONValue.string(key).canonicalText + "]"
            }
        }
        return text.isEmpty ? "(document)" : text
    }

    /// `+ path: new`, `- path: old` or `~ path: old → new`, values in canonical JSON.
    public var description: String {
        switch kind {
        case .added: return "+ \(pathText): \(new?.canonicalText ?? "")"
        case .removed: return "- \(pathText): \(old?.canonicalText ?? "")"
        case .changed: return "~ \(pathText): \(old?.canonicalText ?? "") → \(new?.canonicalText ?? "")"
        }
    }

    /// The change as JSON: `{"path": "address.city", "keys": ["address", "city"], "kind": "changed",
    /// "old": …, "new": …}` (`old` absent when added, `new` absent when removed).
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = [
            "path": .string(pathText), "keys": .array(path.map { .string($0) }), "kind": .string(kind.rawValue),
        ]
        if let old { members["old"] = old }
        if let new { members["new"] = new }
        return .object(members)
    }

    /// The field-level differences from `old` to `new`, sorted by path.
    ///
    /// A `nil` document (no record, or deleted) counts as an empty object, so a creation lists
    /// every top-level field as added and a deletion every field as removed.
    ///
    /// - Parameters:
    ///   - old: The document before, or `nil`.
    ///   - new: The document after, or `nil`.
    /// - Returns: The changes, depth first, keys in canonical (UTF-8) order; empty when equal.
    public static func changes(from old: JSONValue?, to new: JSONValue?) -> [FieldChange] {
        var result: [FieldChange] = []
        var path: [String] = []
        compare(old ?? .object([:]), new ?? .object([:]), path: &path, into: &result)
        return result
    }

    private static func compare(_ old: JSONValue, _ new: JSONValue, path: inout [String], into result: inout [FieldChange]) {
        guard case .object(let oldMembers) = old, case .object(let newMembers) = new else {
            if old != new { result.append(FieldChange(path: path, kind: .changed, old: old, new: new)) }
            return
        }
        // Both objects' members in key order (UTF-8 bytes, as canonical JSON orders them),
        // walked side by side: no set of keys and no lookups, which cost `ferry log` more than
        // its JSON parsing.
        func byKey(_ members: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
            members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        }
        let before = byKey(oldMembers), after = byKey(newMembers)
        var (i, j) = (0, 0)
        while i < before.count || j < after.count {
            let order: Int
            if i == before.count {
                order = 1
            } else if j == after.count {
                order = -1
            } else if before[i].key.utf8.elementsEqual(after[j].key.utf8) {
                order = 0
            } else {
                order = before[i].key.utf8.lexicographicallyPrecedes(after[j].key.utf8) ? -1 : 1
            }
            switch order {
            case -1:
                path.append(before[i].key)
                result.append(FieldChange(path: path, kind: .removed, old: before[i].value, new: nil))
                i += 1
            case 1:
                path.append(after[j].key)
                result.append(FieldChange(path: path, kind: .added, old: nil, new: after[j].value))
                j += 1
            default:
                path.append(after[j].key)
                compare(before[i].value, after[j].value, path: &path, into: &result)
                i += 1
                j += 1
            }
            path.removeLast()
        }
    }

    private static func isPlainKey(_ key: String) -> Bool {
        !key.isEmpty
            && key.utf8.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }
}
