/// A JSON value: the document model of every record, journal entry and wire message.
///
/// Numbers keep the distinction JSON authors care about: an integer literal that fits
/// in 64 bits stays an ``JSONValue/integer(_:)``; anything else is a ``JSONValue/double(_:)``.
/// A double that is integral and fits in 64 bits is normalized to an integer when parsed or
/// built with ``JSONValue/number(_:)``, so `1.0` and `1` are the same value.
///
/// ```swift
/// let product: JSONValue = ["name": "Lamp", "price": 12.5, "tags": ["home"]]
/// product["name"]?.stringValue // "Lamp"
/// ```
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Makes a number value, normalizing integral doubles that fit in 64 bits to integers
    /// (as the parser does, so a value round-trips through its canonical text).
    public static func number(_ value: Double) -> JSONValue {
        if let integer = Int64(exactly: value) { return .integer(integer) }
        return .double(value)
    }
}

extension JSONValue {
    /// The members of an object, or `nil` for any other value.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of an array, or `nil` for any other value.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The string, or `nil` for any other value.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The boolean, or `nil` for any other value (numbers are never booleans).
    public var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    /// The integer, or `nil` when the value is not an integer.
    public var integerValue: Int64? {
        if case .integer(let integer) = self { return integer }
        return nil
    }

    /// The value as a double, for either kind of number; `nil` otherwise.
    public var doubleValue: Double? {
        switch self {
        case .integer(let integer): return Double(integer)
        case .double(let double): return double
        default: return nil
        }
    }

    /// Whether the value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short name of the value's kind, for error messages: `"object"`, `"array"`, …
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// The member named `key` of an object; `nil` for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        get { objectValue?[key] }
        set {
            guard case .object(var members) = self else { return }
            members[key] = newValue
            self = .object(members)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var members: [String: JSONValue] = [:]
        for (key, value) in elements { members[key] = value }
        self = .object(members)
    }
}
