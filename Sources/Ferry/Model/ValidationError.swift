/// A value given to Ferry that breaks its rules: a bad entity name, an empty id, a document
/// that is not a JSON object.
public enum ValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidEntityName(String, reason: String)
    case invalidRecordID(String, reason: String)
    case notAnObject(kind: String)
    case documentTooLarge(byteCount: Int, limit: Int)
    case tooDeep(limit: Int)

    public var description: String {
        switch self {
        case .invalidEntityName(let name, let reason):
            return "invalid entity name \(quoted(name)): \(reason)"
        case .invalidRecordID(let id, let reason):
            return "invalid record id \(quoted(id)): \(reason)"
        case .notAnObject(let kind):
            return "a record must be a JSON object, not \(kind == "array" || kind == "object" ? "an" : "a") \(kind)"
        case .documentTooLarge(let count, let limit):
            return "document is \(count) bytes; the limit is \(limit)"
        case .tooDeep(let limit):
            return "document nests deeper than \(limit) levels"
        }
    }
}

/// Quotes a user-supplied string for an error message, escaping control characters.
func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            result += "\\u{\(String(scalar.value, radix: 16))}"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}
