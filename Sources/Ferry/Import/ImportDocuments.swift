import Dispatch

/// The per-document work of an import that does not need the store: content hashes (to find
/// unchanged records without reading them) and the store's limits (to name the item before
/// anything is written).
enum ImportDocuments {
    /// The SHA-256 of each document's canonical bytes, as the store hashes a record's content;
    /// `null` members are left out first, as an import stores them. Computed on every core.
    static func contentHashes(of documents: [[String: JSONValue]]) -> [SHA256Digest] {
        var hashes = [SHA256Digest](repeating: .zero, count: documents.count)
        let chunk = 2_048
        let chunks = (documents.count + chunk - 1) / chunk
        hashes.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let output = buffer
            DispatchQueue.concurrentPerform(iterations: chunks) { part in
                var bytes: [UInt8] = []
                for index in (part * chunk)..<min((part + 1) * chunk, documents.count) {
                    bytes.removeAll(keepingCapacity: true)
                    JSONValue.object(withoutNulls(documents[index])).writeCanonical(to: &bytes)
                    output[index] = SHA256.hash(bytes)
                }
            }
        }
        return hashes
    }

    /// `members` without its `null` members, as an import stores a record; the same storage
    /// when there are none (the usual case), so no dictionary is built again.
    static func withoutNulls(_ members: [String: JSONValue]) -> [String: JSONValue] {
        members.values.contains(where: \.isNull) ? members.filter { !$0.value.isNull } : members
    }

    /// Why the store would refuse `document` (too deep, too large), or `nil`.
    ///
    /// One walk finds the depth and an upper bound of the canonical size (every character of a
    /// string escaped at most six bytes long); only a document whose bound passes the limit is
    /// written out to measure it exactly.
    static func problem(in document: JSONValue, maximumDepth: Int, maximumBytes: Int) -> String? {
        var bound = 0
        let depth = walk(document, depth: 0, limit: maximumDepth, bound: &bound)
        if depth > maximumDepth { return "nests deeper than \(maximumDepth) levels" }
        guard bound > maximumBytes else { return nil }
        let count = document.canonicalBytes().count
        return count > maximumBytes ? "is \(count) bytes; the limit is \(maximumBytes)" : nil
    }

    /// The nesting depth below `value` (stopping past `limit`), adding its size bound to `bound`.
    private static func walk(_ value: JSONValue, depth: Int, limit: Int, bound: inout Int) -> Int {
        switch value {
        case .null, .bool: bound += 5
        case .integer, .double: bound += 25
        case .string(let text): bound += text.utf8.count * 6 + 2
        case .array(let elements):
            bound += 2 + elements.count
            guard depth < limit else { return depth + 1 }
            var deepest = depth + 1
            for element in elements { deepest = max(deepest, walk(element, depth: depth + 1, limit: limit, bound: &bound)) }
            return deepest
        case .object(let members):
            bound += 2 + members.count
            guard depth < limit else { return depth + 1 }
            var deepest = depth + 1
            for (key, member) in members {
                bound += key.utf8.count * 6 + 3
                deepest = max(deepest, walk(member, depth: depth + 1, limit: limit, bound: &bound))
            }
            return deepest
        }
        return depth
    }
}
