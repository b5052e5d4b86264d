/// "Did you mean …?" for a name that is close to one that exists: a typo in an entity name
/// should be named as such, not read as an empty entity.
///
/// ```swift
/// NameSuggestion.closest(to: "Prodcut", among: ["Note", "Product"])  // "Product"
/// ```
enum NameSuggestion {
    /// The candidate nearest to `name` by edit distance (letter case ignored), when it is near
    /// enough to be a typo: at most a third of the name's length, and at least 2 edits allowed.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let target = Array(name.lowercased())
        let limit = max(2, target.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates.sorted() {
            let distance = editDistance(target, Array(candidate.lowercased()))
            if distance <= limit, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance, with a swap of two neighbours counting as one edit.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], previous2[j - 2] + 1) }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
