/// Converts an incoming JSON value to an attribute's declared type, as import stores it.
///
/// | type | accepts | stores |
/// | --- | --- | --- |
/// | `string` | string, number, boolean | the string; a number's shortest text (`12.2` → `"12.2"`) |
/// | `integer` | whole number, numeric string | an integer (`"42"` → `42`, `"4.0"` → `4`) |
/// | `decimal` | number, numeric string | a number when exact, otherwise the exact text (see below) |
/// | `double` | number, numeric string | a number |
/// | `bool` | `true`/`false`, `"true"`/`"false"`, `0`/`1`, `"0"`/`"1"` | a boolean |
/// | `date` | any shape ``ImportDate`` reads | the canonical text `yyyy-MM-ddTHH:mm:ss.SSSZ` |
/// | `uuid` | `8-4-4-4-12` hex text | the text in lowercase |
/// | `url` | an absolute URL (`scheme:…`; `http(s)://host…`), no spaces | the text as given |
/// | `json` | anything | the value as it is |
///
/// `null` is accepted by every type and stays `null`.
///
/// Decimals: a decimal with at most 15 significant digits is stored as a JSON number. Such a
/// number survives the trip through a binary double and back exactly, since its shortest
/// round-trip text is the text it came from (`"12.2"` and `12.2` are both stored as `12.2`, never
/// `12.199999…`). A decimal written as a string with more significant digits keeps its exact value
/// as a string in canonical form (no leading zeros, no trailing fraction zeros, no exponent):
/// `"1234567890.123456789"` stays `"1234567890.123456789"`. A whole decimal that fits 64 bits is an
/// integer. A JSON number that already is a double is stored as it is.
///
/// ```swift
/// try AttributeCoercion.coerce("12.20", to: .decimal)     // 12.2
/// try AttributeCoercion.coerce(42, to: .string)           // "42"
/// try AttributeCoercion.coerce("yes", to: .bool)          // throws: cannot store "yes" (a string) as bool
/// ```
public enum AttributeCoercion {
    /// Converts `value` to `type`.
    /// - Returns: the value to store.
    /// - Throws: ``ImportError/cannotCoerce(value:kind:to:reason:)`` naming the value, its kind and
    ///   the type expected.
    public static func coerce(_ value: JSONValue, to type: Schema.AttributeType) throws(ImportError) -> JSONValue {
        if case .null = value { return .null }
        switch type {
        case .json: return value
        case .string: return try string(value)
        case .integer: return try integer(value)
        case .decimal: return try decimal(value)
        case .double: return try double(value)
        case .bool: return try bool(value)
        case .date: return try date(value)
        case .uuid: return try uuid(value)
        case .url: return try url(value)
        }
    }

    static func string(_ value: JSONValue) throws(ImportError) -> JSONValue {
        switch value {
        case .string: return value
        case .integer(let integer): return .string(String(integer))
        case .double(let double): return .string(String(double))
        case .bool(let flag): return .string(flag ? "true" : "false")
        default: throw failure(value, .string, "only strings, numbers and booleans can be stored as text")
        }
    }

    static func integer(_ value: JSONValue) throws(ImportError) -> JSONValue {
        switch value {
        case .integer: return value
        case .double(let double):
            guard double.rounded(.towardZero) == double else { throw failure(value, .integer, "it is not a whole number") }
            guard let integer = Int64(exactly: double) else { throw failure(value, .integer, "it does not fit 64 bits") }
            return .integer(integer)
        case .string(let text):
            guard let decimal = DecimalText(text) else { throw failure(value, .integer, "it is not a number") }
            guard decimal.isWhole else { throw failure(value, .integer, "it is not a whole number") }
            guard let integer = decimal.int64Value else { throw failure(value, .integer, "it does not fit 64 bits") }
            return .integer(integer)
        default:
            throw failure(value, .integer, "expected a number")
        }
    }

    static func decimal(_ value: JSONValue) throws(ImportError) -> JSONValue {
        switch value {
        case .integer, .double: return value
        case .string(let text):
            guard let decimal = DecimalText(text) else { throw failure(value, .decimal, "it is not a number") }
            if let integer = decimal.int64Value { return .integer(integer) }
            let canonical = decimal.canonicalText
            if decimal.significantDigitCount <= 15, let double = Double(canonical), double.isFinite, double != 0 {
                return .number(double)
            }
            guard canonical.utf8.count <= DecimalText.maximumTextLength else {
                throw failure(value, .decimal, "it has more than \(DecimalText.maximumTextLength) digits")
            }
            return .string(canonical)
        default:
            throw failure(value, .decimal, "expected a number or a numeric string")
        }
    }

    static func double(_ value: JSONValue) throws(ImportError) -> JSONValue {
        switch value {
        case .integer, .double: return value
        case .string(let text):
            guard let decimal = DecimalText(text), let double = Double(decimal.canonicalText), double.isFinite else {
                throw failure(value, .double, "it is not a finite number")
            }
            return .number(double)
        default:
            throw failure(value, .double, "expected a number or a numeric string")
        }
    }

    static func bool(_ value: JSONValue) throws(ImportError) -> JSONValue {
        switch value {
        case .bool: return value
        case .integer(0): return .bool(false)
        case .integer(1): return .bool(true)
        case .string(let text):
            switch text.lowercased() {
            case "true", "1": return .bool(true)
            case "false", "0": return .bool(false)
            default: break
            }
        default: break
        }
        throw failure(value, .bool, "expected true, false, \"true\", \"false\", 0 or 1")
    }

    static func date(_ value: JSONValue) throws(ImportError) -> JSONValue {
        do {
            return .string(try ImportDate(parsing: value).canonicalText)
        } catch {
            guard case .invalidDate(_, let reason) = error else { throw error }
            throw failure(value, .date, reason)
        }
    }

    static func uuid(_ value: JSONValue) throws(ImportError) -> JSONValue {
        guard case .string(let text) = value else { throw failure(value, .uuid, "expected a string") }
        let bytes = Array(text.utf8)
        let isUUID = bytes.count == 36 && bytes.indices.allSatisfy { index in
            [8, 13, 18, 23].contains(index) ? bytes[index] == UInt8(ascii: "-") : bytes[index].isASCIIHexDigit
        }
        guard isUUID else { throw failure(value, .uuid, "expected 8-4-4-4-12 hexadecimal digits") }
        return .string(text.lowercased())
    }

    static func url(_ value: JSONValue) throws(ImportError) -> JSONValue {
        guard case .string(let text) = value else { throw failure(value, .url, "expected a string") }
        if let reason = URLCheck.problem(in: text) { throw failure(value, .url, reason) }
        return value
    }

    static func failure(_ value: JSONValue, _ type: Schema.AttributeType, _ reason: String) -> ImportError {
        let article = value.kindName == "array" || value.kindName == "object" ? "an" : "a"
        return .cannotCoerce(value: rendered(value), kind: "\(article) \(value.kindName)", to: type, reason: reason)
    }

    /// A short rendering of a value for an error message.
    static func rendered(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let integer): return String(integer)
        case .double(let double): return String(double)
        case .string(let text): return quoted(preview(text))
        case .array(let elements): return elements.isEmpty ? "[]" : "[…]"
        case .object(let members): return members.isEmpty ? "{}" : "{…}"
        }
    }
}
