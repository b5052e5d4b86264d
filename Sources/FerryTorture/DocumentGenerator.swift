import Ferry

/// Makes random record documents: small and large, nested objects and arrays, every JSON
/// kind, and non-ASCII text (accents, CJK, emoji, escapes), each stamped with a unique nonce
/// so that no two puts carry the same content.
struct DocumentGenerator {
    /// Strings the generator draws from: plain, escaped, and multi-byte UTF-8.
    static let words = [
        "lamp", "Ünïcödé", "日本語のテキスト", "emoji 🚀🧪", "quote \" and \\ backslash", "tab\tnew\nline",
        "Ελληνικά", "עברית", "control \u{01}", "Ω≈ç√∫", "", "a/b/../c", "   spaces   ",
    ]

    var random: SplitMix64

    /// A document with `nonce` and roughly `size` bytes of content.
    mutating func document(nonce: String) -> JSONValue {
        var members: [String: JSONValue] = ["nonce": .string(nonce)]
        let size: Int
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<70: size = Int.random(in: 0...200, using: &random)
        case 70..<95: size = Int.random(in: 200...4_000, using: &random)
        default: size = Int.random(in: 4_000...150_000, using: &random)
        }
        var budget = size
        var field = 0
        while budget > 0 {
            let value = self.value(depth: 0, budget: &budget)
            members["f\(field)"] = value
            field += 1
        }
        return .object(members)
    }

    private mutating func value(depth: Int, budget: inout Int) -> JSONValue {
        let kind = Int.random(in: 0..<(depth < 4 ? 9 : 6), using: &random)
        budget -= 8
        switch kind {
        case 0: return .null
        case 1: return .bool(random.chance(50))
        case 2: return .integer(Int64.random(in: -1_000_000...1_000_000, using: &random))
        case 3: return .number(Double.random(in: -1e6...1e6, using: &random))
        case 4, 5:
            var text = DocumentGenerator.words.randomElement(using: &random) ?? ""
            if budget > 100 && random.chance(30) {
                let repeats = Int.random(in: 1...max(1, min(budget / 20, 2_000)), using: &random)
                text += String(repeating: " Ünï😀x", count: repeats)
            }
            budget -= text.utf8.count
            return .string(text)
        case 6, 7:
            var members: [String: JSONValue] = [:]
            for index in 0..<Int.random(in: 0...4, using: &random) where budget > 0 {
                members["k\(index)-" + (DocumentGenerator.words.randomElement(using: &random) ?? "")] =
                    value(depth: depth + 1, budget: &budget)
            }
            return .object(members)
        default:
            var elements: [JSONValue] = []
            for _ in 0..<Int.random(in: 0...5, using: &random) where budget > 0 {
                elements.append(value(depth: depth + 1, budget: &budget))
            }
            return .array(elements)
        }
    }
}
