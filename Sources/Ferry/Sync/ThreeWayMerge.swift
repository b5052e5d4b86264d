/// A field-level three-way merge of two concurrent versions of a JSON object against their
/// common ancestor: changes to different fields combine; nested objects merge by path; the
/// same field changed differently on both sides is a conflict.
public enum ThreeWayMerge {
    /// The merged document, or `nil` when both sides changed the same field differently.
    ///
    /// ```swift
    /// ThreeWayMerge.merge(ancestor: ["a": 1, "b": 1], ours: ["a": 2, "b": 1], theirs: ["a": 1, "b": 3])
    /// // ["a": 2, "b": 3]
    /// ```
    public static func merge(ancestor: JSONValue?, ours: JSONValue, theirs: JSONValue) -> JSONValue? {
        if ours == theirs { return ours }
        if let ancestor {
            if ours == ancestor { return theirs }
            if theirs == ancestor { return ours }
        }
        guard case .object(let oursMembers) = ours, case .object(let theirsMembers) = theirs else { return nil }
        let baseMembers = ancestor?.objectValue ?? [:]
        var result: [String: JSONValue] = [:]
        for key in Set(oursMembers.keys).union(theirsMembers.keys).union(baseMembers.keys) {
            let base = baseMembers[key]
            let mine = oursMembers[key]
            let yours = theirsMembers[key]
            if mine == yours {
                if let mine { result[key] = mine }
            } else if mine == base {
                if let yours { result[key] = yours }
            } else if yours == base {
                if let mine { result[key] = mine }
            } else if let mine, let yours, case .object = mine, case .object = yours,
                let merged = merge(ancestor: base, ours: mine, theirs: yours)
            {
                result[key] = merged
            } else {
                return nil
            }
        }
        return .object(result)
    }
}
