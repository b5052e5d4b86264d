/// How Ferry's versions and documents look on a backend: revisions, empty fields, dates.
extension BackendPeer {
    /// The revision Ferry writes for a version.
    static func revision(of identity: ChangeIdentity) -> String {
        "ferry:\(identity.origin.rawValue):\(identity.counter)"
    }

    /// The change a Ferry revision names; `nil` for another client's revision.
    static func identity(ofRevision revision: String) -> ChangeIdentity? {
        let parts = revision.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "ferry", let origin = ReplicaID(String(parts[1])), let counter = UInt64(parts[2]), counter > 0
        else { return nil }
        return ChangeIdentity(origin: origin, counter: counter)
    }

    /// The document a backend record's fields stand for. A field the backend cannot leave
    /// unset (PocketBase gives an empty text "", 0, false or null) is left out when it holds
    /// that empty value and the local document has no such member: absent and empty look the
    /// same there.
    static func document(from fields: [String: JSONValue], local: [String: JSONValue]?) -> [String: JSONValue] {
        var document: [String: JSONValue] = [:]
        for (name, value) in fields where !isEmpty(value) || local?[name] != nil {
            document[name] = value
        }
        return document
    }

    static func isEmpty(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return true
        case .string(let text): return text.isEmpty
        case .integer(let number): return number == 0
        case .double(let number): return number == 0
        case .bool(let flag): return !flag
        case .array, .object: return false
        }
    }

    static func empty(_ kind: PocketBaseFieldKind) -> JSONValue {
        switch kind {
        case .text: return .string("")
        case .number: return .integer(0)
        case .bool: return .bool(false)
        case .json: return .null
        }
    }

    /// A PocketBase date (`2026-11-25 08:50:46.872Z`) in milliseconds since 1970.
    static func milliseconds(_ date: String) -> Int64? {
        ISO8601Milliseconds.parse(date.replacingOccurrences(of: " ", with: "T"))
    }

    /// A PocketBase date (`2026-11-25 08:50:46.872Z`) `milliseconds` earlier; the date itself
    /// when it is not in that form.
    static func earlier(_ date: String, by milliseconds: Int64) -> String {
        let iso = date.replacingOccurrences(of: " ", with: "T")
        guard let value = ISO8601Milliseconds.parse(iso) else { return date }
        return ISO8601Milliseconds.format(signedMilliseconds: value - milliseconds).replacingOccurrences(of: "T", with: " ")
    }
}
