/// The PocketBase field type that holds a top-level member of Ferry's records: strings in
/// `text`, numbers in `number`, booleans in `bool`, and anything else (objects, arrays, null,
/// or a member whose values differ in kind from record to record) in `json`.
///
/// Strings stay `text` even when they look like dates: a `date` field rewrites what it holds
/// into its own format, and the record would come back different from how it left.
public enum PocketBaseFieldKind: String, Sendable, Hashable, CaseIterable {
    case text, number, bool, json

    /// The kind that holds `value`.
    public init(holding value: JSONValue) {
        switch value {
        case .string: self = .text
        case .integer, .double: self = .number
        case .bool: self = .bool
        case .null, .array, .object: self = .json
        }
    }

    /// The kind that holds values of both kinds: itself when they agree, else `json`.
    public func joined(with other: PocketBaseFieldKind) -> PocketBaseFieldKind {
        self == other ? self : .json
    }

    /// Whether a PocketBase field of type `type` (its `type` member) holds values of this kind
    /// without changing them.
    public func fits(type: String) -> Bool {
        type == rawValue || type == "json"
    }

    /// The kinds of the top-level members of `documents`.
    public static func kinds<S: Sequence>(of documents: S) -> [String: PocketBaseFieldKind] where S.Element == JSONValue {
        var kinds: [String: PocketBaseFieldKind] = [:]
        for document in documents {
            guard let members = document.objectValue else { continue }
            for (name, value) in members {
                let kind = PocketBaseFieldKind(holding: value)
                kinds[name] = kinds[name].map { $0.joined(with: kind) } ?? kind
            }
        }
        return kinds
    }
}
