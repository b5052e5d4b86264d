extension JSONValue {
    /// About how many bytes the value takes as compact JSON text: strings and keys by their
    /// UTF-8 length (escapes not counted), numbers as eight bytes. It makes no text, so it is
    /// cheap enough for a budget, such as a sync page's (``StoreOptions/maximumPageBytes``);
    /// limits use the canonical bytes. Nesting past 512 levels (more than a store accepts) is
    /// not counted.
    var estimatedByteCount: Int { estimatedByteCount(depth: 0) }

    private func estimatedByteCount(depth: Int) -> Int {
        guard depth <= 512 else { return 0 }
        switch self {
        case .null, .bool: return 5
        case .integer, .double: return 8
        case .string(let text): return text.utf8.count + 2
        case .array(let elements):
            var total = 2
            for element in elements { total += element.estimatedByteCount(depth: depth + 1) + 1 }
            return total
        case .object(let members):
            var total = 2
            for (key, value) in members { total += key.utf8.count + 4 + value.estimatedByteCount(depth: depth + 1) }
            return total
        }
    }
}
